// Boot and router (gui.md §2, §3.3): renders the nav, the current page and the toasts,
// restores the session from localStorage, applies the auth and project guards per route.
import { html, render } from './preact.js';
import { state, setState, toast } from './state.js';
import { get, setSessionEndHandler } from './api.js';
import { parseRoute, loginHref } from './routes.js';
import { loadProjects, sessionEnded, navigate } from './session.js';
import { useAppState } from './components/hooks.js';
import { Nav } from './components/nav.js';
import { Toasts } from './components/toasts.js';
import { LoginPage } from './pages/login.js';
import { RegisterPage } from './pages/register.js';
import { ProjectsPage } from './pages/projects.js';
import { SettingsPage } from './pages/settings.js';
import { SearchPage } from './pages/search.js';
import { LexiconsPage, LexiconBuilderPage } from './pages/lexicons.js';
import { EmbeddingsPage } from './pages/embeddings.js';
import { TaggersPage } from './pages/taggers.js';
import { TaggerGroupsPage } from './pages/taggergroups.js';
import { TorchTaggersPage } from './pages/torchtaggers.js';
import { RegexTaggersPage } from './pages/regextaggers.js';
import { RegexTaggerGroupsPage } from './pages/regexgroups.js';
import { DatasetImportPage } from './pages/datasetimport.js';
import { AnonymizersPage } from './pages/anonymizers.js';
import { MlpPage } from './pages/mlp.js';
import { MlpIndexPage } from './pages/mlpindex.js';
import { ReindexerPage } from './pages/reindexer.js';
import { IndexSplitterPage } from './pages/indexsplitter.js';
import { EvaluatorsPage } from './pages/evaluators.js';
import { TopicAnalyzerPage } from './pages/topics.js';
import { ClusteringPage } from './pages/clustering.js';
import { ClusterPage } from './pages/cluster.js';
import { UsersPage } from './pages/users.js';

const PAGES = {
  login: LoginPage,
  register: RegisterPage,
  projects: ProjectsPage,
  settings: SettingsPage,
  search: SearchPage,
  lexicons: LexiconsPage,
  lexicon: LexiconBuilderPage,
  embeddings: EmbeddingsPage,
  taggers: TaggersPage,
  'tagger-groups': TaggerGroupsPage,
  'torch-taggers': TorchTaggersPage,
  'regex-taggers': RegexTaggersPage,
  'regex-tagger-groups': RegexTaggerGroupsPage,
  'dataset-import': DatasetImportPage,
  anonymizers: AnonymizersPage,
  mlp: MlpPage,
  'mlp-index': MlpIndexPage,
  reindexer: ReindexerPage,
  'index-splitter': IndexSplitterPage,
  evaluators: EvaluatorsPage,
  'topic-analyzer': TopicAnalyzerPage,
  clustering: ClusteringPage,
  cluster: ClusterPage,
  users: UsersPage,
};

function NotFound() {
  return html`<section><h1>Page not found</h1><p><a href="#/">Go to the projects list</a></p></section>`;
}

function App() {
  const s = useAppState();
  const r = s.route;
  if (!s.booted || !r) return html`<p aria-busy="true">Loading…</p>`;
  if (r.auth && !s.user) return html`<p aria-busy="true">Redirecting…</p>`;
  const Page = PAGES[r.name] || NotFound;
  return html`<${Page} key=${`${r.name}:${r.params.pid || ''}:${r.params.id || ''}:${r.params.cluster || ''}`} route=${r} />`;
}

let checkedProject = null;

/** Project guard (§2.1): remembers the project; a project the API does not show sends home. */
async function checkProject(pid) {
  if (checkedProject === pid) return;
  checkedProject = pid;
  const known = (state.projects || []).some((p) => String(p.id) === String(pid));
  if (known) return;
  try {
    await get(`projects/${pid}/`);
  } catch (e) {
    if (e.status === 404 || e.status === 403) {
      if (e.status === 403 && !state.token) return;
      checkedProject = null;
      setState({ projectId: null });
      toast('That project does not exist or you are not a member.', 'error');
      navigate('#/', true);
    }
  }
}

function onRoute() {
  const r = parseRoute(location.hash);
  document.title = `${r.title} · ta`;
  if (state.booted) {
    if (r.auth && !state.user) {
      navigate(loginHref(location.hash), true);
      return;
    }
    if ((r.name === 'login' || r.name === 'register') && state.user) {
      navigate(r.query.next ? '#' + r.query.next : '#/', true);
      return;
    }
    if (r.project && state.user) {
      if (String(state.projectId) !== String(r.params.pid)) setState({ projectId: r.params.pid });
      checkProject(r.params.pid);
    } else {
      checkedProject = null;
    }
  }
  setState({ route: r });
}

async function boot() {
  setSessionEndHandler(sessionEnded);
  if (state.token) {
    try {
      const user = await get('rest-auth/user/');
      setState({ user });
      await loadProjects();
    } catch (e) {
      if (e.status === 403) setState({ token: null, user: null });
      else toast(e.message, 'error');
    }
  }
  setState({ booted: true });
  onRoute();
}

window.addEventListener('hashchange', onRoute);
render(html`<${Nav} />`, document.getElementById('top'));
render(html`<${App} />`, document.getElementById('app'));
render(html`<${Toasts} />`, document.getElementById('toasts'));
setState({ route: parseRoute(location.hash) });
boot();
