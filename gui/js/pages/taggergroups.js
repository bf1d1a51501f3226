// Tagger groups page (gui.md §5.4.3): member status bars, create dialog with nested tagger
// settings, tag text with candidates, models list, retrain all, apply to index with its task.
import { html } from '../preact.js';
import { post, get } from '../api.js';
import { toast } from '../state.js';
import { ResourcePage } from '../components/resourcepage.js';
import { ConfirmDialog } from '../components/dialog.js';
import { TagTextDialog, pct } from '../components/tagging.js';
import { indicesField, fieldsField, embeddingField, score } from './models-common.js';
import { choiceField } from './taggers.js';
import { useChoices } from '../components/hooks.js';
import { ApplyDialog, applyAction, appliedTaskColumn } from '../components/apply.js';
import { needsPolling } from '../taskstate.js';
import { href } from '../routes.js';

function StatusBar({ s }) {
  if (!s) return '—';
  const parts = [['completed', s.completed], ['training', s.training], ['created', s.created], ['failed', s.failed]];
  return html`<div class="stack" data-testid="tagger-status" data-total=${s.total}>
    ${parts.filter(([, n]) => n > 0).map(([k, n]) => html`<span key=${k} class=${'seg seg-' + k}>${k} ${n}</span>`)}
    ${s.total === 0 ? 'no members' : null}
  </div>`;
}

const training = (r) => !!r.tagger_status && (r.tagger_status.created + r.tagger_status.training) > 0;
const busy = (r) => training(r) || needsPolling(r.task);
const failed = (r) => !!(r.tagger_status && r.tagger_status.failed) || !!(r.task && r.task.status === 'failed');

export function TaggerGroupsPage({ route }) {
  const pid = route.params.pid;
  const base = `projects/${pid}/tagger_groups/`;
  // A group's members are taggers: their choices are the taggers'.
  const choices = useChoices(`projects/${pid}/taggers/`);
  const create = [
    { name: 'description', label: 'Description', type: 'text', required: true },
    { name: 'fact_name', label: 'Fact name', type: 'text', default: 'TEEMA' },
    { name: 'minimum_sample_size', label: 'Minimum sample size', type: 'integer', default: 50 },
    { ...indicesField('tagger.indices'), label: 'Tagger indices' },
    { ...fieldsField('tagger.fields'), label: 'Tagger fields' },
    choiceField('tagger.vectorizer', 'Vectorizer', choices.vectorizer),
    choiceField('tagger.classifier', 'Classifier', choices.classifier),
    embeddingField(pid, 'tagger.embedding'),
    { name: 'tagger.maximum_sample_size', label: 'Max sample size', type: 'integer', default: 10000 },
    { name: 'tagger.negative_multiplier', label: 'Negative multiplier', type: 'number', default: 1.0 },
    { name: 'tagger.score_threshold', label: 'Score threshold', type: 'number', default: 0.0 },
  ];
  const columns = [
    { key: 'id', label: 'ID', order: 'id' },
    { key: 'author_username', label: 'Author', order: 'author__username' },
    { key: 'description', label: 'Description', order: 'description' },
    { key: 'fact_name', label: 'Fact name', order: 'fact_name' },
    { key: 'num_tags', label: 'Tags', order: 'num_tags' },
    { key: 'minimum_sample_size', label: 'Min sample size', order: 'minimum_sample_size' },
    { key: 'tagger_status', label: 'Member status', render: (r) => html`<${StatusBar} s=${r.tagger_status} />` },
    { key: 'avg_f1', label: 'Average F1', render: (r) => score(r.tagger_statistics && r.tagger_statistics.avg_f1_score) },
    appliedTaskColumn(pid),
  ];
  return html`<${ResourcePage} pid=${pid} title="Tagger groups" resource="Tagger group" collection="tagger_groups"
    columns=${columns} createFields=${create}
    tableProps=${{
      pollWhen: busy,
      statusOf: (r) => (busy(r) ? 'running' : (failed(r) ? 'failed' : 'completed')),
      deleteMessage: (r) => `Delete tagger group "${r.description}"? Its member taggers are deleted too.`,
    }}
    rowActions=${(r, open) => [
      { label: 'Tag text', run: () => open('tag') },
      { label: 'Tag random document', run: () => open('random') },
      { label: 'Models', run: () => open('models') },
      { label: 'Retrain all', run: () => open('retrain') },
      applyAction(open),
    ]}
    dialogs=${{
      tag: (r, ctx) => html`<${TagTextDialog} title=${'Tag text with ' + r.description} url=${`${base}${r.id}/tag_text/`}
        extraFields=${[
          { name: 'lemmatize', label: 'Lemmatize', type: 'checkbox', default: true },
          { name: 'use_ner', label: 'Use NER', type: 'checkbox', default: true },
          { name: 'n_similar_docs', label: 'Similar documents', type: 'integer', default: 25 },
          { name: 'n_candidate_tags', label: 'Candidate tags', type: 'integer', default: 25 },
        ]}
        view=${(res) => (res.length ? html`<ul>${res.map((t) => html`<li key=${t.tagger_id}>${t.tag}: ${pct(t.probability)}${t.ner_match ? ' (NER match)' : ''}</li>`)}</ul>`
          : html`<p class="no-match">No tags</p>`)}
        onClose=${ctx.close} />`,
      random: (r, ctx) => html`<${TagTextDialog} title=${'Tag a random document with ' + r.description} pid=${pid}
        url=${`${base}${r.id}/tag_random_doc/`} noText=${true} submitLabel="Tag random document"
        extraFields=${[indicesField()]} toBody=${(b) => ({ indices: b.indices || [] })}
        view=${(res) => html`<div><ul>${(res.tags || []).map((t) => html`<li key=${t.tagger_id}>${t.tag}: ${pct(t.probability)}</li>`)}</ul>
          <pre>${JSON.stringify(res.document, null, 2)}</pre></div>`}
        onClose=${ctx.close} />`,
      models: (r, ctx) => html`<${TagTextDialog} title=${'Models of ' + r.description} url=${`${base}${r.id}/models_list/`}
        method="GET" noText=${true} submitLabel="Load models"
        view=${(res) => html`<table><thead><tr><th scope="col">Tag</th><th scope="col">Status</th></tr></thead>
          <tbody>${res.map((m) => html`<tr key=${m.id}><td><a href=${href('taggers', { pid })}>${m.tag}</a></td><td>${m.status}</td></tr>`)}</tbody></table>`}
        onClose=${ctx.close} />`,
      retrain: (r, ctx) => html`<${ConfirmDialog} title="Retrain all?" confirmLabel="Retrain all"
        message=${`Retrain every member tagger of "${r.description}"?`}
        onConfirm=${async () => { const res = await post(`${base}${r.id}/models_retrain/`, {}); toast(res.success || 'Retraining started.'); ctx.reload(); }}
        onClose=${ctx.close} />`,
      apply: (r, ctx) => html`<${ApplyDialog} collection="tagger_groups" row=${r} ctx=${ctx} />`,
    }} />`;
}
