// E2E scenarios of the Topic analyzer page (collection.md §5): a clustering over a small
// two-topic corpus made from the create dialog (a bad significant-words regex shown beside its
// field first), its bars and words, a cluster opened from its bar, a document removed and found
// again by "more like this cluster", the cluster tagged and the fact seen in Search (T1); moving
// documents, deleting clusters, ignore and delete, stop words, retrain, delete (T2); a large
// cluster drawn 100 documents at a time (T3). Runs against its own fresh `ta serve`.
import assert from 'node:assert/strict';
import {
  scenario, guiLogin, waitTask, navTo, api, axeSerious, importFile, projectWorld, ADMIN_PASSWORD, RUN, TOPICS_JSONL,
} from './harness.mjs';

const INDEX = `e2t_${RUN}`;
const world = projectWorld(`Topics ${RUN}`, ({ server, key, pid }) => importFile(server, key, pid,
  { index: INDEX, name: 'topics.jsonl', type: 'application/x-ndjson', text: TOPICS_JSONL }));
const env = () => world;
/** The API as the admin: `call('GET', 'projects/1/clustering/')`. */
const call = (method, p, body) => api(world.server, method, p, body, world.key);

const dialog = (page) => page.getByRole('dialog');
const rowByText = (page, text) => page.locator('tbody tr', { has: page.getByRole('cell', { name: text, exact: true }) });
const toast = (page, text) => page.getByTestId('toast').filter({ hasText: text }).first().waitFor();

