// Evaluators (collection.md §6): the table with scores and task cells; a create dialog whose
// true and predicted facts and values come from the project's facts and whose average
// functions come from the collection's OPTIONS choices; per evaluator its results (scores,
// the confusion matrix as a heat-map grid with class labels, the per-class table ordered by
// any column, the misclassified documents) and Re-evaluate.
import { html, useState } from '../preact.js';
import { get, post } from '../api.js';
import { toast } from '../state.js';
import { ResourcePage } from '../components/resourcepage.js';
import { ConfirmDialog, Dialog } from '../components/dialog.js';
import { useAsync, useChoices } from '../components/hooks.js';
import { indicesField, queryField, score, taskColumns } from './models-common.js';
import {
  parseMatrix, matrixLabels, heatRows, cellColours, classRows, sortRows, factOptions, valueOptions,
} from '../evaluation.js';

const done = (r) => !!r.task && r.task.status === 'completed';

function Scores({ e }) {
  const items = [
    ['Precision', score(e.precision)], ['Recall', score(e.recall)], ['F1', score(e.f1_score)],
    ['Accuracy', score(e.accuracy)], ['Documents', e.document_count ?? '—'], ['Classes', e.n_total_classes ?? '—'],
  ];
  return html`<dl class="scores" data-testid="evaluator-scores">
    ${items.map(([k, v]) => html`<div key=${k}><dt>${k}</dt><dd data-testid=${'score-' + k.toLowerCase()}>${v}</dd></div>`)}
  </dl>`;
}

/** The confusion matrix as a grid: rows true, columns predicted, darker for more documents. */
function HeatMap({ matrix, labels }) {
  if (!matrix.length) return html`<p>No confusion matrix (more than 30 classes, or no run yet).</p>`;
  const rows = heatRows(matrix, labels);
  return html`<table class="heatmap" data-testid="confusion-matrix">
    <caption>Confusion matrix: rows true, columns predicted</caption>
    <thead><tr><th scope="col"><span class="visually-hidden">True \\ predicted</span></th>
      ${labels.map((l) => html`<th key=${l} scope="col">${l}</th>`)}</tr></thead>
    <tbody>${rows.map((row) => html`<tr key=${row.label}><th scope="row">${row.label}</th>
      ${row.cells.map((c) => html`<td key=${c.predicted} style=${cellColours(c.shade)}
        title=${`true ${c.truth}, predicted ${c.predicted}: ${c.count}`}>${c.count}</td>`)}</tr>`)}
    </tbody>
  </table>`;
}

const CLASS_COLUMNS = [['label', 'Class'], ['count', 'Count'], ['precision', 'Precision'], ['recall', 'Recall'],
  ['f1_score', 'F1'], ['accuracy', 'Accuracy']];

/** The per-class table; a column header orders by it (again: the other way). */
function ClassTable({ rows }) {
  const [order, setOrder] = useState({ key: 'label', desc: false });
  const sorted = sortRows(rows, order.key, order.desc);
  const by = (key) => setOrder((o) => ({ key, desc: o.key === key ? !o.desc : key !== 'label' }));
  const sortState = (key) => (order.key === key ? (order.desc ? 'descending' : 'ascending') : null);
  return html`<table data-testid="class-results">
    <thead><tr>${CLASS_COLUMNS.map(([key, label]) => html`<th key=${key} scope="col" aria-sort=${sortState(key)}>
      <button type="button" class="link" onClick=${() => by(key)}>${label}</button></th>`)}</tr></thead>
    <tbody>${sorted.map((r) => html`<tr key=${r.label}><td>${r.label}</td><td>${r.count}</td><td>${score(r.precision)}</td>
      <td>${score(r.recall)}</td><td>${score(r.f1_score)}</td><td>${score(r.accuracy)}</td></tr>`)}</tbody>
  </table>`;
}

function Misclassified({ base, labels }) {
  const [label, setLabel] = useState('');
  const found = useAsync(() => post(`${base}misclassified_documents/`, label ? { size: 50, label } : { size: 50 }), [label]);
  const docs = (found.data && found.data.documents) || [];
  return html`<section>
    <h3>Misclassified documents ${found.data ? html`<small data-testid="misclassified-total">(${found.data.total})</small>` : null}</h3>
    ${labels.length ? html`<label>Only label <select value=${label} onChange=${(e) => setLabel(e.target.value)}>
      <option value="">any</option>${labels.map((l) => html`<option key=${l} value=${l}>${l}</option>`)}</select></label>` : null}
    ${found.loading ? html`<progress aria-label="Loading"></progress>` : null}
    ${docs.length ? html`<table data-testid="misclassified"><thead><tr><th scope="col">Index</th><th scope="col">Document</th>
      <th scope="col">True</th><th scope="col">Predicted</th></tr></thead>
      <tbody>${docs.map((d) => html`<tr key=${d.index + '/' + d.id}><td>${d.index}</td><td>${d.id}</td>
        <td>${d.true.join(', ')}</td><td>${d.predicted.join(', ')}</td></tr>`)}</tbody></table>`
      : found.data ? html`<p>None.</p>` : null}
  </section>`;
}

