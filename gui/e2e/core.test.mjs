// E2E scenarios E1–E9 and E13–E16 of gui.md §9.2, in order, against one fresh `ta serve`;
// later scenarios use the state the earlier ones built (user, project, index, taggers).
import { before, after } from 'node:test';
import assert from 'node:assert/strict';
import {
  startServer, launchBrowser, scenario, open, guiLogin, waitTask, selectProject, navTo, api, apiLogin,
  axeSerious, RUN, PASSWORD, ADMIN_PASSWORD, CSV,
  dialog, rowByText, rowMenu,
} from './harness.mjs';

let server;
let browser;
const env = () => ({ server, browser });
const U = `u_${RUN}`;
const V = `v_${RUN}`;
const INDEX = `e2e_${RUN}`;
const TITLE = `E2E ${RUN}`;
let pid = null;

before(async () => {
  server = await startServer();
  browser = await launchBrowser();
});
after(async () => {
  if (browser) await browser.close();
  if (server) await server.stop();
});

scenario('E1 Register and log out', env, async (page) => {
  await open(page, '/');
  await page.getByRole('heading', { name: 'Log in' }).waitFor();
  await page.getByRole('link', { name: 'Create an account' }).click();
  await page.getByLabel('Username').fill(U);
  await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
  await page.getByLabel('Repeat password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Register' }).click();
  await page.getByTestId('user-menu').getByText(U).waitFor();
  await page.getByText('Nothing here yet.').waitFor();
  const key = await page.evaluate(() => localStorage.getItem('ta.token'));
  assert.match(key, /^[0-9a-f]{40}$/);
  await page.getByTestId('user-menu').locator('summary').click();
  await page.getByRole('button', { name: 'Log out' }).click();
  await page.getByText('You have been logged out.').waitFor();
  assert.equal(await page.evaluate(() => localStorage.getItem('ta.token')), null);
  await open(page, '/');
  await page.getByRole('heading', { name: 'Log in' }).waitFor();
  const r = await api(server, 'GET', 'projects/', undefined, key);
  assert.equal(r.status, 403);
});

scenario('E2 Registration and login errors', env, async (page) => {
  await open(page, '/register');
  await page.getByLabel('Username').fill(`w_${RUN}`);
  await page.getByLabel('Password', { exact: true }).fill('abc');
  await page.getByLabel('Repeat password').fill('abc');
  await page.getByRole('button', { name: 'Register' }).click();
  await page.getByTestId('field-error-password1').getByText('Password must be a minimum of 6 characters.').waitFor();

  await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
  await page.getByLabel('Repeat password').fill(PASSWORD + 'x');
  await page.getByRole('button', { name: 'Register' }).click();
  await page.getByTestId('form-summary').getByText("The two password fields didn't match.").waitFor();

  await page.getByLabel('Username').fill(U);
  await page.getByLabel('Repeat password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Register' }).click();
  await page.getByTestId('field-error-username').getByText('A user with that username already exists.').waitFor();

  await open(page, '/login');
  await page.getByLabel('Username').fill(U);
  await page.getByLabel('Password', { exact: true }).fill('wrong-password-1');
  await page.getByRole('button', { name: 'Log in' }).click();
  await page.getByTestId('form-summary').getByText('Unable to log in with provided credentials.').waitFor();
  assert.match(page.url(), /#\/login/);
});

scenario('E3 Admin creates a project', env, async (page) => {
  await guiLogin(page, 'admin', ADMIN_PASSWORD);
  await page.getByRole('button', { name: 'Create project' }).click();
  const d = dialog(page);
  await d.getByLabel('Title').fill(TITLE);
  await d.getByLabel('Members').selectOption([{ label: 'admin' }, { label: U }]);
  await d.getByRole('button', { name: 'Create' }).click();
  await d.waitFor({ state: 'detached' });
  await page.getByRole('cell', { name: TITLE, exact: true }).waitFor();
  const opt = page.getByTestId('nav-project-select').locator('option', { hasText: TITLE });
  await opt.waitFor({ state: 'attached' });
  pid = Number((await opt.getAttribute('value')));
  assert.ok(pid > 0);

  // the member sees it, without create/edit/delete controls
  const ctx2 = await browser.browser.newContext({ baseURL: server.url });
  try {
    const p2 = await ctx2.newPage();
    await guiLogin(p2, U, PASSWORD);
    await p2.getByRole('cell', { name: TITLE, exact: true }).waitFor();
    assert.equal(await p2.getByRole('button', { name: 'Create project' }).count(), 0);
    assert.equal(await p2.getByRole('button', { name: /^Actions for/ }).count(), 0);
  } finally { await ctx2.close(); }

  // a third user sees an empty list
  const reg = await api(server, 'POST', 'rest-auth/registration/', { username: V, password1: PASSWORD, password2: PASSWORD });
  assert.equal(reg.status, 201);
  const ctx3 = await browser.browser.newContext({ baseURL: server.url });
  try {
    const p3 = await ctx3.newPage();
    await guiLogin(p3, V, PASSWORD);
    await p3.getByText('Nothing here yet.').waitFor();
  } finally { await ctx3.close(); }
});

