// A clustering's clusters (collection.md §5.3, view_clusters): a picture of horizontal bars,
// one per cluster, as long as its document count and naming its top significant words and its
// average similarity, each bar a link that opens the cluster; the same figures as a table with
// selection and bulk delete; retrain. Polls while the clustering's task runs.
import { html, useState, useEffect, useRef } from '../preact.js';
import { get, post } from '../api.js';
import { toast } from '../state.js';
import { href } from '../routes.js';
import { errorText } from '../errors.js';
import { needsPolling } from '../taskstate.js';
import { clusterBars, similarityText } from '../topics.js';
import { ConfirmDialog } from '../components/dialog.js';
import { TaskCell } from '../components/task.js';
import { pollInterval } from '../components/table.js';

/**
 * The clustering and its clusters, reloaded every poll interval while its task runs.
 * @returns {{clustering:object|null, view:object|null, error:string|null, reload:()=>void}}
 */
export function useClustering(pid, id) {
  const base = `projects/${pid}/clustering/${id}/`;
  const [res, setRes] = useState({ clustering: null, view: null, error: null });
  const timer = useRef(null);
  const seq = useRef(0);
  const load = async () => {
    const my = ++seq.current;
    clearTimeout(timer.current);
    try {
      const clustering = await get(base);
      const view = needsPolling(clustering.task) ? null : await get(`${base}view_clusters/`);
      if (my !== seq.current) return;
      setRes({ clustering, view, error: null });
      if (needsPolling(clustering.task)) timer.current = setTimeout(load, pollInterval());
    } catch (e) {
      if (my === seq.current) setRes((r) => ({ ...r, error: e.status === 404 ? 'This clustering does not exist.' : errorText(e.norm) }));
    }
  };
  useEffect(() => { load(); return () => { seq.current++; clearTimeout(timer.current); }; }, [pid, id]);
  return { ...res, reload: load };
}

const docsText = (n) => `${n} document${n === 1 ? '' : 's'}`;

/**
 * The picture: one focusable bar per cluster. Its accessible name is its whole text read in one
 * sentence ("Cluster 8: 2 documents, similarity 0.41, words …"); the drawn parts, the same words
 * and numbers in grid cells, are hidden from screen readers.
 */
function ClusterBars({ pid, cid, clusters }) {
  const bars = clusterBars(clusters);
  return html`<figure class="cluster-bars" data-testid="cluster-bars">
    <figcaption>Clusters by size, with their average similarity and top significant words</figcaption>
    <ul>${bars.map((b) => html`<li key=${b.id}>
      <a class="cluster-bar" href=${href('cluster', { pid, id: cid, cluster: b.id })} data-testid=${'cluster-bar-' + b.id} title=${b.label}>
        <span class="visually-hidden">${b.label}</span>
        <span class="cluster-bar-id" aria-hidden="true">Cluster ${b.id}</span>
        <svg class="cluster-bar-svg" viewBox="0 0 100 10" preserveAspectRatio="none" aria-hidden="true" focusable="false">
          <rect width=${b.share} height="10" /></svg>
        <span class="cluster-bar-count" aria-hidden="true">${b.count}</span>
        <span class="cluster-bar-sim" aria-hidden="true">similarity ${b.similarity}</span>
        <span class="cluster-bar-words" aria-hidden="true">${b.words.length ? b.words.join(', ') : 'none'}</span>
      </a></li>`)}</ul>
  </figure>`;
}

