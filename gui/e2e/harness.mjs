// E2E harness (gui.md §9.1): starts a fresh `ta serve` on 127.0.0.1 with a temporary data
// directory, launches Debian chromium through playwright-core, gives each scenario a fresh
// browser context, and on failure writes a screenshot and the console log to target/e2e/.
import { spawn, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import net from 'node:net';
import { fileURLToPath } from 'node:url';
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { chromium } from 'playwright-core';
import { startStaticProxy } from './static-proxy.mjs';

const HERE = path.dirname(fileURLToPath(import.meta.url));
export const REPO = path.resolve(HERE, '../..');
export const OUT_DIR = path.join(REPO, 'target', 'e2e');
export const TA_BIN = process.env.TA_BIN || path.join(REPO, 'target', 'debug', 'ta');
export const ADMIN_PASSWORD = 'e2e-admin-Pass1';
export const RUN = process.env.E2E_RUN || Date.now().toString(36).slice(-6);
export const PASSWORD = 'Kala-maja-42!';
/** Poll interval the GUI uses during tests (?poll=500 in the hash). */
export const POLL = 500;

/** The dataset-import conformance CSV: a text,label header and four Estonian sentences. */
export const CSV = [
  'text,label',
  '"Varas murdis öösel kauplusesse ja varastas raha.",krimi',
  '"Tallinnas puhkes suur põleng, tuletõrje kustutas selle kiiresti.",tulekahju',
  '"Eile kell 10 õhtul sisenes röövel keemiatehasesse.",krimi',
  '"Ilus päikseline ilm jätkub kogu nädala.",ilm',
].join('\n') + '\n';

/** Two topics, six short documents each (sport, then baking), with a title: the topic analyzer's corpus. */
export const TOPICS_JSONL = [
  ...['football match goal team', 'team scored a goal in the football match', 'the football team won the match',
    'goal after goal the team celebrated', 'match report football team coach', 'the coach praised the football team']
    .map((text, i) => ({ text, title: `sport ${i + 1}` })),
  ...['bake bread with flour and butter', 'the recipe needs flour sugar butter', 'oven bread recipe flour',
    'butter and sugar make the cake recipe', 'bake the cake in the oven', 'fresh bread from the oven with butter']
    .map((text, i) => ({ text, title: `food ${i + 1}` })),
].map((d) => JSON.stringify(d)).join('\n') + '\n';

export function freePort() {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.on('error', reject);
    s.listen(0, '127.0.0.1', () => { const { port } = s.address(); s.close(() => resolve(port)); });
  });
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/**
 * Starts `ta serve`; resolves when /api/v1/health/ answers 200.
 * @param {Record<string,string>} [extraEnv] more environment for the server (e.g. TA_CORS_ORIGINS)
 * @returns {Promise<{url:string, api:string, stop:()=>Promise<void>, log:()=>string, proxied:boolean}>}
 */