scenario('E4 Import a CSV and watch the task', env, async (page) => {
  assert.ok(pid, 'needs E3');
  await guiLogin(page, U, PASSWORD);
  await selectProject(page, pid);
  await navTo(page, 'Tools', 'Dataset import');
  await page.getByRole('heading', { name: 'Dataset import' }).waitFor();
  await page.getByRole('button', { name: 'Create', exact: true }).first().click();
  const d = dialog(page);
  await d.getByLabel('Description').fill(`import ${RUN}`);
  await d.getByLabel('Index name').fill(INDEX);
  await d.getByLabel('File').setInputFiles({ name: 'e2e.csv', mimeType: 'text/csv', buffer: Buffer.from(CSV) });
  // hold the upload answer a moment so the upload bar can be seen
  await page.route('**/dataset_imports/', async (route) => {
    if (route.request().method() === 'POST') await new Promise((r) => setTimeout(r, 1000));
    await route.continue();
  });
  await d.getByRole('button', { name: 'Import' }).click();
  await d.getByRole('progressbar', { name: 'Upload progress' }).waitFor();
  await d.waitFor({ state: 'detached' });
  await page.unroute('**/dataset_imports/');
  const row = rowByText(page, INDEX);
  await row.waitFor();
  assert.equal(await waitTask(row), 'completed');
  await row.getByText('100 %').waitFor();
  assert.equal((await row.locator('td[data-col=docs]').innerText()).trim(), '4 / 4');
  await page.getByTestId('toast').filter({ hasText: `Index ${INDEX} is ready` }).waitFor();
  await page.getByRole('link', { name: 'Projects', exact: true }).click();
  const prow = page.getByTestId(`row-${pid}`);
  await prow.waitFor();
  await page.waitForFunction((id) => {
    const c = document.querySelector(`[data-testid="row-${id}"] td[data-col=indices]`);
    return c && c.textContent.trim().startsWith('1');
  }, pid);
});

scenario('E5 Index-name error', env, async (page) => {
  await guiLogin(page, U, PASSWORD, `/p/${pid}/tools/dataset-import`);
  await page.getByRole('heading', { name: 'Dataset import' }).waitFor();
  await page.getByTestId('table-count').getByText('1 item').waitFor();
  await page.getByRole('button', { name: 'Create', exact: true }).first().click();
  const d = dialog(page);
  await d.getByLabel('Description').fill('bad index');
  await d.getByLabel('Index name').fill('UPPERCASE_INDEX');
  await d.getByLabel('File').setInputFiles({ name: 'e2e.csv', mimeType: 'text/csv', buffer: Buffer.from(CSV) });
  await d.getByRole('button', { name: 'Import' }).click();
  await d.getByTestId('field-error-index').getByText('Uppercase characters are not allowed!').waitFor();
  assert.ok(await d.isVisible());
  await d.getByRole('button', { name: 'Cancel' }).click();
  await d.waitFor({ state: 'detached' });
  await page.getByTestId('table-count').getByText('1 item').waitFor();
});

async function createRegexTagger(page, description, lexicon) {
  await page.getByRole('button', { name: 'Create', exact: true }).first().click();
  const d = dialog(page);
  await d.getByLabel('Description').fill(description);
  await d.getByLabel('Lexicon', { exact: true }).fill(lexicon.join('\n'));
  await d.getByRole('button', { name: 'Create' }).click();
  await d.waitFor({ state: 'detached' });
  await page.getByRole('cell', { name: description, exact: true }).waitFor();
}

async function tagText(d, text) {
  await d.getByLabel('Text', { exact: true }).fill(text);
  await d.getByRole('button', { name: 'Tag', exact: true }).click();
}

