// App state shared by the three render roots (nav, page, toasts): token, user, projects,
// selected project, toasts. A tiny observable; components subscribe through useAppState().

const listeners = new Set();

function readStorage(key) {
  try { return localStorage.getItem(key); } catch { return null; }
}

export const state = {
  token: readStorage('ta.token'),
  user: null,            // {username, is_superuser, ...} from /rest-auth/user/
  booted: false,         // user lookup at boot done
  projects: null,        // array from GET /projects/, newest first; null = not loaded
  projectId: readStorage('ta.project'),
  route: null,           // parsed route of routes.js
  loginNotice: null,     // notice shown on the login page
  toasts: [],            // [{id, text, kind}]
};

let version = 0;

/** Increases on every change; lets late subscribers notice missed updates. */
export function stateVersion() {
  return version;
}

export function setState(patch) {
  Object.assign(state, patch);
  version++;
  if ('token' in patch) {
    try {
      if (patch.token) localStorage.setItem('ta.token', patch.token);
      else localStorage.removeItem('ta.token');
    } catch { /* storage unavailable */ }
  }
  if ('projectId' in patch) {
    try {
      if (patch.projectId) localStorage.setItem('ta.project', String(patch.projectId));
      else localStorage.removeItem('ta.project');
    } catch { /* storage unavailable */ }
  }
  for (const fn of [...listeners]) fn(state);
}

export function subscribe(fn) {
  listeners.add(fn);
  return () => listeners.delete(fn);
}

let toastSeq = 0;

/**
 * Shows a toast (gui.md §4.6): notices hide after 5 s, errors stay until closed; at most 3.
 * @param {string} text
 * @param {'info'|'error'} [kind]
 */
export function toast(text, kind = 'info') {
  const id = ++toastSeq;
  const toasts = [{ id, text, kind }, ...state.toasts].slice(0, 3);
  setState({ toasts });
  if (kind !== 'error') setTimeout(() => dismissToast(id), 5000);
  return id;
}

export function dismissToast(id) {
  if (state.toasts.some((t) => t.id === id)) setState({ toasts: state.toasts.filter((t) => t.id !== id) });
}

/** Reads a per-page preference from localStorage. */
export function pref(key, fallback) {
  const v = readStorage('ta.pref.' + key);
  return v === null ? fallback : v;
}

export function setPref(key, value) {
  try { localStorage.setItem('ta.pref.' + key, String(value)); } catch { /* ignore */ }
}
