// Torch taggers page (gui.md §5.4.4): table with scores and task cells, create dialog
// (architecture required), tag text, tag random document, epoch reports, retrain, apply to index.
import { html } from '../preact.js';
import { post } from '../api.js';
import { toast } from '../state.js';
import { ResourcePage } from '../components/resourcepage.js';
import { ConfirmDialog, Dialog } from '../components/dialog.js';
import { TagTextDialog, pct } from '../components/tagging.js';
import { useChoices } from '../components/hooks.js';
import { ApplyDialog, applyAction } from '../components/apply.js';
import { indicesField, fieldsField, queryField, embeddingField, score, taskColumns, withIndexNames } from './models-common.js';


function EpochReports({ row, onClose }) {
  const reps = row.epoch_reports || [];
  return html`<${Dialog} title=${'Epoch reports of ' + row.description} onClose=${onClose}
    footer=${html`<button type="button" onClick=${onClose}>Close</button>`}>
    ${reps.length ? html`<table data-testid="epoch-reports"><thead><tr><th scope="col">Epoch</th><th scope="col">F1</th><th scope="col">Precision</th>
      <th scope="col">Recall</th><th scope="col">Accuracy</th><th scope="col">Training loss</th></tr></thead>
      <tbody>${reps.map((e, i) => html`<tr key=${i}><td>${i + 1}</td><td>${e.f1_score}</td><td>${e.precision}</td>
        <td>${e.recall}</td><td>${e.accuracy}</td><td>${e.training_loss}</td></tr>`)}</tbody></table>`
      : html`<p>No epoch reports yet.</p>`}
  <//>`;
}

export function TorchTaggersPage({ route }) {
  const pid = route.params.pid;
  const base = `projects/${pid}/torchtaggers/`;
  const choices = useChoices(base);
  const create = [
    { name: 'description', label: 'Description', type: 'text', required: true },
    indicesField(), fieldsField(), queryField(),
    {
      name: 'model_architecture', label: 'Architecture', type: 'select', required: true, placeholder: 'Choose…',
      options: (choices.model_architecture || []).map((a) => ({ value: a, label: a })),
    },
    embeddingField(pid),
    { name: 'fact_name', label: 'Fact name', type: 'text', emptyAs: null, hint: 'Empty = binary model.' },
    { name: 'num_epochs', label: 'Epochs', type: 'integer', default: 5 },
    { name: 'maximum_sample_size', label: 'Max sample size', type: 'integer', default: 100000 },
    { name: 'minimum_sample_size', label: 'Min sample size', type: 'integer', default: 50 },
  ];
  // the browser would refuse to submit an empty required select; let the server say it
  const createSpec = create.map((f) => (f.name === 'model_architecture' ? { ...f, required: false, label: 'Architecture *' } : f));
  const columns = [
    { key: 'id', label: 'ID', order: 'id' },
    { key: 'author_username', label: 'Author', order: 'author__username' },
    { key: 'description', label: 'Description', order: 'description' },
    { key: 'fields', label: 'Fields' },
    { key: 'model_architecture', label: 'Architecture' },
    { key: 'fact_name', label: 'Fact name' },
    { key: 'f1_score', label: 'F1', order: 'f1_score', render: (r) => score(r.f1_score) },
    { key: 'precision', label: 'Precision', order: 'precision', render: (r) => score(r.precision) },
    { key: 'recall', label: 'Recall', order: 'recall', render: (r) => score(r.recall) },
    { key: 'accuracy', label: 'Accuracy', render: (r) => score(r.accuracy) },
    ...taskColumns(),
  ];
  return html`<${ResourcePage} pid=${pid} title="Torch taggers" resource="Torch tagger" collection="torchtaggers"
    columns=${columns} createFields=${createSpec} editInitial=${withIndexNames}
    rowActions=${(r, open) => [
      { label: 'Tag text', run: () => open('tag') },
      { label: 'Tag random document', run: () => open('random') },
      { label: 'Epoch reports', run: () => open('epochs') },
      { label: 'Retrain', run: () => open('retrain') },
      applyAction(open),
    ]}
    dialogs=${{
      tag: (r, ctx) => html`<${TagTextDialog} title=${'Tag text with ' + r.description} url=${`${base}${r.id}/tag_text/`}
        view=${(res) => html`<p>Result <strong>${String(res.result)}</strong>, probability <strong data-testid="probability">${pct(res.probability)}</strong></p>`}
        onClose=${ctx.close} />`,
      random: (r, ctx) => html`<${TagTextDialog} title=${'Tag a random document with ' + r.description} pid=${pid}
        url=${`${base}${r.id}/tag_random_doc/`} noText=${true} submitLabel="Tag random document"
        extraFields=${[indicesField()]} toBody=${(b) => ({ indices: b.indices || [] })}
        view=${(res) => html`<div><p>Result <strong>${String(res.prediction && res.prediction.result)}</strong>,
          probability ${pct(res.prediction && res.prediction.probability)}</p><pre>${JSON.stringify(res.document, null, 2)}</pre></div>`}
        onClose=${ctx.close} />`,
      epochs: (r, ctx) => html`<${EpochReports} row=${r} onClose=${ctx.close} />`,
      retrain: (r, ctx) => html`<${ConfirmDialog} title="Retrain torch tagger?" confirmLabel="Retrain"
        message=${`Start a new training run of "${r.description}"?`}
        onConfirm=${async () => { const res = await post(`${base}${r.id}/retrain_tagger/`, {}); toast(res.success || 'Retraining started.'); ctx.reload(); }}
        onClose=${ctx.close} />`,
      apply: (r, ctx) => html`<${ApplyDialog} collection="torchtaggers" row=${r} ctx=${ctx} />`,
    }} />`;
}
