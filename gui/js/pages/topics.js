// Topic analyzer (collection.md §5): the project's clusterings with their task cells (polled
// while they run), a create dialog (algorithm and vectorizer from OPTIONS choices, LSI topics
// and the embedding only where they apply), stop-word editing, retrain, delete and bulk delete.
// A completed clustering opens its clusters (pages/clustering.js).
import { html } from '../preact.js';
import { post } from '../api.js';
import { toast } from '../state.js';
import { href } from '../routes.js';
import { ResourcePage } from '../components/resourcepage.js';
import { ConfirmDialog } from '../components/dialog.js';
import { useChoices } from '../components/hooks.js';
import { navigate } from '../session.js';
import { clusteringBody, EMBEDDING_VECTORIZER } from '../topics.js';
import { indicesField, fieldsField, queryField, embeddingField, taskColumns, withIndexNames } from './models-common.js';

const choiceField = (name, label, values) => ({
  name, label, type: 'select', default: values[0], options: values.map((v) => ({ value: v, label: v })),
});

/** The create form of a clustering (collection.md §5.2). */
export function clusteringFields(pid, choices) {
  return [
    { name: 'description', label: 'Description', type: 'text', required: true },
    indicesField(), { ...fieldsField(), textOnly: true }, queryField(),
    { name: 'num_cluster', label: 'Clusters', type: 'integer', default: 10, min: 0, max: 1000, hint: '0 = estimate the number.' },
    choiceField('clustering_algorithm', 'Algorithm', choices.clustering_algorithm || []),
    choiceField('vectorizer', 'Vectorizer', choices.vectorizer || []),
    { ...embeddingField(pid), showIf: (v) => v.vectorizer === EMBEDDING_VECTORIZER, hint: 'Needed by the Embedding Vectorizer.' },
    { name: 'num_dims', label: 'Dictionary size', type: 'integer', default: 1000, min: 1, max: 10000 },
    { name: 'document_limit', label: 'Document limit', type: 'integer', default: 100, min: 1 },
    { name: 'use_lsi', label: 'Reduce dimensions with LSI', type: 'checkbox' },
    { name: 'num_topics', label: 'LSI topics', type: 'integer', default: 50, min: 1, max: 1000, showIf: (v) => v.use_lsi },
    { name: 'significant_words_filter', label: 'Significant words filter', type: 'text', default: '[0-9]+', hint: 'A regex: words it fully matches are not listed.' },
    { name: 'stop_words', label: 'Stop words', type: 'lines', rows: 3, hint: 'One word per line, removed besides the built-in lists.' },
    { name: 'display_fields', label: 'Display fields', type: 'fields', noFacts: true, hint: 'Fields shown first beside the cluster documents.' },
  ];
}

const editFields = [
  { name: 'description', label: 'Description', type: 'text', required: true },
  { name: 'stop_words', label: 'Stop words', type: 'lines', rows: 6, hint: 'One word per line; used by the next retrain.' },
];

const clusteringHref = (pid, r) => href('clustering', { pid, id: r.id });
const completed = (r) => !!r.task && r.task.status === 'completed';

export function TopicAnalyzerPage({ route }) {
  const pid = route.params.pid;
  const base = `projects/${pid}/clustering/`;
  const choices = useChoices(base);
  const columns = [
    { key: 'id', label: 'ID', order: 'id' },
    { key: 'author_username', label: 'Author', order: 'author__username' },
    {
      key: 'description', label: 'Description', order: 'description',
      render: (r) => (completed(r) ? html`<a href=${clusteringHref(pid, r)}>${r.description}</a>` : r.description),
    },
    { key: 'indices', label: 'Indices', order: 'indices__name' },
    { key: 'fields', label: 'Fields', order: 'fields' },
    { key: 'num_cluster', label: 'Clusters', order: 'num_cluster', render: (r) => (r.num_cluster === 0 ? 'estimated' : String(r.num_cluster)) },
    { key: 'vectorizer', label: 'Vectorizer', order: 'vectorizer' },
    { key: 'clustering_algorithm', label: 'Algorithm', order: 'clustering_algorithm' },
    ...taskColumns(),
  ];
  return html`<${ResourcePage} pid=${pid} title="Topic analyzer" resource="Clustering" collection="clustering"
    columns=${columns} createFields=${clusteringFields(pid, choices)} toBody=${clusteringBody}
    editFields=${editFields} editInitial=${withIndexNames}
    intro=${html`<p class="hint">Groups similar documents into clusters; open a completed clustering to see its clusters, then tag them.</p>`}
    rowActions=${(r, open) => [
      ...(completed(r) ? [{ label: 'View clusters', run: () => navigate(clusteringHref(pid, r)) }] : []),
      { label: 'Retrain', run: () => open('retrain') },
    ]}
    dialogs=${{
      retrain: (r, ctx) => html`<${ConfirmDialog} title="Retrain clustering?" confirmLabel="Retrain"
        message=${`Delete the clusters of "${r.description}" and cluster again with its current settings?`}
        onConfirm=${async () => { const res = await post(`${base}${r.id}/retrain/`); toast(res.message.trim()); ctx.reload(); }}
        onClose=${ctx.close} />`,
    }} />`;
}
