// Taggers page (gui.md §5.4.2): table with scores and task cells, create dialog, tag text /
// document / random document, features, stop words, retrain, apply to index, plot.
import { html } from '../preact.js';
import { post } from '../api.js';
import { toast } from '../state.js';
import { ResourcePage } from '../components/resourcepage.js';
import { ConfirmDialog } from '../components/dialog.js';
import { Chip } from '../components/highlight.js';
import { TagTextDialog, pct } from '../components/tagging.js';
import { useChoices } from '../components/hooks.js';
import { ApplyDialog, applyAction } from '../components/apply.js';
import { indicesField, fieldsField, queryField, embeddingField, score, taskColumns, withIndexNames } from './models-common.js';

/** A select of the server's closed choices for `name`; the first is the default. */
export function choiceField(name, label, values) {
  return { name, label, type: 'select', default: (values || [])[0], options: (values || []).map((v) => ({ value: v, label: v })) };
}

export function TaggerResult({ res }) {
  return html`<p class="chips"><${Chip} label=${res.tag}>${res.tag}: ${res.result ? 'yes' : 'no'}<//>
    <span>Probability <strong data-testid="probability">${pct(res.probability)}</strong></span></p>`;
}

export function TaggersPage({ route }) {
  const pid = route.params.pid;
  const base = `projects/${pid}/taggers/`;
  const choices = useChoices(base);
  const create = [
    { name: 'description', label: 'Description', type: 'text', required: true, hint: 'Also the tag the model assigns.' },
    indicesField(), fieldsField(), queryField('Query (its matches are the positives)'), embeddingField(pid),
    choiceField('vectorizer', 'Vectorizer', choices.vectorizer),
    choiceField('classifier', 'Classifier', choices.classifier),
    { name: 'maximum_sample_size', label: 'Max sample size', type: 'integer', default: 10000 },
    { name: 'negative_multiplier', label: 'Negative multiplier', type: 'number', default: 1.0 },
    { name: 'score_threshold', label: 'Score threshold', type: 'number', default: 0.0 },
  ];
  const columns = [
    { key: 'id', label: 'ID', order: 'id' },
    { key: 'author_username', label: 'Author', order: 'author__username' },
    { key: 'description', label: 'Description', order: 'description' },
    { key: 'fields', label: 'Fields', order: 'fields' },
    { key: 'tagger_groups', label: 'Groups' },
    { key: 'f1_score', label: 'F1', order: 'f1_score', render: (r) => score(r.f1_score) },
    { key: 'precision', label: 'Precision', order: 'precision', render: (r) => score(r.precision) },
    { key: 'recall', label: 'Recall', order: 'recall', render: (r) => score(r.recall) },
    ...taskColumns(),
  ];
  return html`<${ResourcePage} pid=${pid} title="Taggers" resource="Tagger" collection="taggers"
    columns=${columns} createFields=${create} editInitial=${withIndexNames}
    rowActions=${(r, open) => [
      { label: 'Tag text', run: () => open('tag') },
      { label: 'Tag document', run: () => open('doc') },
      { label: 'Tag random document', run: () => open('random') },
      { label: 'Features', run: () => open('features') },
      { label: 'Stop words', run: () => open('stop') },
      { label: 'Retrain', run: () => open('retrain') },
      applyAction(open),
      ...(r.plot ? [{ label: 'Plot', run: () => window.open(r.plot, '_blank', 'noopener') }] : []),
    ]}
    dialogs=${{
      tag: (r, ctx) => html`<${TagTextDialog} title=${'Tag text with ' + r.description} url=${`${base}${r.id}/tag_text/`}
        extraFields=${[{ name: 'lemmatize', label: 'Lemmatize', type: 'checkbox', default: false }]}
        view=${(res) => html`<${TaggerResult} res=${res} />`} onClose=${ctx.close} />`,
      doc: (r, ctx) => html`<${TagTextDialog} title=${'Tag a document with ' + r.description} url=${`${base}${r.id}/tag_doc/`}
        noText=${true} initial=${{ doc: Object.fromEntries((r.fields || []).map((f) => [f, ''])) }}
        extraFields=${[{ name: 'doc', label: 'Document (JSON)', type: 'json', required: true, rows: 6 },
          { name: 'lemmatize', label: 'Lemmatize', type: 'checkbox', default: false }]}
        view=${(res) => html`<${TaggerResult} res=${res} />`} onClose=${ctx.close} />`,
      random: (r, ctx) => html`<${TagTextDialog} title=${'Tag a random document with ' + r.description} pid=${pid}
        url=${`${base}${r.id}/tag_random_doc/`} noText=${true} submitLabel="Tag random document"
        extraFields=${[indicesField()]} toBody=${(b) => ({ indices: b.indices || [] })}
        view=${(res) => html`<div><${TaggerResult} res=${res.prediction} /><pre>${JSON.stringify(res.document, null, 2)}</pre></div>`}
        onClose=${ctx.close} />`,
      features: (r, ctx) => html`<${TagTextDialog} title=${'Features of ' + r.description} url=${`${base}${r.id}/list_features/?size=100`}
        noText=${true} submitLabel="Show features" method="GET"
        view=${(res) => html`<p>${res.showing_features} of ${res.total_features}</p><table><thead><tr><th scope="col">Feature</th><th scope="col">Coefficient</th></tr></thead>
          <tbody>${(res.features || []).map((f) => html`<tr key=${f.feature}><td>${f.feature}</td><td>${Number(f.coefficient).toFixed(3)}</td></tr>`)}</tbody></table>`}
        onClose=${ctx.close} />`,
      stop: (r, ctx) => html`<${TagTextDialog} title=${'Stop words of ' + r.description} url=${`${base}${r.id}/stop_words/`}
        noText=${true} submitLabel="Save stop words" initial=${{ words: String(r.stop_words || '').split(/\s+/).filter(Boolean) }}
        extraFields=${[{ name: 'words', label: 'Stop words', type: 'lines', rows: 6 }]}
        toBody=${(b) => ({ text: (b.words || []).join(' ') })}
        view=${(res) => html`<p>Saved: ${res.stop_words || '(none)'}</p>`} onClose=${ctx.close} />`,
      retrain: (r, ctx) => html`<${ConfirmDialog} title="Retrain tagger?" confirmLabel="Retrain"
        message=${`Start a new training run of "${r.description}"?`}
        onConfirm=${async () => { const res = await post(`${base}${r.id}/retrain_tagger/`, {}); toast(res.success || 'Retraining started.'); ctx.reload(); }}
        onClose=${ctx.close} />`,
      apply: (r, ctx) => html`<${ApplyDialog} collection="taggers" row=${r} ctx=${ctx} />`,
    }} />`;
}
