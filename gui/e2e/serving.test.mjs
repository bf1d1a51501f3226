// Checks of the /gui/ static serving rules (gui.md §1.3) and the route guards (§2.1) against
// a fresh `ta serve`; the serving checks skip when the binary has no /gui/ route.
import { before, after, test } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, launchBrowser, scenario, guiLogin, open, api, apiLogin, ADMIN_PASSWORD } from './harness.mjs';
import { CSP } from './static-proxy.mjs';

let server;
let browser;
const env = () => ({ server, browser });

before(async () => {
  server = await startServer();
  browser = await launchBrowser();
});
after(async () => {
  if (browser) await browser.close();
  if (server) await server.stop();
});

test('GUI static serving: redirect, headers, 404', async (t) => {
  if (server.proxied) {
    t.skip('this ta has no /gui/ route; the harness serves gui/ itself');
    return;
  }
  const origin = new URL(server.api).origin;
  const r = await fetch(`${origin}/gui`, { redirect: 'manual' });
  assert.equal(r.status, 301);
  assert.match(r.headers.get('location'), /\/gui\/$/);
  const idx = await fetch(`${origin}/gui/`);
  assert.equal(idx.status, 200);
  assert.match(idx.headers.get('content-type'), /^text\/html/);
  assert.equal(idx.headers.get('content-security-policy'), CSP);
  assert.equal(idx.headers.get('x-content-type-options'), 'nosniff');
  assert.equal(idx.headers.get('referrer-policy'), 'same-origin');
  assert.match(idx.headers.get('cache-control') || '', /no-cache/);
  const js = await fetch(`${origin}/gui/js/main.js`);
  assert.equal(js.status, 200);
  assert.match(js.headers.get('content-type'), /javascript/);
  assert.ok(js.headers.get('etag'), 'assets carry an ETag');
  assert.equal((await fetch(`${origin}/gui/no-such-file.js`)).status, 404);
  assert.equal((await fetch(`${origin}/gui/e2e/package.json`)).status, 404, 'test files are not served');
});

scenario('Guards: unknown project, no project selected, unknown route', env, async (page) => {
  const key = await apiLogin(server, 'admin', ADMIN_PASSWORD);
  const me = (await api(server, 'GET', 'rest-auth/user/', undefined, key)).body;
  assert.equal(me.username, 'admin');
  await guiLogin(page, 'admin', ADMIN_PASSWORD);
  await open(page, '/p/9999/search');
  await page.getByText('That project does not exist or you are not a member.').waitFor();
  await page.getByRole('heading', { name: 'Projects' }).waitFor();
  assert.equal(await page.evaluate(() => localStorage.getItem('ta.project')), null);
  await page.getByRole('link', { name: 'Search', exact: true }).click();
  await page.getByText('Select a project first.').waitFor();
  await open(page, '/no/such/page');
  await page.getByRole('heading', { name: 'Page not found' }).waitFor();
  // a route needing login, opened without a token, goes to login and back
  await page.evaluate(() => localStorage.clear());
  await page.goto('/gui/#/settings');
  await page.reload();
  await page.getByRole('heading', { name: 'Log in' }).waitFor();
  assert.match(page.url(), /#\/login\?next=%2Fsettings/);
});
