// API client: fetch wrapper with the token header (gui.md §3.3), JSON in/out, error
// normalisation (§6), session-end detection (§3.4), and multipart upload with progress (§5.5.1).
import { state } from './state.js';
import { normalizeError, isSessionEnd } from './errors.js';

/** Base of the JSON API, found from the page address so a path prefix works. */
export const API_BASE = new URL('../api/v1/', location.href).href;

export function apiUrl(path) {
  return API_BASE + String(path).replace(/^\/+/, '');
}

/** A failed API call: status, parsed body (undefined when not JSON) and its normalised form. */
export class ApiError extends Error {
  constructor(status, body, statusText) {
    const norm = normalizeError(status, body, statusText);
    super(norm.summary[0] || `HTTP ${status}`);
    this.status = status;
    this.body = body;
    this.norm = norm;
  }
}

let onSessionEnd = () => {};

/** Registers what happens when the server says the token is gone. */
export function setSessionEndHandler(fn) {
  onSessionEnd = fn;
}

function headers(json) {
  const h = { Accept: 'application/json' };
  if (json) h['Content-Type'] = 'application/json';
  if (state.token) h.Authorization = `Token ${state.token}`;
  return h;
}

function fail(status, body, statusText, tokenUsed) {
  if (tokenUsed && isSessionEnd(status, body)) onSessionEnd();
  throw new ApiError(status, body, statusText);
}

/**
 * Calls the API. Resolves with the parsed JSON (null for 204), rejects with ApiError.
 * @param {string} method
 * @param {string} path relative to /api/v1/
 * @param {*} [body] JSON-encoded when given
 * @param {{signal?:AbortSignal}} [opts]
 */
export async function api(method, path, body, opts = {}) {
  const tokenUsed = !!state.token;
  let res;
  try {
    res = await fetch(apiUrl(path), {
      method,
      headers: headers(body !== undefined),
      body: body !== undefined ? JSON.stringify(body) : undefined,
      credentials: 'omit',
      signal: opts.signal,
    });
  } catch (e) {
    if (e && e.name === 'AbortError') throw e;
    throw new ApiError(0, undefined, '');
  }
  let data;
  if (res.status !== 204) {
    const text = await res.text();
    if (text) {
      try { data = JSON.parse(text); } catch { data = undefined; }
    } else data = res.ok ? null : undefined;
  } else data = null;
  if (!res.ok) fail(res.status, data, res.statusText, tokenUsed);
  return data;
}

export const get = (path, opts) => api('GET', path, undefined, opts);
export const post = (path, body = {}, opts) => api('POST', path, body, opts);
export const patch = (path, body, opts) => api('PATCH', path, body, opts);
export const del = (path, opts) => api('DELETE', path, undefined, opts);

/**
 * Multipart POST with upload progress (XMLHttpRequest; fetch has none).
 * @param {string} path
 * @param {FormData} form
 * @param {(fraction:number)=>void} onProgress
 */
export function upload(path, form, onProgress) {
  const tokenUsed = !!state.token;
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open('POST', apiUrl(path));
    xhr.setRequestHeader('Accept', 'application/json');
    if (state.token) xhr.setRequestHeader('Authorization', `Token ${state.token}`);
    xhr.withCredentials = false;
    xhr.upload.onprogress = (e) => {
      if (e.lengthComputable && e.total > 0) onProgress(e.loaded / e.total);
    };
    xhr.onerror = () => reject(new ApiError(0, undefined, ''));
    xhr.onload = () => {
      let data;
      try { data = xhr.responseText ? JSON.parse(xhr.responseText) : null; } catch { data = undefined; }
      if (xhr.status >= 200 && xhr.status < 300) {
        onProgress(1);
        resolve(data);
      } else {
        try { fail(xhr.status, data, xhr.statusText, tokenUsed); } catch (e) { reject(e); }
      }
    };
    xhr.send(form);
  });
}

/** Fetches every page of a paginated collection (page_size=1000). */
export async function getAll(path) {
  const sep = path.includes('?') ? '&' : '?';
  const out = [];
  for (let page = 1; page < 100; page++) {
    const data = await get(`${path}${sep}page_size=1000&page=${page}`);
    out.push(...(data.results || []));
    if (out.length >= (data.count || 0) || !(data.results || []).length) break;
  }
  return out;
}
