// Hash routing (gui.md §2.1): parses `#/p/3/models/taggers?poll=500` into a route object and
// builds hrefs. Pure: no DOM, unit-tested with node --test.

/** Route table: pattern, name, page title, auth and project needs. */
export const ROUTES = [
  { pattern: '/login', name: 'login', title: 'Log in', auth: false },
  { pattern: '/register', name: 'register', title: 'Register', auth: false },
  { pattern: '/', name: 'projects', title: 'Projects', auth: true },
  { pattern: '/settings', name: 'settings', title: 'Settings', auth: true },
  { pattern: '/p/:pid/search', name: 'search', title: 'Search', auth: true, project: true },
  { pattern: '/p/:pid/lexicons', name: 'lexicons', title: 'Lexicons', auth: true, project: true },
  { pattern: '/p/:pid/lexicons/:id', name: 'lexicon', title: 'Lexicon', auth: true, project: true },
  { pattern: '/p/:pid/models/embeddings', name: 'embeddings', title: 'Embeddings', auth: true, project: true },
  { pattern: '/p/:pid/models/taggers', name: 'taggers', title: 'Taggers', auth: true, project: true },
  { pattern: '/p/:pid/models/tagger-groups', name: 'tagger-groups', title: 'Tagger groups', auth: true, project: true },
  { pattern: '/p/:pid/models/torch-taggers', name: 'torch-taggers', title: 'Torch taggers', auth: true, project: true },
  { pattern: '/p/:pid/models/regex-taggers', name: 'regex-taggers', title: 'Regex taggers', auth: true, project: true },
  { pattern: '/p/:pid/models/regex-tagger-groups', name: 'regex-tagger-groups', title: 'Regex tagger groups', auth: true, project: true },
  { pattern: '/p/:pid/tools/dataset-import', name: 'dataset-import', title: 'Dataset import', auth: true, project: true },
  { pattern: '/p/:pid/tools/anonymizers', name: 'anonymizers', title: 'Anonymizers', auth: true, project: true },
  { pattern: '/p/:pid/tools/mlp', name: 'mlp', title: 'Language processing', auth: true, project: true },
  { pattern: '/p/:pid/tools/mlp-index', name: 'mlp-index', title: 'Language processing of indices', auth: true, project: true },
  { pattern: '/p/:pid/tools/reindexer', name: 'reindexer', title: 'Reindexer', auth: true, project: true },
  { pattern: '/p/:pid/tools/index-splitter', name: 'index-splitter', title: 'Index splitter', auth: true, project: true },
  { pattern: '/p/:pid/tools/evaluators', name: 'evaluators', title: 'Evaluators', auth: true, project: true },
  { pattern: '/p/:pid/tools/topic-analyzer', name: 'topic-analyzer', title: 'Topic analyzer', auth: true, project: true },
  { pattern: '/p/:pid/tools/topic-analyzer/:id', name: 'clustering', title: 'Clustering', auth: true, project: true },
  { pattern: '/p/:pid/tools/topic-analyzer/:id/clusters/:cluster', name: 'cluster', title: 'Cluster', auth: true, project: true },
  { pattern: '/admin/users', name: 'users', title: 'User management', auth: true },
];

function decode(s) {
  try { return decodeURIComponent(s); } catch { return s; }
}

/**
 * @param {string} hash location.hash, with or without the leading '#'
 * @returns {{name:string, path:string, params:Object<string,string>, query:Object<string,string>, title:string, auth:boolean, project:boolean}}
 */
export function parseRoute(hash) {
  let h = String(hash || '').replace(/^#/, '');
  if (!h.startsWith('/')) h = '/' + h;
  const qi = h.indexOf('?');
  const rawPath = qi >= 0 ? h.slice(0, qi) : h;
  const query = {};
  if (qi >= 0) {
    for (const part of h.slice(qi + 1).split('&')) {
      if (!part) continue;
      const eq = part.indexOf('=');
      const k = decode((eq >= 0 ? part.slice(0, eq) : part).replace(/\+/g, ' '));
      const v = eq >= 0 ? decode(part.slice(eq + 1).replace(/\+/g, ' ')) : '';
      query[k] = v;
    }
  }
  const path = rawPath.length > 1 ? rawPath.replace(/\/+$/, '') : '/';
  const segs = path.split('/').filter(Boolean);
  for (const r of ROUTES) {
    const ps = r.pattern.split('/').filter(Boolean);
    if (ps.length !== segs.length) continue;
    const params = {};
    let ok = true;
    for (let i = 0; i < ps.length; i++) {
      if (ps[i].startsWith(':')) {
        const v = decode(segs[i]);
        if (['pid', 'id', 'cluster'].includes(ps[i].slice(1)) && !/^\d+$/.test(v)) { ok = false; break; }
        params[ps[i].slice(1)] = v;
      } else if (ps[i] !== segs[i]) { ok = false; break; }
    }
    if (ok) return { name: r.name, path, params, query, title: r.title, auth: r.auth, project: !!r.project };
  }
  return { name: 'notfound', path, params: {}, query, title: 'Page not found', auth: false, project: false };
}

/** Builds a hash href for a route name and params: href('search', {pid: 3}) → '#/p/3/search'. */
export function href(name, params = {}, query = {}) {
  const r = ROUTES.find((x) => x.name === name);
  if (!r) throw new Error(`unknown route ${name}`);
  const path = r.pattern.replace(/:(\w+)/g, (_, k) => encodeURIComponent(String(params[k])));
  const qs = Object.entries(query).filter(([, v]) => v !== undefined && v !== null && v !== '')
    .map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`).join('&');
  return '#' + path + (qs ? '?' + qs : '');
}

/**
 * Detail pages and the list page they belong to: the list in another project (ids belong to
 * one project), and the menu item that is current on them.
 */
export const PARENT = { lexicon: 'lexicons', clustering: 'topic-analyzer', cluster: 'topic-analyzer' };

/** The same page for another project (project selector, gui.md §2.2). */
export function switchProject(route, pid) {
  if (!route.project) return null;
  const name = PARENT[route.name] || route.name;
  return href(name, { ...route.params, pid });
}

/** Login href that returns to `current` (a hash without '#') afterwards. */
export function loginHref(current) {
  const next = String(current || '').replace(/^#/, '');
  if (!next || next === '/' || next.startsWith('/login') || next.startsWith('/register')) return '#/login';
  return '#/login?next=' + encodeURIComponent(next);
}