scenario('E6 Regex tagger, tag a text', env, async (page) => {
  await guiLogin(page, U, PASSWORD);
  await selectProject(page, pid);
  await navTo(page, 'Models', 'Regex taggers');
  await page.getByRole('heading', { name: 'Regex taggers' }).waitFor();
  await createRegexTagger(page, 'politsei', ['varas', 'röövel', 'vägivald', 'pettus']);
  await rowMenu(page, 'politsei', 'Tag text');
  const d = dialog(page);
  const result = d.getByRole('region', { name: 'Result' });
  await tagText(d, 'Eile kell 10 õhtul sisenes varas keemiatehasesse.');
  await result.locator('.chip', { hasText: 'politsei' }).first().waitFor();
  let marks = result.getByTestId('highlight').locator('mark');
  await marks.first().waitFor();
  assert.equal(await marks.count(), 1);
  assert.equal(await marks.first().innerText(), 'varas');
  await tagText(d, '🚓 Täna tabati varas.');
  await result.getByTestId('highlight').locator('.hl-text', { hasText: '🚓' }).waitFor();
  marks = result.getByTestId('highlight').locator('mark');
  assert.equal(await marks.count(), 1);
  assert.equal(await marks.first().innerText(), 'varas');
  await tagText(d, 'Ilus päev.');
  await result.getByText('No matches found').waitFor();
});

scenario('E7 Regex tagger group: tag and apply', env, async (page) => {
  await guiLogin(page, U, PASSWORD, `/p/${pid}/models/regex-taggers`);
  await page.getByRole('heading', { name: 'Regex taggers' }).waitFor();
  await createRegexTagger(page, 'tuletõrje', ['põleng']);
  await navTo(page, 'Models', 'Regex tagger groups');
  await page.getByRole('heading', { name: 'Regex tagger groups' }).waitFor();
  await page.getByRole('button', { name: 'Create', exact: true }).first().click();
  const d = dialog(page);
  await d.getByLabel('Description').fill('Hädaabi');
  await d.getByLabel('Regex taggers').selectOption([{ label: 'politsei' }, { label: 'tuletõrje' }]);
  await d.getByRole('button', { name: 'Create' }).click();
  await d.waitFor({ state: 'detached' });
  const row = rowByText(page, 'Hädaabi');
  await row.locator('td[data-col=members] .chip', { hasText: 'politsei' }).waitFor();
  await row.locator('td[data-col=members] .chip', { hasText: 'tuletõrje' }).waitFor();
  assert.equal(await row.getByTestId('task-status').getAttribute('data-status'), 'none');
  await row.getByText('Not applied').waitFor();

  await rowMenu(page, 'Hädaabi', 'Tag text');
  const t = dialog(page);
  await tagText(t, 'Öösel tabati varas ja linnas oli põleng.');
  const hl = t.getByRole('region', { name: 'Result' }).getByTestId('highlight');
  await hl.locator('mark').nth(1).waitFor();
  assert.equal(await hl.locator('mark').count(), 2);
  assert.equal(await hl.locator('.legend .chip').count(), 2);
  await t.getByRole('button', { name: 'Cancel' }).click();
  await t.waitFor({ state: 'detached' });

  await rowMenu(page, 'Hädaabi', 'Apply to index');
  const a = dialog(page);
  await a.getByLabel('Fields').selectOption('text');
  await a.getByRole('button', { name: 'Apply' }).click();
  await a.waitFor({ state: 'detached' });
  assert.equal(await waitTask(row), 'completed');
});

scenario('E8 Search with highlighted facts', env, async (page) => {
  await guiLogin(page, U, PASSWORD);
  await selectProject(page, pid);
  await page.getByRole('link', { name: 'Search', exact: true }).click();
  await page.getByRole('heading', { name: 'Search', exact: true }).waitFor();
  await page.getByTestId('result-count').getByText('4 documents').waitFor();
  await page.getByLabel('Search text').fill('varas');
  await page.getByLabel('Search text').press('Enter');
  await page.getByTestId('result-count').getByText('1 document', { exact: true }).waitFor();
  const cell = page.locator('td[data-col=text]').first();
  await cell.locator('mark', { hasText: 'Varas' }).first().waitFor();
  await page.locator('td[data-col=facts] .chip', { hasText: 'Hädaabi: politsei' }).first().waitFor();
  const title = await cell.locator('mark', { hasText: 'Varas' }).first().getAttribute('title');
  assert.match(title, /Hädaabi/);
  await page.getByLabel('Search text').fill('');
  await page.getByLabel('Search text').press('Enter');
  await page.getByTestId('result-count').getByText('4 documents').waitFor();
});

