// Takes the documentation screenshots (login, projects, search, regex taggers, reindexer,
// index splitter, topic analyzer) into
// docs/screenshots/ against a fresh `ta serve` (TA_BIN) filled through the API.
// Run: node gui/e2e/screenshots.mjs
import fs from 'node:fs';
import path from 'node:path';
import {
  startServer, launchBrowser, api, apiLogin, guiLogin, open, projectWithIndex, importFile, REPO, ADMIN_PASSWORD, TOPICS_JSONL,
} from './harness.mjs';

const OUT = path.join(REPO, 'docs', 'screenshots');
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

const server = await startServer();
const browser = await launchBrowser();
try {
  fs.mkdirSync(OUT, { recursive: true });
  const key = await apiLogin(server, 'admin', ADMIN_PASSWORD);
  const pid = await projectWithIndex(server, key, 'Estonian news', 'news');
  const t1 = (await api(server, 'POST', `projects/${pid}/regex_taggers/`, { description: 'politsei', lexicon: ['varas', 'röövel', 'vägivald', 'pettus'] }, key)).body;
  const t2 = (await api(server, 'POST', `projects/${pid}/regex_taggers/`, { description: 'tuletõrje', lexicon: ['põleng', 'tulekahju'] }, key)).body;
  const g = (await api(server, 'POST', `projects/${pid}/regex_tagger_groups/`, { description: 'Hädaabi', regex_taggers: [t1.id, t2.id] }, key)).body;
  await api(server, 'POST', `projects/${pid}/regex_tagger_groups/${g.id}/apply_tagger_group/`, { description: 'apply', fields: ['text'] }, key);
  await importFile(server, key, pid, { index: 'topics', name: 'topics.jsonl', type: 'application/x-ndjson', text: TOPICS_JSONL });
  const cl = (await api(server, 'POST', `projects/${pid}/clustering/`,
    { description: 'sport and baking', indices: [{ name: 'topics' }], fields: ['text'], num_cluster: 2, display_fields: ['title'] }, key)).body;
  await sleep(3000);

  const context = await browser.browser.newContext({ baseURL: server.url, viewport: { width: 1280, height: 800 } });
  const page = await context.newPage();
  await open(page, '/login');
  await page.getByRole('heading', { name: 'Log in' }).waitFor();
  await page.screenshot({ path: path.join(OUT, 'login.png') });
  await guiLogin(page, 'admin', ADMIN_PASSWORD);
  await page.getByTestId(`row-${pid}`).waitFor();
  await page.locator('.health dl').waitFor();
  await page.screenshot({ path: path.join(OUT, 'projects.png') });
  await open(page, `/p/${pid}/search`);
  await page.getByLabel('Search text').fill('varas');
  await page.getByLabel('Search text').press('Enter');
  await page.getByTestId('result-count').getByText('1 document', { exact: true }).waitFor();
  await page.getByTestId('agg-facts').getByRole('button', { name: 'Filter by fact Hädaabi 1 document' }).waitFor();
  await sleep(300);
  await page.screenshot({ path: path.join(OUT, 'search.png') });
  await open(page, `/p/${pid}/models/regex-taggers`);
  await page.getByRole('cell', { name: 'politsei', exact: true }).waitFor();
  await page.screenshot({ path: path.join(OUT, 'regex-taggers.png') });
  await page.getByRole('button', { name: 'Actions for politsei' }).click();
  await page.getByRole('button', { name: 'Tag text', exact: true }).click();
  await page.getByRole('dialog').getByLabel('Text', { exact: true }).fill('🚓 Eile kell 10 õhtul sisenes varas keemiatehasesse.');
  await page.getByRole('dialog').getByRole('button', { name: 'Tag', exact: true }).click();
  await page.getByRole('dialog').getByTestId('highlight').waitFor();
  await sleep(300);
  await page.screenshot({ path: path.join(OUT, 'regex-tagger-tag-text.png') });
  await open(page, `/p/${pid}/models/regex-tagger-groups`);
  await page.getByRole('cell', { name: 'Hädaabi', exact: true }).waitFor();
  await page.screenshot({ path: path.join(OUT, 'regex-tagger-groups.png') });
  // after Search: their new indices join the project
  await api(server, 'POST', `projects/${pid}/reindexer/`, {
    description: 'news sample', indices: ['news'], new_index: 'news_sample', fields: ['text', 'label'], random_size: 3,
    field_type: [{ path: 'label', new_path_name: 'category', field_type: 'keyword' }],
  }, key);
  await api(server, 'POST', `projects/${pid}/index_splitter/`, { description: 'news halves', indices: [{ name: 'news' }], train_index: 'news_train', test_index: 'news_test', test_size: 50 }, key);
  await open(page, `/p/${pid}/tools/reindexer`);
  await page.getByRole('link', { name: 'Search news_sample' }).waitFor();
  for (const b of await page.getByRole('button', { name: 'Dismiss notice' }).all()) await b.click();
  await page.screenshot({ path: path.join(OUT, 'reindexer.png') });
  await open(page, `/p/${pid}/tools/index-splitter`);
  await page.getByTestId('doc-count').first().waitFor();
  for (const b of await page.getByRole('button', { name: 'Dismiss notice' }).all()) await b.click();
  await page.screenshot({ path: path.join(OUT, 'index-splitter.png') });
  await open(page, `/p/${pid}/tools/topic-analyzer/${cl.id}`);
  await page.getByTestId('cluster-bars').waitFor();
  await sleep(300);
  await page.screenshot({ path: path.join(OUT, 'topic-analyzer.png') });
  await page.getByTestId('cluster-bars').getByRole('link').first().click();
  await page.getByTestId('cluster-documents').waitFor();
  await sleep(300);
  await page.screenshot({ path: path.join(OUT, 'topic-analyzer-cluster.png') });
  await context.close();
  console.log(`screenshots in ${OUT}`);
} finally {
  await browser.close();
  await server.stop();
}