scenario('T1 Cluster a two-topic corpus, open a cluster, remove and add back a document, tag it', env, async (page) => {
  await guiLogin(page, 'admin', ADMIN_PASSWORD, `/p/${world.pid}/search`);
  await navTo(page, 'Tools', 'Topic analyzer');
  await page.getByRole('heading', { name: 'Topic analyzer' }).waitFor();
  await page.getByRole('button', { name: 'Create', exact: true }).first().click();
  const d = dialog(page);
  await d.getByLabel('Description').fill('two topics');
  await d.getByLabel('Indices').selectOption(INDEX);
  await d.getByLabel('Fields', { exact: true }).locator('option[value=text]').waitFor({ state: 'attached' });
  await d.getByLabel('Fields', { exact: true }).selectOption('text');
  // only text fields are offered
  assert.equal(await d.getByLabel('Fields', { exact: true }).locator('option[value=texta_facts]').count(), 0);
  await d.getByLabel('Clusters').fill('2');
  assert.equal(await d.getByLabel('Algorithm').inputValue(), 'kmeans');
  assert.equal(await d.getByLabel('Vectorizer').inputValue(), 'TfIdf Vectorizer');
  // the embedding and LSI topics only where they apply
  assert.equal(await d.getByLabel('Embedding').count(), 0);
  await d.getByLabel('Vectorizer').selectOption('Embedding Vectorizer');
  await d.getByLabel('Embedding').waitFor();
  await d.getByLabel('Vectorizer').selectOption('TfIdf Vectorizer');
  assert.equal(await d.getByLabel('LSI topics').count(), 0);
  await d.getByLabel('Reduce dimensions with LSI').check();
  await d.getByLabel('LSI topics').waitFor();
  await d.getByLabel('Reduce dimensions with LSI').uncheck();
  await d.getByLabel('Display fields').selectOption('title');
  await d.getByLabel('Document limit').fill('1000');
  // a bad regex is answered beside its field, and the dialog stays open
  await d.getByLabel('Significant words filter').fill('[0-9');
  await d.getByRole('button', { name: 'Create' }).click();
  await d.getByTestId('field-error-significant_words_filter').getByText('Given string is not a valid regex.').waitFor();
  assert.equal(await d.getByLabel('Significant words filter').getAttribute('aria-invalid'), 'true');
  await d.getByLabel('Significant words filter').fill('[0-9]+');
  await d.getByRole('button', { name: 'Create' }).click();
  await d.waitFor({ state: 'detached' });
  const row = rowByText(page, 'two topics');
  assert.equal(await waitTask(row), 'completed');
  await row.locator('td[data-col=vectorizer]', { hasText: 'TfIdf Vectorizer' }).waitFor();
  let bad = await axeSerious(page);
  assert.deepEqual(bad, [], `topic analyzer list: ${JSON.stringify(bad, null, 1)}`);

  // the clustering's picture: one bar per cluster, its name telling size, similarity and words
  await row.getByRole('link', { name: 'two topics' }).click();
  await page.getByRole('heading', { name: 'Clustering: two topics' }).waitFor();
  const bars = page.getByTestId('cluster-bars').getByRole('link');
  assert.equal(await bars.count(), 2);
  const names = await bars.evaluateAll((els) => els.map((e) => e.getAttribute('title')));
  // the accessible name is the bar's whole text
  await page.getByRole('link', { name: names[0], exact: true }).waitFor();
  for (const n of names) assert.match(n, /^Cluster \d+: 6 documents, similarity \d\.\d\d, words /);
  const sport = names.findIndex((n) => /football/.test(n));
  assert.ok(sport >= 0 && names.some((n) => /flour|butter|bread/.test(n)), names.join(' | '));
  assert.equal(await page.getByTestId('cluster-table').locator('tbody tr').count(), 2);
  bad = await axeSerious(page);
  assert.deepEqual(bad, [], `clustering view: ${JSON.stringify(bad, null, 1)}`);

  // open the football cluster from its bar (keyboard): display fields come first
  await bars.nth(sport).focus();
  await page.keyboard.press('Enter');
  await page.getByRole('heading', { name: /^Cluster \d+$/ }).waitFor();
  const docs = page.getByTestId('cluster-documents');
  await docs.locator('tbody tr').nth(5).waitFor();
  assert.deepEqual(await docs.locator('thead th').allInnerTexts().then((h) => h.slice(1, 4)), ['ID', 'title', 'text']);
  const first = docs.locator('tbody tr').first();
  const firstId = await first.locator('td[data-col=_id]').innerText();
  await first.getByRole('checkbox').check();
  await page.getByRole('button', { name: 'Remove selected (1)' }).click();
  await toast(page, 'Documents successfully removed from the cluster!');
  await page.getByTestId('table-count').getByText('5 documents').waitFor();
  assert.equal(await docs.getByTestId(`doc-${firstId}`).count(), 0);

  // more like this cluster finds the removed document; add it back
  await page.getByRole('button', { name: 'Find similar documents' }).click();
  const similar = page.getByTestId('similar-documents');
  await similar.getByTestId(`doc-${firstId}`).getByRole('checkbox').check();
  await page.getByRole('button', { name: 'Add selected to cluster (1)' }).click();
  await toast(page, 'Documents successfully added to the cluster!');
  await page.getByTestId('table-count').getByText('6 documents').waitFor();
  bad = await axeSerious(page);
  assert.deepEqual(bad, [], `cluster view: ${JSON.stringify(bad, null, 1)}`);

  // tag the cluster; the fact is in Search
  await page.getByRole('button', { name: 'Tag cluster' }).click();
  const td = dialog(page);
  await td.getByLabel('Fact name').fill('TOPIC');
  await td.getByLabel('Fact value').fill('sport');
  assert.equal(await td.getByLabel('Field').inputValue(), 'text');
  await td.getByRole('button', { name: 'Tag' }).click();
  await td.waitFor({ state: 'detached' });
  await toast(page, 'Successfully added fact TOPIC to the documents!');
  await docs.locator('td[data-col=texta_facts]', { hasText: 'TOPIC: sport' }).first().waitFor();
  await page.getByRole('link', { name: 'Search', exact: true }).click();
  await page.getByTestId('agg-facts').getByRole('button', { name: 'Filter by fact TOPIC 6 documents' }).waitFor();
  await page.getByTestId('agg-facts').getByRole('button', { name: 'Filter by TOPIC: sport 6 documents' }).waitFor();
});