export async function startServer(extraEnv = {}) {
  if (process.env.E2E_ORIGIN) return attach(process.env.E2E_ORIGIN);
  if (!fs.existsSync(TA_BIN)) throw new Error(`ta binary not found at ${TA_BIN} (set TA_BIN)`);
  const port = await freePort();
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ta-e2e-'));
  let out = '';
  const proc = spawn(TA_BIN, ['serve', '--port', String(port)], {
    env: { ...process.env, TA_DATA_DIR: dataDir, TA_ADMIN_PASSWORD: ADMIN_PASSWORD, TA_PASSWORD_ITERATIONS: '1000', ...extraEnv },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  proc.stdout.on('data', (d) => { out += d; });
  proc.stderr.on('data', (d) => { out += d; });
  let exited = false;
  proc.on('exit', () => { exited = true; });
  const origin = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 120000;
  for (;;) {
    if (exited) throw new Error(`ta serve exited early:\n${out}`);
    try {
      const r = await fetch(`${origin}/api/v1/health/`);
      if (r.status === 200) break;
    } catch { /* not up yet */ }
    if (Date.now() > deadline) { proc.kill('SIGTERM'); throw new Error(`ta serve did not answer health in 120 s:\n${out}`); }
    await sleep(250);
  }
  // A binary without the /gui/ route: serve gui/ from the checkout in front of it.
  let url = origin;
  let proxy = null;
  const g = await fetch(`${origin}/gui/`).catch(() => null);
  if (!g || g.status === 404) {
    proxy = await startStaticProxy(origin);
    url = proxy.url;
  }
  const stop = async () => {
    if (proxy) await proxy.close();
    if (!exited) {
      proc.kill('SIGTERM');
      for (let i = 0; i < 50 && !exited; i++) await sleep(100);
      if (!exited) proc.kill('SIGKILL');
    }
    fs.rmSync(dataDir, { recursive: true, force: true });
  };
  return { url, api: `${origin}/api/v1`, stop, log: () => out, proxied: !!proxy };
}

/** Development aid: use an already running server at E2E_ORIGIN instead of spawning one. */
async function attach(origin) {
  let url = origin;
  let proxy = null;
  const g = await fetch(`${origin}/gui/`).catch(() => null);
  if (!g || g.status === 404) {
    proxy = await startStaticProxy(origin);
    url = proxy.url;
  }
  return { url, api: `${origin}/api/v1`, stop: async () => { if (proxy) await proxy.close(); }, log: () => '', proxied: !!proxy };
}

/** The chromium executable: $CHROMIUM or `command -v chromium`. */
export function chromiumPath() {
  if (process.env.CHROMIUM) return process.env.CHROMIUM;
  for (const name of ['chromium', 'chromium-browser']) {
    try { return execFileSync('sh', ['-c', `command -v ${name}`]).toString().trim(); } catch { /* next */ }
  }
  throw new Error('chromium not found: apt-get install -y chromium, or set CHROMIUM');
}

export async function launchBrowser() {
  // playwright-core gives every launch a fresh, empty temporary profile (user-data dir)
  const browser = await chromium.launch({
    executablePath: chromiumPath(),
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  return {
    browser,
    close: async () => { await browser.close(); },
  };
}

/** JSON API call for setup and checks. */
export async function api(server, method, p, body, key) {
  const headers = { Accept: 'application/json' };
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  if (key) headers.Authorization = `Token ${key}`;
  const r = await fetch(`${server.api}/${p.replace(/^\//, '')}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await r.text();
  let json;
  try { json = text ? JSON.parse(text) : null; } catch { json = text; }
  return { status: r.status, body: json };
}

export async function apiLogin(server, username, password) {
  const r = await api(server, 'POST', 'rest-auth/login/', { username, password });
  if (r.status !== 200) throw new Error(`login ${username}: ${r.status} ${JSON.stringify(r.body)}`);
  return r.body.key;
}

/**
 * Through the API: a project of admin's (`key`) titled `title`, with `index` imported from a
 * file (default the CSV); waits for the import to complete. Returns the project id.
 * @param {{name?:string, type?:string, text?:string}} [file]
 */
export async function projectWithIndex(server, key, title, index, file = {}) {
  const me = await api(server, 'GET', 'rest-auth/user/', undefined, key);
  const p = await api(server, 'POST', 'projects/', { title, users: [`/api/v1/users/${me.body.id}/`] }, key);
  assert.equal(p.status, 201, JSON.stringify(p.body));
  const fd = new FormData();
  fd.append('description', `${index} data`);
  fd.append('index', index);
  fd.append('file', new Blob([file.text ?? CSV], { type: file.type ?? 'text/csv' }), file.name ?? 'e2e.csv');
  const r = await fetch(`${server.api}/projects/${p.body.id}/dataset_imports/`, { method: 'POST', headers: { Authorization: `Token ${key}` }, body: fd });
  const imp = await r.json();
  assert.equal(r.status, 201, JSON.stringify(imp));
  for (let i = 0; i < 240; i++) {
    const g = await api(server, 'GET', `projects/${p.body.id}/dataset_imports/${imp.id}/`, undefined, key);
    if (g.body.task && ['completed', 'failed'].includes(g.body.task.status)) {
      assert.equal(g.body.task.status, 'completed', JSON.stringify(g.body.task));
      return p.body.id;
    }
    await sleep(500);
  }
  throw new Error(`import of ${index} did not finish`);
}

function safeName(s) {
  return s.replace(/[^a-zA-Z0-9_-]+/g, '_').slice(0, 80);
}

/**
 * Declares one scenario: a fresh context and page; failure → screenshot + console log.
 * `getEnv` returns {server, browser} once the before hook has run.
 * @param {string} name
 * @param {()=>{server:any, browser:any}} getEnv
 * @param {(page:import('playwright-core').Page, t:any, ctx:any)=>Promise<void>} fn
 * @param {object} [opts] node:test options (timeout, skip)
 */
export function scenario(name, getEnv, fn, opts = {}) {
  test(name, { timeout: 240000, ...opts }, async (t) => {
    const { server, browser } = getEnv();
    const context = await browser.browser.newContext({ baseURL: server.url, viewport: { width: 1280, height: 900 } });
    context.setDefaultTimeout(15000);
    const page = await context.newPage();
    const logs = [];
    page.on('console', (m) => logs.push(`[${m.type()}] ${m.text()}`));
    page.on('pageerror', (e) => logs.push(`[pageerror] ${e.message}`));
    page.on('requestfailed', (r) => logs.push(`[requestfailed] ${r.method()} ${r.url()} ${r.failure() && r.failure().errorText}`));
    try {
      await fn(page, t, context);
      const csp = logs.filter((l) => /Content Security Policy/i.test(l));
      assert.deepEqual(csp, [], 'the GUI must not break its CSP (gui.md §1.3)');
    } catch (e) {
      fs.mkdirSync(OUT_DIR, { recursive: true });
      const base = path.join(OUT_DIR, safeName(name));
      for (const [i, pg] of context.pages().entries()) {
        await pg.screenshot({ path: `${base}${i ? '-' + i : ''}.png`, fullPage: true }).catch(() => {});
      }
      fs.writeFileSync(`${base}.console.log`, logs.join('\n') + '\n');
      throw e;
    } finally {
      await context.close();
    }
  });
}

/** Opens the GUI at a hash route (test poll interval added). */
export async function open(page, hash = '/') {
  const sep = hash.includes('?') ? '&' : '?';
  await page.goto(`/gui/#${hash}${sep}poll=${POLL}`);
}

/** Logs in through the login form. */
export async function guiLogin(page, username, password, hash = '/login') {
  await open(page, hash);
  await page.getByLabel('Username').fill(username);
  await page.getByLabel('Password', { exact: true }).fill(password);
  await page.getByRole('button', { name: 'Log in' }).click();
  await page.getByTestId('user-menu').waitFor();
}

/** Waits until a task cell inside `scope` has a terminal data-status; returns it. */
export async function waitTask(scope, timeoutMs = 120000, want = ['completed', 'failed', 'cancelled']) {
  const cell = scope.getByTestId('task-status');
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const st = await cell.getAttribute('data-status').catch(() => null);
    if (st && want.includes(st)) return st;
    if (Date.now() > deadline) throw new Error(`task did not reach ${want.join('/')} in ${timeoutMs} ms (last: ${st})`);
    await sleep(250);
  }
}

/** Picks a project in the nav selector by id. */
export async function selectProject(page, pid) {
  await page.getByTestId('nav-project-select').selectOption(String(pid));
}

/** Opens a Models ▾ / Tools ▾ menu item. */
export async function navTo(page, menu, item) {
  await page.locator('nav summary', { hasText: menu }).click();
  await page.getByRole('link', { name: item, exact: true }).click();
}

/** The open dialog. */
export const dialog = (page) => page.getByRole('dialog');

/** The table row with a cell reading exactly `text`. */
export const rowByText = (page, text) => page.locator('tbody tr', { has: page.getByRole('cell', { name: text, exact: true }) });

/** Runs a row action from the ⋮ menu of the row described `description`. */
export async function rowMenu(page, description, action) {
  await page.getByRole('button', { name: `Actions for ${description}`, exact: true }).click();
  await page.getByRole('button', { name: action, exact: true }).click();
}

/** Runs axe-core in the page; returns critical/serious violations. */
export async function axeSerious(page) {
  const src = fs.readFileSync(path.join(HERE, 'node_modules', 'axe-core', 'axe.min.js'), 'utf8');
  await page.evaluate(src);
  const res = await page.evaluate(async () => {
    // eslint-disable-next-line no-undef
    const r = await axe.run(document, { resultTypes: ['violations'] });
    return r.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.map((n) => n.target.join(' ')).slice(0, 5) }));
  });
  return res.filter((v) => v.impact === 'critical' || v.impact === 'serious');
}

/**
 * Imports a file into a new index of project `pid` through dataset_imports and waits for it.
 * @param {{index:string, name:string, type:string, text:string}} file
 */
export async function importFile(server, key, pid, { index, name, type, text }) {
  const fd = new FormData();
  fd.append('description', `import ${name}`);
  fd.append('index', index);
  fd.append('file', new Blob([text], { type }), name);
  const r = await fetch(`${server.api}/projects/${pid}/dataset_imports/`, { method: 'POST', headers: { Authorization: `Token ${key}` }, body: fd });
  const imp = await r.json();
  assert.equal(r.status, 201, JSON.stringify(imp));
  for (let i = 0; i < 240; i++) {
    const g = await api(server, 'GET', `projects/${pid}/dataset_imports/${imp.id}/`, undefined, key);
    if (g.body.task && ['completed', 'failed'].includes(g.body.task.status)) {
      assert.equal(g.body.task.status, 'completed', JSON.stringify(g.body.task));
      return;
    }
    await sleep(500);
  }
  throw new Error(`import of ${name} did not finish`);
}

/**
 * A test file's world: a fresh server and browser, the admin's API key and a project of the
 * admin's titled `title`, made in `before` (then `setup(world)` runs) and closed in `after`.
 * The object's fields are set once `before` has run; pass `() => world` to `scenario`.
 * @returns {{server:any, browser:any, key:string, pid:number}}
 */
export function projectWorld(title, setup = async () => {}) {
  const world = {};
  before(async () => {
    world.server = await startServer();
    world.browser = await launchBrowser();
    world.key = await apiLogin(world.server, 'admin', ADMIN_PASSWORD);
    const me = await api(world.server, 'GET', 'rest-auth/user/', undefined, world.key);
    const p = await api(world.server, 'POST', 'projects/', { title, users: [`/api/v1/users/${me.body.id}/`] }, world.key);
    assert.equal(p.status, 201, JSON.stringify(p.body));
    world.pid = p.body.id;
    await setup(world);
  });
  after(async () => {
    if (world.browser) await world.browser.close();
    if (world.server) await world.server.stop();
  });
  return world;
}