scenario('E9 Save and reload a search', env, async (page, t) => {
  const key = await apiLogin(server, U, PASSWORD);
  const probe = await api(server, 'GET', `projects/${pid}/searches/`, undefined, key);
  if (probe.status === 404) {
    t.skip('GET /projects/{pid}/searches/ answers 404: saved searches are not served yet (gui.md §11)');
    return;
  }
  await guiLogin(page, U, PASSWORD, `/p/${pid}/search`);
  await page.getByTestId('result-count').waitFor();
  await page.getByLabel('Search text').fill('varas');
  await page.getByLabel('Search text').press('Enter');
  await page.getByTestId('result-count').getByText('1 document', { exact: true }).waitFor();
  await page.getByRole('button', { name: 'Save search' }).click();
  const d = dialog(page);
  await d.getByLabel('Description').fill('varas otsing');
  await d.getByRole('button', { name: 'Save' }).click();
  await d.waitFor({ state: 'detached' });
  await page.getByRole('button', { name: 'varas otsing', exact: true }).waitFor();
  await page.reload();
  await page.getByRole('button', { name: 'varas otsing', exact: true }).click();
  assert.equal(await page.getByLabel('Search text').inputValue(), 'varas');
  await page.getByTestId('result-count').getByText('1 document', { exact: true }).waitFor();
  await page.getByRole('button', { name: 'Delete varas otsing' }).click();
  await dialog(page).getByRole('button', { name: 'Delete' }).click();
  await page.getByText('No saved searches.').waitFor();
});

scenario('E13 Anonymizer', env, async (page) => {
  await guiLogin(page, U, PASSWORD);
  await selectProject(page, pid);
  await navTo(page, 'Tools', 'Anonymizers');
  await page.getByRole('heading', { name: 'Anonymizers' }).waitFor();
  await page.getByRole('button', { name: 'Create', exact: true }).first().click();
  const c = dialog(page);
  await c.getByLabel('Description').fill('E2E anon');
  await c.getByRole('button', { name: 'Create' }).click();
  await c.waitFor({ state: 'detached' });
  await rowMenu(page, 'E2E anon', 'Anonymize text');
  const d = dialog(page);
  await d.getByLabel('Text', { exact: true }).fill('Adolf Hitler oli diktaator. Hitler suri 1945.');
  await d.getByLabel('Names').fill('Hitler, Adolf');
  await d.getByRole('button', { name: 'Anonymize' }).click();
  const out = d.getByLabel('Output');
  await out.waitFor();
  const text = await out.inputValue();
  assert.ok(text.length > 0);
  assert.ok(!text.includes('Hitler'), `output still has the name: ${text}`);
  await d.getByLabel('Names').fill('Hitler Adolf');
  await d.getByRole('button', { name: 'Anonymize' }).click();
  const err = d.getByTestId('field-error-names');
  await err.waitFor();
  assert.match(await err.innerText(), /^Value 'Hitler Adolf' should be in format/);
});

scenario('E14 Language processing', env, async (page) => {
  await guiLogin(page, U, PASSWORD);
  await selectProject(page, pid);
  await navTo(page, 'Tools', 'Language processing (MLP)');
  await page.getByRole('heading', { name: 'Language processing' }).waitFor();
  await page.getByLabel('Text', { exact: true }).fill('Tere maailm! Kuidas läheb?');
  await page.getByRole('button', { name: 'Process' }).click();
  const health = await api(server, 'GET', '/health/');
  if (!health.body.mlp.alive) {
    // a clone without language data: the refusal is shown, naming what is missing
    const summary = page.getByTestId('form-summary');
    await summary.waitFor({ timeout: 60000 });
    assert.match(await summary.innerText(), /^language data missing for language detection: .*scripts\/setup\.sh/);
    return;
  }
  await page.getByTestId('mlp-lang').waitFor({ timeout: 60000 });
  assert.equal(await page.getByTestId('mlp-lang').innerText(), 'et');
  const tokenRow = page.locator('table.tokens tr', { has: page.getByRole('rowheader', { name: 'Token' }) });
  const lemmaRow = page.locator('table.tokens tr', { has: page.getByRole('rowheader', { name: 'Lemma' }) });
  const nTok = await tokenRow.locator('td').count();
  assert.ok(nTok > 0);
  assert.equal(await lemmaRow.locator('td').count(), nTok);
});

