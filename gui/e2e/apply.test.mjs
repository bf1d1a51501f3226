// E2E scenarios for applying models to an index and looking at the result (collection.md §1.1,
// §2; gui.md §5.2): a JSONL import, a regex tagger applied from its row, the Search page's
// aggregation bars filtering the results, and language processing over an index (skipped,
// with the reason, while /mlp_index/ answers 404). Runs against its own fresh `ta serve`.
import { before, after } from 'node:test';
import assert from 'node:assert/strict';
import {
  startServer, launchBrowser, scenario, guiLogin, waitTask, navTo, api, apiLogin, axeSerious, ADMIN_PASSWORD, RUN,
  dialog, rowByText, rowMenu,
} from './harness.mjs';

let server;
let browser;
let key;
let pid;
const env = () => ({ server, browser });
const INDEX = `e2a_${RUN}`;
const JSONL = [
  { text: 'Varas murdis öösel kauplusesse ja varastas raha.', label: 'krimi', date: '2024-01-15' },
  { text: 'Tallinnas puhkes suur põleng, tuletõrje kustutas selle kiiresti.', label: 'tulekahju', date: '2024-02-03' },
  { text: 'Eile kell 10 õhtul sisenes röövel keemiatehasesse.', label: 'krimi', date: '2024-02-20' },
  { text: 'Ilus päikseline ilm jätkub kogu nädala.', label: 'ilm', date: '2024-04-01' },
].map((d) => JSON.stringify(d)).join('\n') + '\n';

before(async () => {
  server = await startServer();
  browser = await launchBrowser();
  key = await apiLogin(server, 'admin', ADMIN_PASSWORD);
  const me = await api(server, 'GET', 'rest-auth/user/', undefined, key);
  const p = await api(server, 'POST', 'projects/', { title: `Apply ${RUN}`, users: [`/api/v1/users/${me.body.id}/`] }, key);
  assert.equal(p.status, 201, JSON.stringify(p.body));
  pid = p.body.id;
});
after(async () => {
  if (browser) await browser.close();
  if (server) await server.stop();
});

const count = (page, text) => page.getByTestId('result-count').getByText(text, { exact: true }).waitFor();

