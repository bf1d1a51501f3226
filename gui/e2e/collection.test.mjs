// E2E scenarios for the collection tools (collection.md §3, §4): a reindex of a random sample
// with a renamed field, opened in Search; the server's and the browser's refusals shown beside
// their fields; delete and bulk delete; an index split by custom quotas per label with the
// document counts of both new indices. Runs against its own fresh `ta serve`; the project and
// its labelled index are made through the API in `before`.
import { before, after } from 'node:test';
import assert from 'node:assert/strict';
import {
  startServer, launchBrowser, scenario, guiLogin, waitTask, navTo, api, apiLogin, axeSerious, projectWithIndex,
  ADMIN_PASSWORD, RUN,
  dialog, rowByText, rowMenu,
} from './harness.mjs';

let server;
let browser;
let key;
let pid;
const env = () => ({ server, browser });
const INDEX = `e2c_${RUN}`;
const LABELS = ['krimi', 'krimi', 'krimi', 'ilm', 'ilm', 'sport'];
const JSONL = LABELS.map((label, i) => JSON.stringify({
  text: `Uudis number ${i + 1} teemal ${label}.`, label,
  texta_facts: [{ fact: 'TEEMA', str_val: label, doc_path: 'label', spans: JSON.stringify([[0, label.length]]) }],
})).join('\n') + '\n';

before(async () => {
  server = await startServer();
  browser = await launchBrowser();
  key = await apiLogin(server, 'admin', ADMIN_PASSWORD);
  pid = await projectWithIndex(server, key, `Collection ${RUN}`, INDEX, { name: 'news.jsonl', type: 'application/x-ndjson', text: JSONL });
});
after(async () => {
  if (browser) await browser.close();
  if (server) await server.stop();
});

const fieldError = (d, name) => d.getByTestId(`field-error-${name}`);

scenario('C1 Reindex a sample with a renamed field, then search the new index', env, async (page) => {
  const target = `${INDEX}_sample`;
  await guiLogin(page, 'admin', ADMIN_PASSWORD, `/p/${pid}/search`);
  await navTo(page, 'Tools', 'Reindexer');
  await page.getByRole('heading', { name: 'Reindexer' }).waitFor();
  await page.getByRole('button', { name: 'Create', exact: true }).first().click();
  const d = dialog(page);
  await d.getByLabel('Description').fill('sample');
  await d.getByLabel('Source indices').selectOption(INDEX);
  await d.getByLabel('New index').fill(target);
  await d.getByLabel('Fields', { exact: true }).selectOption(['text', 'label']);
  const changes = d.getByRole('group', { name: 'Field changes' });
  await changes.getByRole('button', { name: 'Add field change' }).click();
  // the field choices are the copied fields
  assert.deepEqual(await changes.getByLabel('Field, row 1').locator('option').allTextContents(), ['Choose a field', 'label', 'text']);
  await changes.getByLabel('Field, row 1').selectOption('label');
  await changes.getByLabel('New path, row 1').fill('category');
  await changes.getByLabel('Type, row 1').selectOption('keyword');
  await d.getByLabel('Random sample size').fill('4');
  const bad = await axeSerious(page);
  assert.deepEqual(bad, [], `reindexer create dialog: ${JSON.stringify(bad, null, 1)}`);
  await d.getByRole('button', { name: 'Create' }).click();
  await d.waitFor({ state: 'detached' });

  const row = rowByText(page, 'sample');
  assert.equal(await waitTask(row), 'completed');
  await row.locator('td[data-col=new_index]', { hasText: target }).waitFor();
  // the finished row's green flash fades first: contrast is checked on the settled page
  await page.waitForFunction(() => !document.querySelector('tr.flash'));
  const axeTable = await axeSerious(page);
  assert.deepEqual(axeTable, [], `reindexer table: ${JSON.stringify(axeTable, null, 1)}`);

  await row.getByRole('link', { name: `Search ${target}` }).click();
  await page.getByRole('heading', { name: 'Search', exact: true }).waitFor();
  await page.getByTestId('result-count').getByText('4 documents', { exact: true }).waitFor();
  assert.deepEqual(await page.getByLabel('Indices').evaluate((s) => Array.from(s.selectedOptions).map((o) => o.value)), [target]);
  const heads = await page.locator('.search-results thead th').allTextContents();
  assert.deepEqual(heads.sort(), ['Facts', 'category', 'text']);
  // each copied document carries its label under the new name
  const categories = await page.locator('td[data-col=category]').allTextContents();
  assert.equal(categories.length, 4);
  for (const c of categories) assert.ok(LABELS.includes(c.trim()), c);
  await page.getByLabel('Search text').fill('krimi');
  await page.getByLabel('Search text').press('Enter');
  const krimi = (await api(server, 'POST', `projects/${pid}/search_by_query/`,
    { indices: [target], query: { query: { match: { category: 'krimi' } } } }, key)).body.count;
  await page.getByTestId('result-count').getByText(`${krimi} document${krimi === 1 ? '' : 's'}`, { exact: true }).waitFor();
});