scenario('E15 Delete and bulk delete', env, async (page) => {
  const key = await apiLogin(server, U, PASSWORD);
  for (const n of ['del_a', 'del_b', 'del_c']) {
    const r = await api(server, 'POST', `projects/${pid}/regex_taggers/`, { description: `${n}_${RUN}`, lexicon: [n] }, key);
    assert.equal(r.status, 201, JSON.stringify(r.body));
  }
  await guiLogin(page, U, PASSWORD, `/p/${pid}/models/regex-taggers`);
  await page.getByRole('cell', { name: `del_c_${RUN}`, exact: true }).waitFor();
  const countOf = async () => Number((await page.getByTestId('table-count').innerText()).split(' ')[0]);
  const before = await countOf();
  await rowMenu(page, `del_a_${RUN}`, 'Delete');
  await dialog(page).getByRole('button', { name: 'Delete' }).click();
  await page.getByRole('cell', { name: `del_a_${RUN}`, exact: true }).waitFor({ state: 'detached' });
  await page.getByTestId('toast').filter({ hasText: `del_a_${RUN}` }).waitFor();
  await page.getByTestId('table-count').getByText(`${before - 1} item`).waitFor();
  await page.getByLabel(`Select del_b_${RUN}`).check();
  await page.getByLabel(`Select del_c_${RUN}`).check();
  await page.getByRole('button', { name: /^Delete selected/ }).click();
  await dialog(page).getByText('Delete 2 items?').waitFor();
  await dialog(page).getByRole('button', { name: 'Delete' }).click();
  await page.getByTestId('toast').filter({ hasText: 'Deleted 2 items.' }).waitFor();
  await page.getByTestId('table-count').getByText(`${before - 3} item`).waitFor();
});

scenario('E16 Session end and accessibility smoke', env, async (page) => {
  // axe on the login page (no token)
  await open(page, '/login');
  await page.getByRole('heading', { name: 'Log in' }).waitFor();
  let bad = await axeSerious(page);
  assert.deepEqual(bad, [], `login: ${JSON.stringify(bad, null, 1)}`);

  // keyboard-only login
  await page.locator('body').focus();
  for (let i = 0; i < 15; i++) {
    await page.keyboard.press('Tab');
    if (await page.evaluate(() => document.activeElement && document.activeElement.name === 'username')) break;
  }
  assert.equal(await page.evaluate(() => document.activeElement.name), 'username');
  await page.keyboard.type(U);
  await page.keyboard.press('Tab');
  await page.keyboard.type(PASSWORD);
  await page.keyboard.press('Enter');
  await page.getByTestId('user-menu').waitFor();

  await page.getByRole('heading', { name: 'Projects' }).waitFor();
  await page.getByTestId(`row-${pid}`).waitFor();
  bad = await axeSerious(page);
  assert.deepEqual(bad, [], `projects: ${JSON.stringify(bad, null, 1)}`);

  await open(page, `/p/${pid}/search`);
  await page.getByTestId('result-count').waitFor();
  bad = await axeSerious(page);
  assert.deepEqual(bad, [], `search: ${JSON.stringify(bad, null, 1)}`);

  await open(page, `/p/${pid}/models/regex-taggers`);
  await page.getByRole('cell', { name: 'politsei', exact: true }).waitFor();
  bad = await axeSerious(page);
  assert.deepEqual(bad, [], `regex taggers: ${JSON.stringify(bad, null, 1)}`);

  // end the token through the API, then click
  const key = await page.evaluate(() => localStorage.getItem('ta.token'));
  const r = await api(server, 'POST', 'rest-auth/logout/', undefined, key);
  assert.equal(r.status, 200);
  await page.getByLabel('Filter by description').fill('pol');
  await page.getByText('Your session has ended. Please log in again.').waitFor();
  assert.match(page.url(), /#\/login\?next=/);
  await page.getByLabel('Username').fill(U);
  await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
  await page.getByRole('button', { name: 'Log in' }).click();
  await page.getByRole('heading', { name: 'Regex taggers' }).waitFor();
  assert.match(page.url(), /\/p\/\d+\/models\/regex-taggers/);
});