scenario('A1 Apply a regex tagger to an index, then filter Search by its bars', env, async (page) => {
  await guiLogin(page, 'admin', ADMIN_PASSWORD, `/p/${pid}/tools/dataset-import`);
  await page.getByRole('heading', { name: 'Dataset import' }).waitFor();
  await page.getByRole('button', { name: 'Create', exact: true }).first().click();
  let d = dialog(page);
  await d.getByLabel('Description').fill('news jsonl');
  await d.getByLabel('Index name').fill(INDEX);
  await d.getByLabel('File').setInputFiles({ name: 'news.jsonl', mimeType: 'application/x-ndjson', buffer: Buffer.from(JSONL) });
  await d.getByRole('button', { name: 'Import' }).click();
  await d.waitFor({ state: 'detached' });
  assert.equal(await waitTask(rowByText(page, INDEX)), 'completed');

  await navTo(page, 'Models', 'Regex taggers');
  await page.getByRole('button', { name: 'Create', exact: true }).first().click();
  d = dialog(page);
  await d.getByLabel('Description').fill('politsei');
  await d.getByLabel('Lexicon', { exact: true }).fill('varas\nröövel');
  await d.getByRole('button', { name: 'Create' }).click();
  await d.waitFor({ state: 'detached' });
  const row = rowByText(page, 'politsei');
  await row.getByText('Not applied').waitFor();

  await rowMenu(page, 'politsei', 'Apply to index');
  d = dialog(page);
  assert.equal(await d.getByLabel('Description').inputValue(), 'apply politsei');
  assert.equal(await d.getByLabel('New fact name').getAttribute('required'), null);
  await d.getByLabel('Indices').selectOption(INDEX);
  await d.getByLabel('Fields').selectOption('text');
  // a query the store refuses is answered at once and shown in the dialog
  await d.getByLabel('Query').fill('{"query": {"nope": {}}}');
  await d.getByRole('button', { name: 'Apply' }).click();
  await d.getByTestId('form-summary').getByText('unsupported query clause: nope').waitFor();
  await d.getByLabel('Query').fill('{"query": {"match_all": {}}}');
  await d.getByRole('button', { name: 'Apply' }).click();
  await d.waitFor({ state: 'detached' });
  await page.getByTestId('toast').filter({ hasText: /^Started process of applying RegexTagger with id: \d+/ }).waitFor();
  assert.equal(await waitTask(row), 'completed');
  await row.getByText('100 %').waitFor();

  await row.getByRole('link', { name: 'See facts in Search' }).click();
  await count(page, '4 documents');
  const facts = page.getByTestId('agg-facts');
  await facts.getByRole('button', { name: 'Filter by fact politsei 2 documents' }).waitFor();
  await facts.getByRole('button', { name: 'Filter by politsei: varas 1 document' }).waitFor();
  await facts.getByRole('button', { name: 'Filter by politsei: röövel 1 document' }).click();
  await count(page, '1 document');
  await page.locator('td[data-col=text]', { hasText: 'röövel' }).waitFor();
  await page.getByRole('group', { name: 'Filters' }).getByText('politsei: röövel').waitFor();
  await page.getByRole('button', { name: 'Remove filter politsei: röövel' }).click();
  await count(page, '4 documents');

  // a month of the date histogram, then a term of the label field
  await page.getByTestId('agg-dates').getByRole('button', { name: 'Filter by date: 2024-02 2 documents' }).click();
  await count(page, '2 documents');
  await page.getByRole('button', { name: 'Remove filter date: 2024-02' }).click();
  await count(page, '4 documents');
  await page.getByLabel('Terms of field').selectOption('label');
  await page.getByTestId('agg-terms').getByRole('button', { name: 'Filter by label = krimi 2 documents' }).click();
  await count(page, '2 documents');
  const bad = await axeSerious(page);
  assert.deepEqual(bad, [], `search with bars and filters: ${JSON.stringify(bad, null, 1)}`);
  // the bars follow the filtered search: only krimi documents are counted now
  await page.getByTestId('agg-terms').getByRole('button', { name: /^Filter by label = tulekahju/ }).waitFor({ state: 'detached' });
  await facts.getByRole('button', { name: 'Filter by fact politsei 2 documents' }).click();
  await count(page, '2 documents');
  await page.getByLabel('Search text').fill('röövel');
  await page.getByLabel('Search text').press('Enter');
  await count(page, '1 document');
});

scenario('A2 Language processing over an index, retry', env, async (page, t) => {
  const probe = await api(server, 'GET', `projects/${pid}/mlp_index/`, undefined, key);
  if (probe.status === 404) {
    t.skip('GET /api/v1/projects/{pid}/mlp_index/ answers 404: not served by this ta yet');
    return;
  }
  await guiLogin(page, 'admin', ADMIN_PASSWORD, `/p/${pid}/search`);
  await navTo(page, 'Tools', 'MLP on indices');
  await page.getByRole('heading', { name: 'Language processing of indices' }).waitFor();
  await page.getByRole('button', { name: 'Create', exact: true }).first().click();
  const d = dialog(page);
  await d.getByLabel('Description').fill('lemmas');
  await d.getByLabel('Fields').selectOption('text');
  await d.getByLabel('Analyzers').locator('option', { hasText: 'lemmas' }).waitFor({ state: 'attached' });
  await d.getByLabel('Analyzers').selectOption('lemmas');
  await d.getByRole('button', { name: 'Create' }).click();
  const health = await api(server, 'GET', '/health/');
  if (!health.body.mlp.alive) {
    // a build without language data: the refusal (503) is shown in the dialog, naming what is missing
    await d.getByTestId('form-summary').getByText(/^language data missing for /).waitFor();
    return;
  }
  await d.waitFor({ state: 'detached' });
  const row = rowByText(page, 'lemmas');
  await row.locator('td[data-col=analyzers]', { hasText: 'lemmas' }).waitFor();
  assert.ok(['completed', 'failed'].includes(await waitTask(row)));
  const bad = await axeSerious(page);
  assert.deepEqual(bad, [], `MLP on indices: ${JSON.stringify(bad, null, 1)}`);
  await rowMenu(page, 'lemmas', 'Retry');
  await dialog(page).getByRole('button', { name: 'Retry' }).click();
  await page.getByTestId('toast').filter({ hasText: /^Started retrying MLP worker with id: \d+/ }).waitFor();
  assert.ok(['completed', 'failed'].includes(await waitTask(row)));
});