scenario('C2 Reindexer refusals beside their fields, delete and bulk delete', env, async (page) => {
  const taken = `${INDEX}_taken`;
  const first = await api(server, 'POST', `projects/${pid}/reindexer/`, { description: 'taken', indices: [INDEX], new_index: taken }, key);
  assert.equal(first.status, 201, JSON.stringify(first.body));
  await api(server, 'POST', `projects/${pid}/reindexer/`, { description: 'second', indices: [INDEX], new_index: `${INDEX}_second` }, key);
  await guiLogin(page, 'admin', ADMIN_PASSWORD, `/p/${pid}/tools/reindexer`);
  await page.getByRole('heading', { name: 'Reindexer' }).waitFor();
  await page.getByRole('button', { name: 'Create', exact: true }).first().click();
  const d = dialog(page);
  await d.getByLabel('Description').fill('again');
  await d.getByLabel('New index').fill(taken);
  // a half-filled field change is refused in the browser, beside the rows
  const changes = d.getByRole('group', { name: 'Field changes' });
  await changes.getByRole('button', { name: 'Add field change' }).click();
  await changes.getByLabel('Field, row 1').selectOption('text');
  await d.getByRole('button', { name: 'Create' }).click();
  await fieldError(d, 'field_type').getByText('Row 1: choose a type.').waitFor();
  await changes.getByRole('button', { name: 'Remove row 1' }).click();
  // the server's: an existing new index, then an index name it refuses
  await d.getByRole('button', { name: 'Create' }).click();
  await fieldError(d, 'new_index').getByText('new_index already exists, choose a different name for your reindexed index').waitFor();
  assert.equal(await d.getByLabel('New index').getAttribute('aria-invalid'), 'true');
  await d.getByLabel('New index').fill('Upper');
  await d.getByRole('button', { name: 'Create' }).click();
  await fieldError(d, 'new_index').getByText('Uppercase characters are not allowed!').waitFor();
  const bad = await axeSerious(page);
  assert.deepEqual(bad, [], `reindexer dialog with errors: ${JSON.stringify(bad, null, 1)}`);
  await d.getByRole('button', { name: 'Cancel' }).click();
  await d.waitFor({ state: 'detached' });

  await rowMenu(page, 'taken', 'Delete');
  await dialog(page).getByText(`The index ${taken} stays.`).waitFor();
  await dialog(page).getByRole('button', { name: 'Delete' }).click();
  await rowByText(page, 'taken').waitFor({ state: 'detached' });
  await page.getByLabel('Select all rows').check();
  await page.getByRole('button', { name: /^Delete selected/ }).click();
  await dialog(page).getByRole('button', { name: 'Delete' }).click();
  await page.getByText('Nothing here yet.').waitFor();
  assert.equal((await api(server, 'GET', `projects/${pid}/reindexer/`, undefined, key)).body.count, 0);
  // the new indices stay in the project
  const indices = (await api(server, 'GET', `projects/${pid}/get_indices/`, undefined, key)).body.indices;
  assert.ok(indices.includes(taken), JSON.stringify(indices));
});

scenario('C3 Split an index by quotas per label and see both counts', env, async (page) => {
  const train = `${INDEX}_train`;
  const test = `${INDEX}_test`;
  await guiLogin(page, 'admin', ADMIN_PASSWORD, `/p/${pid}/search`);
  await navTo(page, 'Tools', 'Index splitter');
  await page.getByRole('heading', { name: 'Index splitter' }).waitFor();
  await page.getByRole('button', { name: 'Create', exact: true }).first().click();
  const d = dialog(page);
  await d.getByLabel('Description').fill('split');
  await d.getByLabel('Indices').selectOption(INDEX);
  await d.getByLabel('Train index').fill(train);
  await d.getByLabel('Test index').fill(test);
  // the distributions are the collection's OPTIONS choices
  await d.getByLabel('Distribution').locator('option', { hasText: 'custom' }).waitFor({ state: 'attached' });
  assert.deepEqual(await d.getByLabel('Distribution').locator('option').allTextContents(), ['random', 'original', 'equal', 'custom']);
  assert.equal(await d.getByLabel('Fact', { exact: true }).count(), 0);
  await d.getByLabel('Test size').fill('200');
  await d.getByRole('button', { name: 'Create' }).click();
  await fieldError(d, 'test_size').getByText('Ensure this value is less than or equal to 100.').waitFor();

  await d.getByLabel('Distribution').selectOption('custom');
  assert.equal(await d.getByLabel('Test size').count(), 0);
  await d.getByLabel('Fact', { exact: true }).locator('option', { hasText: 'TEEMA' }).waitFor({ state: 'attached' });
  await d.getByLabel('Fact', { exact: true }).selectOption('TEEMA');
  const quotas = d.getByRole('group', { name: 'Quotas' });
  await quotas.getByLabel('Label, row 1').fill('krimi');
  await quotas.getByLabel('Test documents, row 1').fill('2');
  await quotas.getByRole('button', { name: 'Add label' }).click();
  await quotas.getByLabel('Label, row 2').fill('ilm');
  await quotas.getByLabel('Test documents, row 2').fill('0');
  const bad = await axeSerious(page);
  assert.deepEqual(bad, [], `index splitter create dialog: ${JSON.stringify(bad, null, 1)}`);
  await d.getByRole('button', { name: 'Create' }).click();
  await d.waitFor({ state: 'detached' });

  const row = rowByText(page, 'split');
  assert.equal(await waitTask(row), 'completed');
  // 6 labelled documents: 2 krimi to test, the other 4 (ilm's quota is 0, sport has none) to train
  await row.locator('td[data-col=train_index]').getByTestId('doc-count').getByText('4 documents', { exact: true }).waitFor();
  await row.locator('td[data-col=test_index]').getByTestId('doc-count').getByText('2 documents', { exact: true }).waitFor();
  await row.locator('td[data-col=test_size]', { hasText: 'per quota' }).waitFor();
  await page.waitForFunction(() => !document.querySelector('tr.flash'));
  const axeTable = await axeSerious(page);
  assert.deepEqual(axeTable, [], `index splitter table: ${JSON.stringify(axeTable, null, 1)}`);

  await rowMenu(page, 'split', 'Delete');
  await dialog(page).getByText(`The indices ${train} and ${test} stay.`).waitFor();
  await dialog(page).getByRole('button', { name: 'Delete' }).click();
  await page.getByText('Nothing here yet.').waitFor();
});
