// Embeddings page (gui.md §5.4.1): table with task cells, create dialog, similar words and
// phrase text dialogs.
import { html } from '../preact.js';
import { ResourcePage } from '../components/resourcepage.js';
import { TagTextDialog } from '../components/tagging.js';
import { indicesField, fieldsField, queryField, taskColumns } from './models-common.js';

export function EmbeddingsPage({ route }) {
  const pid = route.params.pid;
  const base = `projects/${pid}/embeddings/`;
  const create = [
    { name: 'description', label: 'Description', type: 'text', required: true },
    indicesField(), fieldsField(), queryField(),
    { name: 'num_dimensions', label: 'Dimensions', type: 'integer', default: 100 },
    { name: 'min_freq', label: 'Minimum frequency', type: 'integer', default: 5 },
    { name: 'max_documents', label: 'Max documents', type: 'integer', default: 0, hint: '0 = all.' },
  ];
  const columns = [
    { key: 'id', label: 'ID', order: 'id' },
    { key: 'author_username', label: 'Author', order: 'author__username' },
    { key: 'description', label: 'Description', order: 'description' },
    { key: 'fields', label: 'Fields', order: 'fields' },
    { key: 'num_dimensions', label: 'Dimensions', order: 'num_dimensions' },
    { key: 'min_freq', label: 'Min freq', order: 'min_freq' },
    { key: 'vocab_size', label: 'Vocab size', order: 'vocab_size' },
    ...taskColumns(),
  ];
  return html`<${ResourcePage} pid=${pid} title="Embeddings" resource="Embedding" collection="embeddings"
    columns=${columns} createFields=${create}
    rowActions=${(r, open) => [
      { label: 'Similar words', run: () => open('similar') },
      { label: 'Phrase text', run: () => open('phrase') },
    ]}
    dialogs=${{
      similar: (r, ctx) => html`<${TagTextDialog} title=${'Similar words in ' + r.description} url=${`${base}${r.id}/predict_similar/`}
        noText=${true} submitLabel="Find similar"
        extraFields=${[
          { name: 'positives', label: 'Positives', type: 'lines', required: true },
          { name: 'negatives', label: 'Negatives', type: 'lines' },
          { name: 'output_size', label: 'Output size', type: 'integer', default: 10 },
        ]}
        view=${(res) => (res.length ? html`<table><thead><tr><th scope="col">Phrase</th><th scope="col">Score</th></tr></thead>
          <tbody>${res.map((x) => html`<tr key=${x.phrase}><td>${x.phrase}</td><td>${Number(x.score).toFixed(3)}</td></tr>`)}</tbody></table>`
          : html`<p>No suggestions</p>`)}
        onClose=${ctx.close} />`,
      phrase: (r, ctx) => html`<${TagTextDialog} title=${'Phrase text with ' + r.description} url=${`${base}${r.id}/phrase_text/`}
        submitLabel="Phrase"
        view=${(res) => html`<p class="phrased">${String(res).split(/(\S*_\S*)/).map((p, i) => (p.includes('_') ? html`<em key=${i}>${p}</em>` : p))}</p>`}
        onClose=${ctx.close} />`,
    }} />`;
}
