// Top navigation panel (gui.md §2.2): Projects, Search, Lexicons, Models ▾, Tools ▾, the
// project selector and the user menu; before login only Log in / Register.
import { html, useEffect, useRef } from '../preact.js';
import { useAppState } from './hooks.js';
import { setState, toast } from '../state.js';
import { href, switchProject, PARENT } from '../routes.js';
import { logout, navigate } from '../session.js';

const MODELS = [
  ['embeddings', 'Embeddings'], ['taggers', 'Taggers'], ['tagger-groups', 'Tagger groups'],
  ['torch-taggers', 'Torch taggers'], ['regex-taggers', 'Regex taggers'], ['regex-tagger-groups', 'Regex tagger groups'],
];
const TOOLS = [
  ['dataset-import', 'Dataset import'], ['anonymizers', 'Anonymizers'], ['mlp', 'Language processing (MLP)'],
  ['mlp-index', 'MLP on indices'], ['reindexer', 'Reindexer'], ['index-splitter', 'Index splitter'], ['evaluators', 'Evaluators'],
  ['topic-analyzer', 'Topic analyzer'],
];

function ProjectLink({ name, label, pid, current, onDone }) {
  const target = pid ? href(name, { pid }) : '#/';
  const onClick = (e) => {
    if (!pid) {
      e.preventDefault();
      toast('Select a project first.');
      navigate('#/');
    }
    if (onDone) onDone();
  };
  const active = current === name || PARENT[current] === name;
  return html`<a href=${target} onClick=${onClick} aria-current=${active ? 'page' : null}>${label}</a>`;
}

/** A <details> menu that closes on outside click, Escape or choosing an item. */
function Menu({ label, children, active, testid }) {
  const ref = useRef(null);
  useEffect(() => {
    const onDoc = (e) => { if (ref.current && ref.current.open && !ref.current.contains(e.target)) ref.current.open = false; };
    const onKey = (e) => {
      if (e.key === 'Escape' && ref.current && ref.current.open) {
        ref.current.open = false;
        ref.current.querySelector('summary').focus();
      }
    };
    document.addEventListener('click', onDoc);
    document.addEventListener('keydown', onKey);
    return () => { document.removeEventListener('click', onDoc); document.removeEventListener('keydown', onKey); };
  }, []);
  const close = () => { if (ref.current) ref.current.open = false; };
  return html`<details class="menu" ref=${ref} data-testid=${testid || null}>
    <summary class=${active ? 'active' : ''}>${label}<span class="caret" aria-hidden="true">▾</span></summary>
    <ul onClick=${(e) => { if (e.target.closest('a,button')) close(); }}>${children}</ul>
  </details>`;
}

export function Nav() {
  const s = useAppState();
  const route = s.route || { name: '' };
  if (!s.user) {
    return html`<nav aria-label="Main">
      <ul><li><a href="#/" class="brand">ta</a></li></ul>
      <ul>
        <li><a href="#/login" aria-current=${route.name === 'login' ? 'page' : null}>Log in</a></li>
        <li><a href="#/register" aria-current=${route.name === 'register' ? 'page' : null}>Register</a></li>
      </ul>
    </nav>`;
  }
  const pid = s.projectId;
  const projects = s.projects || [];
  const onProject = (e) => {
    const v = e.target.value;
    setState({ projectId: v || null });
    if (v && route.project) {
      const to = switchProject(route, v);
      if (to) navigate(to);
    }
  };
  const inModels = MODELS.some(([n]) => n === route.name);
  const inTools = TOOLS.some(([n]) => n === route.name || n === PARENT[route.name]);
  return html`<nav aria-label="Main">
    <ul>
      <li><a href="#/" class="brand" aria-label="ta home">ta</a></li>
      <li><a href="#/" aria-current=${route.name === 'projects' ? 'page' : null}>Projects</a></li>
      <li><${ProjectLink} name="search" label="Search" pid=${pid} current=${route.name} /></li>
      <li><${ProjectLink} name="lexicons" label="Lexicons" pid=${pid} current=${route.name} /></li>
      <li><${Menu} label="Models" active=${inModels}>
        ${MODELS.map(([n, l]) => html`<li key=${n}><${ProjectLink} name=${n} label=${l} pid=${pid} current=${route.name} /></li>`)}
      <//></li>
      <li><${Menu} label="Tools" active=${inTools}>
        ${TOOLS.map(([n, l]) => html`<li key=${n}><${ProjectLink} name=${n} label=${l} pid=${pid} current=${route.name} /></li>`)}
      <//></li>
    </ul>
    <ul>
      <li><select data-testid="nav-project-select" aria-label="Project" onChange=${onProject} value=${pid || ''}>
        <option value="" selected=${!pid}>Select a project</option>
        ${projects.map((p) => html`<option key=${p.id} value=${String(p.id)} selected=${String(p.id) === String(pid)}>${p.id}: ${p.title}</option>`)}
      </select></li>
      <li><${Menu} label=${s.user.username} testid="user-menu">
        <li><a href="#/settings">Settings</a></li>
        ${s.user.is_superuser ? html`<li><a href="#/admin/users">User management</a></li>` : null}
        <li><button type="button" class="secondary" onClick=${logout}>Log out</button></li>
      <//></li>
    </ul>
  </nav>`;
}
