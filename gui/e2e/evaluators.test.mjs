// E2E scenario for evaluators (collection.md §6): documents with a true and a predicted fact
// put through the API, an evaluator created in the dialog (facts and values chosen from the
// project's facts), its run waited for, then its results: the scores, the confusion matrix
// as a heat-map grid with class labels, the per-class table reordered, the misclassified
// documents. Runs against its own fresh `ta serve`.
import { before, after } from 'node:test';
import assert from 'node:assert/strict';
import {
  startServer, launchBrowser, scenario, guiLogin, waitTask, navTo, api, apiLogin, axeSerious, ADMIN_PASSWORD, RUN,
} from './harness.mjs';

let server;
let browser;
let key;
let pid;
const env = () => ({ server, browser });
const INDEX = `e2ev_${RUN}`;
// (true values, predicted values): classes a, b, c, d.
const LABELS = [[['a', 'b'], ['a']], [['b'], ['b', 'c']], [['c'], ['c']], [[], ['a', 'd']], [['a', 'c'], ['a', 'c']], [[], []]];
const fact = (name) => (v) => ({ fact: name, str_val: v, doc_path: 'text', spans: '[[0, 0]]' });

before(async () => {
  server = await startServer();
  browser = await launchBrowser();
  key = await apiLogin(server, 'admin', ADMIN_PASSWORD);
  const me = await api(server, 'GET', 'rest-auth/user/', undefined, key);
  const p = await api(server, 'POST', 'projects/', { title: `Evaluate ${RUN}`, users: [`/api/v1/users/${me.body.id}/`] }, key);
  assert.equal(p.status, 201, JSON.stringify(p.body));
  pid = p.body.id;
  const documents = LABELS.map(([gold, pred], i) => ({
    _index: INDEX, _id: `d${i}`, _source: { text: `text ${i}`, texta_facts: [...gold.map(fact('GOLD')), ...pred.map(fact('PRED'))] },
  }));
  const put = await api(server, 'POST', `projects/${pid}/elastic/documents/`, { documents }, key);
  assert.equal(put.status, 200, JSON.stringify(put.body));
});
after(async () => {
  if (browser) await browser.close();
  if (server) await server.stop();
});

const dialog = (page) => page.getByRole('dialog');
const rowByText = (page, text) => page.locator('tbody tr', { has: page.getByRole('cell', { name: text, exact: true }) });

scenario('EV1 Create an evaluator, wait for its run, see its scores and confusion matrix', env, async (page) => {
  await guiLogin(page, 'admin', ADMIN_PASSWORD, `/p/${pid}/search`);
  await navTo(page, 'Tools', 'Evaluators');
  await page.getByRole('heading', { name: 'Evaluators' }).waitFor();
  await page.getByRole('button', { name: 'Create', exact: true }).first().click();
  let d = dialog(page);
  await d.getByLabel('Description').fill('gold vs pred');
  await d.getByLabel('True fact', { exact: true }).locator('option', { hasText: 'GOLD' }).waitFor({ state: 'attached' });
  await d.getByLabel('True fact', { exact: true }).selectOption('GOLD');
  await d.getByLabel('Predicted fact', { exact: true }).selectOption('PRED');
  // the values offered are those of the chosen fact
  await d.getByLabel('Predicted fact value').locator('option', { hasText: 'd' }).waitFor({ state: 'attached' });
  await d.getByLabel('Average function').locator('option', { hasText: 'samples' }).waitFor({ state: 'attached' });
  assert.equal(await d.getByLabel('Average function').inputValue(), 'macro');
  // binary averaging without values: the server's message in the form
  await d.getByLabel('Average function').selectOption('binary');
  await d.getByRole('button', { name: 'Create' }).click();
  await d.getByTestId('form-summary').getByText(/^Average function 'binary' can only be used for binary evaluation/).waitFor();
  await d.getByLabel('Average function').selectOption('macro');
  await d.getByRole('button', { name: 'Create' }).click();
  await d.waitFor({ state: 'detached' });
  const row = rowByText(page, 'gold vs pred');
  assert.equal(await waitTask(row), 'completed');
  await row.getByRole('cell', { name: '0.57', exact: true }).waitFor();

  await page.getByRole('button', { name: 'Actions for gold vs pred', exact: true }).click();
  await page.getByRole('button', { name: 'Results', exact: true }).click();
  d = dialog(page);
  await d.getByTestId('score-f1').getByText('0.57').waitFor();
  assert.equal(await d.getByTestId('score-accuracy').textContent(), '0.50');
  assert.equal(await d.getByTestId('score-documents').textContent(), '6');
  const matrix = d.getByTestId('confusion-matrix');
  await matrix.getByRole('columnheader', { name: 'd', exact: true }).waitFor();
  const grid = await matrix.locator('tbody tr').evaluateAll((rows) => rows.map((r) => [...r.children].map((c) => c.textContent)));
  assert.deepEqual(grid, [['a', '4', '0', '0', '0'], ['b', '0', '1', '0', '0'], ['c', '0', '0', '1', '0'], ['d', '0', '0', '0', '0']]);
  assert.equal(await matrix.locator('td').first().getAttribute('title'), 'true a, predicted a: 4');
  const classes = d.getByTestId('class-results');
  const labels = () => classes.locator('tbody tr td:first-child').allTextContents();
  assert.deepEqual(await labels(), ['a', 'b', 'c', 'd']);
  await classes.getByRole('button', { name: 'Count' }).click();
  assert.deepEqual(await labels(), ['a', 'c', 'b', 'd']);
  await d.getByTestId('misclassified-total').getByText('(3)').waitFor();
  await d.getByLabel('Only label').selectOption('c');
  await d.getByTestId('misclassified-total').getByText('(1)').waitFor();
  const bad = await axeSerious(page);
  assert.deepEqual(bad, [], `evaluator results: ${JSON.stringify(bad, null, 1)}`);
});