scenario('T2 Move a document, delete clusters, ignore and delete a cluster, edit stop words, retrain, delete the clustering', env, async (page) => {
  const c = await call('POST', `projects/${world.pid}/clustering/`,
    { description: 'to delete', fields: ['text'], num_cluster: 3, indices: [{ name: INDEX }] });
  assert.equal(c.status, 201, JSON.stringify(c.body));
  await guiLogin(page, 'admin', ADMIN_PASSWORD, `/p/${world.pid}/tools/topic-analyzer`);
  const row = rowByText(page, 'to delete');
  assert.equal(await waitTask(row), 'completed');
  await row.getByRole('link', { name: 'to delete' }).click();
  const table = page.getByTestId('cluster-table');
  await table.locator('tbody tr').nth(2).waitFor();
  const ids = await table.locator('tbody tr').evaluateAll((rs) => rs.map((r) => r.dataset.testid.replace('cluster-row-', '')));
  // move a document of the first cluster to the second
  await page.getByRole('link', { name: `Cluster ${ids[0]}`, exact: true }).click();
  const docs = page.getByTestId('cluster-documents');
  await docs.locator('tbody tr').first().waitFor();
  const n = await docs.locator('tbody tr').count();
  await docs.locator('tbody tr').first().getByRole('checkbox').check();
  await page.getByRole('button', { name: 'Move selected…' }).click();
  await dialog(page).getByLabel('Cluster').selectOption(ids[1]);
  await dialog(page).getByRole('button', { name: 'Move' }).click();
  await toast(page, 'Documents successfully added to the cluster!');
  await page.getByTestId('table-count').getByText(`${n - 1} document${n === 2 ? '' : 's'}`, { exact: true }).waitFor();
  await page.getByRole('link', { name: '← Clusters of to delete' }).click();
  await page.getByTestId(`cluster-row-${ids[1]}`).waitFor();

  await page.getByRole('checkbox', { name: `Select cluster ${ids[0]}` }).check();
  await page.getByRole('button', { name: 'Delete selected clusters (1)' }).click();
  await dialog(page).getByRole('button', { name: 'Delete' }).click();
  await toast(page, `Deleted clusters withs ids ['${ids[0]}'].`);
  await table.locator('tbody tr').nth(1).waitFor();
  assert.equal(await table.locator('tbody tr').count(), 2);

  await page.getByRole('link', { name: `Cluster ${ids[1]}`, exact: true }).click();
  await page.getByRole('button', { name: 'Ignore and delete' }).click();
  await dialog(page).getByRole('button', { name: 'Ignore and delete' }).click();
  await toast(page, "Deleted cluster and added it's documents to the ignored list.");
  await page.getByRole('heading', { name: 'Clustering: to delete' }).waitFor();
  await page.getByTestId('cluster-row-' + ids[2]).waitFor();
  assert.equal(await table.locator('tbody tr').count(), 1);
  const got = await call('GET', `projects/${world.pid}/clustering/${c.body.id}/`);
  assert.ok(got.body.ignored_ids.length > 0);

  // edit the stop words, then retrain from the clustering page
  await page.getByRole('link', { name: '← Topic analyzer' }).click();
  await page.getByRole('button', { name: 'Actions for to delete' }).click();
  await page.getByRole('button', { name: 'Edit', exact: true }).click();
  await dialog(page).getByLabel('Stop words').fill('the\nmatch');
  await dialog(page).getByRole('button', { name: 'Save' }).click();
  await toast(page, 'Saved clustering to delete.');
  assert.deepEqual((await call('GET', `projects/${world.pid}/clustering/${c.body.id}/`)).body.stop_words, ['the', 'match']);
  await page.getByRole('button', { name: 'Actions for to delete' }).click();
  await page.getByRole('button', { name: 'Retrain', exact: true }).click();
  await dialog(page).getByRole('button', { name: 'Retrain' }).click();
  await toast(page, "Started re-clustering 'to delete' cluster set!");
  assert.equal(await waitTask(row), 'completed');

  await page.getByRole('button', { name: 'Actions for to delete' }).click();
  await page.getByRole('button', { name: 'Delete', exact: true }).click();
  await dialog(page).getByRole('button', { name: 'Delete' }).click();
  await toast(page, 'Deleted clustering to delete.');
  assert.equal((await call('GET', `projects/${world.pid}/clustering/${c.body.id}/`)).status, 404);
});

scenario('T3 A large cluster shows its documents 100 at a time', env, async (page) => {
  const index = `${INDEX}_big`;
  const text = Array.from({ length: 150 }, (_, i) => JSON.stringify({ text: i % 2 ? 'sunny weather report' : 'rainy storm forecast' })).join('\n') + '\n';
  await importFile(world.server, world.key, world.pid, { index, name: 'big.jsonl', type: 'application/x-ndjson', text });
  const c = await call('POST', `projects/${world.pid}/clustering/`,
    { description: 'one big', fields: ['text'], num_cluster: 1, indices: [{ name: index }], document_limit: 1000 });
  assert.equal(c.status, 201, JSON.stringify(c.body));
  await guiLogin(page, 'admin', ADMIN_PASSWORD, `/p/${world.pid}/tools/topic-analyzer`);
  assert.equal(await waitTask(rowByText(page, 'one big')), 'completed');
  await rowByText(page, 'one big').getByRole('link', { name: 'one big' }).click();
  await page.getByTestId('cluster-bars').getByRole('link', { name: /^Cluster \d+: 150 documents, / }).click();
  const rows = page.getByTestId('cluster-documents').locator('tbody tr');
  await page.getByTestId('table-count').getByText('150 documents').waitFor();
  assert.equal(await rows.count(), 100);
  await page.getByRole('button', { name: 'Show 50 more (50 not shown)' }).click();
  await rows.nth(149).waitFor();
  assert.equal(await page.getByRole('button', { name: /^Show \d+ more/ }).count(), 0);
});