function Results({ e, base, onClose }) {
  const multilabel = e.evaluation_type === 'multilabel';
  const classes = useAsync(() => (multilabel ? get(`${base}individual_results/`) : Promise.resolve(null)), [e.id]);
  const rows = classRows(classes.data && classes.data.filtered_results);
  const matrix = parseMatrix(e.confusion_matrix);
  const labels = matrixLabels(e, rows.map((r) => r.label), matrix.length);
  return html`<${Dialog} title=${'Results of ' + e.description} onClose=${onClose} wide=${true}
    footer=${html`<button type="button" onClick=${onClose}>Close</button>`}>
    <${Scores} e=${e} />
    <${HeatMap} matrix=${matrix} labels=${labels} />
    ${multilabel ? html`<section><h3>Classes</h3>
      ${classes.loading ? html`<progress aria-label="Loading"></progress>` : rows.length
        ? html`<${ClassTable} rows=${rows} />` : html`<p>No per-class results kept.</p>`}</section>` : null}
    <${Misclassified} base=${base} labels=${multilabel ? rows.map((r) => r.label) : []} />
  <//>`;
}

export function EvaluatorsPage({ route }) {
  const pid = route.params.pid;
  const base = `projects/${pid}/evaluators/`;
  const choices = useChoices(base);
  const facts = useAsync(() => post(`projects/${pid}/get_facts/`, { values_per_name: 1000 }), [pid]);
  const factList = facts.data || [];
  const valueField = (name, fact, label) => ({
    name, label, type: 'select', placeholder: 'None (multilabel)', options: (values) => valueOptions(factList, values[fact]),
  });
  const create = [
    { name: 'description', label: 'Description', type: 'text', required: true },
    indicesField(), queryField(),
    { name: 'true_fact', label: 'True fact', type: 'select', required: true, placeholder: 'Choose…', options: factOptions(factList) },
    valueField('true_fact_value', 'true_fact', 'True fact value'),
    { name: 'predicted_fact', label: 'Predicted fact', type: 'select', required: true, placeholder: 'Choose…', options: factOptions(factList) },
    valueField('predicted_fact_value', 'predicted_fact', 'Predicted fact value'),
    {
      name: 'average_function', label: 'Average function', type: 'select', default: 'macro',
      hint: 'binary needs both values; samples is for multilabel runs.',
      options: (choices.average_function || []).map((a) => ({ value: a, label: a })),
    },
    { name: 'add_individual_results', label: 'Keep per-class results', type: 'checkbox', default: true },
  ];
  const columns = [
    { key: 'id', label: 'ID', order: 'id' },
    { key: 'author_username', label: 'Author', order: 'author__username' },
    { key: 'description', label: 'Description', order: 'description' },
    { key: 'true_fact', label: 'True fact', render: (r) => (r.true_fact_value ? `${r.true_fact}: ${r.true_fact_value}` : r.true_fact) },
    { key: 'predicted_fact', label: 'Predicted fact', render: (r) => (r.predicted_fact_value ? `${r.predicted_fact}: ${r.predicted_fact_value}` : r.predicted_fact) },
    { key: 'evaluation_type', label: 'Type' },
    { key: 'average_function', label: 'Average' },
    { key: 'f1_score', label: 'F1', order: 'f1_score', render: (r) => score(r.f1_score) },
    { key: 'precision', label: 'Precision', order: 'precision', render: (r) => score(r.precision) },
    { key: 'recall', label: 'Recall', order: 'recall', render: (r) => score(r.recall) },
    { key: 'accuracy', label: 'Accuracy', render: (r) => score(r.accuracy) },
    ...taskColumns(),
  ];
  return html`<${ResourcePage} pid=${pid} title="Evaluators" resource="Evaluator" collection="evaluators"
    columns=${columns} createFields=${create}
    rowActions=${(r, open) => [
      ...(done(r) ? [{ label: 'Results', run: () => open('results') }] : []),
      { label: 'Re-evaluate', run: () => open('reevaluate') },
    ]}
    dialogs=${{
      results: (r, ctx) => html`<${Results} e=${r} base=${`${base}${r.id}/`} onClose=${ctx.close} />`,
      reevaluate: (r, ctx) => html`<${ConfirmDialog} title="Re-evaluate?" confirmLabel="Re-evaluate"
        message=${`Score "${r.description}" again over the documents as they are now?`}
        onConfirm=${async () => { const res = await post(`${base}${r.id}/reevaluate/`, {}); toast(res.success || 'Re-evaluation started.'); ctx.reload(); }}
        onClose=${ctx.close} />`,
    }} />`;
}