function ClusterTable({ pid, cid, clusters, selected, setSelected }) {
  const all = clusters.length > 0 && clusters.every((c) => selected.has(c.id));
  const toggle = (id) => {
    const s = new Set(selected);
    if (s.has(id)) s.delete(id); else s.add(id);
    setSelected(s);
  };
  return html`<div class="table-scroll"><table data-testid="cluster-table">
    <caption class="visually-hidden">Clusters</caption>
    <thead><tr>
      <th scope="col" class="narrow"><input type="checkbox" aria-label="Select all clusters" checked=${all}
        onChange=${() => setSelected(all ? new Set() : new Set(clusters.map((c) => c.id)))} /></th>
      <th scope="col">Cluster</th><th scope="col">Documents</th><th scope="col">Similarity</th><th scope="col">Significant words</th>
    </tr></thead>
    <tbody>${clusters.map((c) => html`<tr key=${c.id} data-testid=${'cluster-row-' + c.id}>
      <td><input type="checkbox" aria-label=${'Select cluster ' + c.id} checked=${selected.has(c.id)} onChange=${() => toggle(c.id)} /></td>
      <td><a href=${href('cluster', { pid, id: cid, cluster: c.id })}>Cluster ${c.id}</a></td>
      <td data-col="document_count">${c.document_count}</td>
      <td data-col="average_similarity">${similarityText(c.average_similarity)}</td>
      <td data-col="significant_words">${(c.significant_words || []).map((w) => `${w.key} (${w.count})`).join(', ') || '—'}</td>
    </tr>`)}</tbody>
  </table></div>`;
}

export function ClusteringPage({ route }) {
  const pid = route.params.pid;
  const cid = route.params.id;
  const base = `projects/${pid}/clustering/${cid}/`;
  const { clustering, view, error, reload } = useClustering(pid, cid);
  const [selected, setSelected] = useState(() => new Set());
  const [confirm, setConfirm] = useState(null);
  const back = html`<p><a href=${href('topic-analyzer', { pid })}>← Topic analyzer</a></p>`;
  if (error && !clustering) return html`<section>${back}<p class="form-summary" role="alert">${error}</p></section>`;
  if (!clustering) return html`<p aria-busy="true">Loading…</p>`;
  const clusters = (view && view.clusters) || [];
  const askBulk = () => {
    const ids = [...selected];
    setConfirm({
      title: 'Delete selected clusters?', confirmLabel: 'Delete',
      message: `Delete ${ids.length} cluster${ids.length === 1 ? '' : 's'} of "${clustering.description}"? Their documents stay in the indices.`,
      run: async () => {
        const res = await post(`${base}bulk_delete_clusters/`, { ids });
        toast(res.message);
        setSelected(new Set());
        reload();
      },
    });
  };
  const askRetrain = () => setConfirm({
    title: 'Retrain clustering?', confirmLabel: 'Retrain',
    message: `Delete the clusters of "${clustering.description}" and cluster again with its current settings?`,
    run: async () => { const res = await post(`${base}retrain/`); toast(res.message.trim()); setSelected(new Set()); reload(); },
  });
  return html`<section>
    ${back}
    <div class="page-head">
      <h1>Clustering: ${clustering.description}</h1>
      <div class="page-actions">
        <button type="button" class="secondary" onClick=${askRetrain} disabled=${needsPolling(clustering.task)}>Retrain</button>
      </div>
    </div>
    <div class="clustering-summary">
      <${TaskCell} task=${clustering.task} description=${clustering.description} live=${true} />
      <p class="hint">${[(clustering.fields || []).join(', '), clustering.vectorizer, clustering.clustering_algorithm,
        view ? `${view.cluster_count} cluster${view.cluster_count === 1 ? '' : 's'}` : null].filter(Boolean).join(' · ')}</p>
    </div>
    ${error ? html`<p class="form-summary" role="alert">${error}</p>` : null}
    ${view && clusters.length === 0 ? html`<p class="empty">No clusters.</p>` : null}
    ${clusters.length ? html`<${ClusterBars} pid=${pid} cid=${cid} clusters=${clusters} />
      <div class="table-tools">
        <button type="button" class="danger" disabled=${selected.size === 0} onClick=${askBulk}>Delete selected clusters${selected.size ? ` (${selected.size})` : ''}</button>
        <span class="count" data-testid="table-count">${docsText(clusters.reduce((n, c) => n + c.document_count, 0))} in ${clusters.length} clusters</span>
      </div>
      <${ClusterTable} pid=${pid} cid=${cid} clusters=${clusters} selected=${selected} setSelected=${setSelected} />` : null}
    ${confirm ? html`<${ConfirmDialog} title=${confirm.title} message=${confirm.message} confirmLabel=${confirm.confirmLabel}
      onConfirm=${confirm.run} onClose=${() => setConfirm(null)} />` : null}
  </section>`;
}
