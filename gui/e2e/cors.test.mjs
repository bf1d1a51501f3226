// Cross-origin use in Chromium (texta-client.md §2): a page on another loopback port, listed
// with TA_CORS_ORIGINS, logs in and calls protected routes with its token (the browser's
// preflights answered before authentication) and reads error bodies; a page on an unlisted
// port is refused by the browser.
import { before, after, test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { startServer, launchBrowser, freePort, ADMIN_PASSWORD } from './harness.mjs';

let server;
let browser;
const pages = [];

/** A blank page at http://127.0.0.1:<port>/. */
async function pageServer() {
  const port = await freePort();
  const srv = http.createServer((req, res) => {
    res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' });
    res.end('<!doctype html><title>other origin</title><p>another site</p>');
  });
  await new Promise((r) => srv.listen(port, '127.0.0.1', r));
  pages.push(srv);
  return `http://127.0.0.1:${port}`;
}

let allowed;
let unlisted;

before(async () => {
  allowed = await pageServer();
  unlisted = await pageServer();
  if (process.env.E2E_ORIGIN) return;
  server = await startServer({ TA_CORS_ORIGINS: allowed });
  browser = await launchBrowser();
});
after(async () => {
  if (browser) await browser.close();
  if (server) await server.stop();
  for (const p of pages) p.close();
});

/** Runs the client's calls from a page at `origin`; answers what the page could read. */
async function fromPage(origin) {
  const context = await browser.browser.newContext();
  const page = await context.newPage();
  await page.goto(origin + '/');
  try {
    return await page.evaluate(async ({ api, password }) => {
      const accept = 'application/json, text/plain, */*';
      const call = async (method, path, body, key) => {
        const headers = { Accept: accept };
        if (body) headers['Content-Type'] = 'application/json';
        if (key) headers.Authorization = `Token ${key}`;
        try {
          const r = await fetch(api + path, { method, headers, body: body && JSON.stringify(body), credentials: 'include' });
          return { status: r.status, body: await r.json() };
        } catch (e) {
          return { blocked: String(e) };
        }
      };
      const login = await call('POST', '/rest-auth/login/', { username: 'admin', password });
      const key = login.body && login.body.key;
      return {
        login,
        projects: await call('GET', '/projects/', undefined, key),
        created: await call('POST', '/projects/', { title: 'cors', users: [], indices: [] }, key),
        missing: await call('GET', '/projects/999/', undefined, key),
        metadata: await call('OPTIONS', '/projects/', undefined, key),
      };
    }, { api: server.api, password: ADMIN_PASSWORD });
  } finally {
    await context.close();
  }
}

test('A page on an allowed origin logs in and calls the API; an unlisted one is refused', { skip: !!process.env.E2E_ORIGIN }, async () => {
  const ok = await fromPage(allowed);
  assert.equal(ok.login.status, 200, JSON.stringify(ok.login));
  assert.equal(typeof ok.login.body.key, 'string');
  assert.equal(ok.projects.status, 200);
  assert.ok(Array.isArray(ok.projects.body));
  assert.equal(ok.created.status, 201, JSON.stringify(ok.created));
  assert.deepEqual(ok.missing, { status: 404, body: { detail: 'Not found.' } }, 'an error answer is readable too');
  assert.equal(ok.metadata.status, 200);
  assert.equal(ok.metadata.body.name, 'Project List');
  const refused = await fromPage(unlisted);
  assert.ok(refused.login.blocked, JSON.stringify(refused.login));
  assert.ok(refused.projects.blocked);
});
