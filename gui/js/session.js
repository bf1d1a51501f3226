// Session handling (gui.md §3): log in with a key, load the user and projects, log out
// (explicitly or when the server says the token is gone), and navigation helpers.
import { state, setState, toast } from './state.js';
import { get, post } from './api.js';
import { loginHref } from './routes.js';

export function navigate(hash, replace = false) {
  if (location.hash === hash) return;
  if (replace) location.replace(hash); else location.hash = hash;
}

/** Loads the caller's projects (plain array), newest first. */
export async function loadProjects() {
  try {
    const list = await get('projects/');
    setState({ projects: [...list].sort((a, b) => b.id - a.id) });
  } catch (e) {
    if (e.status !== 403) toast(e.message, 'error');
  }
}

/** Stores a key, reads the user, loads projects. */
export async function startSession(key) {
  setState({ token: key, loginNotice: null });
  const user = await get('rest-auth/user/');
  setState({ user, projects: null });
  await loadProjects();
  return user;
}

/** Forgets everything about the session locally. */
export function clearSession(notice) {
  setState({ token: null, user: null, projects: null, projectId: null, loginNotice: notice || null });
}

/** User menu → Log out. */
export async function logout() {
  try { await post('rest-auth/logout/'); } catch { /* whatever the answer */ }
  clearSession('You have been logged out.');
  navigate('#/login');
}

/** A 403 with a token detail: log out locally and go to login, keeping the route. */
export function sessionEnded() {
  if (!state.token && !state.user) return;
  const current = location.hash.replace(/^#/, '') || '/';
  clearSession('Your session has ended. Please log in again.');
  navigate(loginHref(current));
}
