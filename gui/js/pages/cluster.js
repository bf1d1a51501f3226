// One cluster of a clustering (collection.md §5.3 detail, §5.5 operations): its figures and
// documents (display fields first, 100 at a time), document selection with remove and move to another
// cluster, "more like this cluster" with add to cluster, tag the cluster with a fact, ignore
// and delete, delete.
import { html, useState } from '../preact.js';
import { get, post, del } from '../api.js';
import { toast } from '../state.js';
import { href } from '../routes.js';
import { navigate } from '../session.js';
import { errorText } from '../errors.js';
import { documentColumns, cellText, foundDocument, similarityText } from '../topics.js';
import { useAsync } from '../components/hooks.js';
import { ConfirmDialog } from '../components/dialog.js';
import { FormDialog, FormSummary } from '../components/form.js';
import { useClustering } from './clustering.js';

/** Documents drawn at first and added by each "Show more": a cluster may hold thousands. */
const STEP = 100;

/** Documents with a checkbox each; `docs` are `{id, index, content}`. */
function DocumentsTable({ testid, caption, docs, columns, selected, setSelected }) {
  const all = docs.length > 0 && docs.every((d) => selected.has(d.id));
  const toggle = (id) => {
    const s = new Set(selected);
    if (s.has(id)) s.delete(id); else s.add(id);
    setSelected(s);
  };
  return html`<div class="table-scroll"><table data-testid=${testid}>
    <caption class="visually-hidden">${caption}</caption>
    <thead><tr>
      <th scope="col" class="narrow"><input type="checkbox" aria-label=${'Select all ' + caption.toLowerCase()} checked=${all}
        onChange=${() => setSelected(all ? new Set() : new Set(docs.map((d) => d.id)))} /></th>
      <th scope="col">ID</th>
      ${columns.map((c) => html`<th scope="col" key=${c}>${c}</th>`)}
    </tr></thead>
    <tbody>${docs.map((d) => html`<tr key=${d.id} data-testid=${'doc-' + d.id}>
      <td><input type="checkbox" aria-label=${'Select document ' + d.id} checked=${selected.has(d.id)} onChange=${() => toggle(d.id)} /></td>
      <td data-col="_id">${d.id}</td>
      ${columns.map((c) => html`<td key=${c} data-col=${c}>${cellText(d.content[c])}</td>`)}
    </tr>`)}</tbody>
  </table></div>`;
}

/** "More like this cluster": a search for similar documents, each selectable to add here. */
function MoreLike({ base, columns, onAdded }) {
  const [found, setFound] = useState(null);
  const [error, setError] = useState(null);
  const [busy, setBusy] = useState(false);
  const [selected, setSelected] = useState(() => new Set());
  const search = async () => {
    setBusy(true);
    setError(null);
    try {
      const res = await post(`${base}more_like_cluster/`, { include_meta: true, size: 20 });
      setFound(res.map(foundDocument));
      setSelected(new Set());
    } catch (e) { setError(errorText(e.norm)); }
    setBusy(false);
  };
  const add = async () => {
    setBusy(true);
    setError(null);
    try {
      const ids = [...selected];
      const res = await post(`${base}expand_cluster/`, { ids });
      toast(res.message);
      setFound(found.filter((d) => !selected.has(d.id)));
      setSelected(new Set());
      onAdded();
    } catch (e) { setError(errorText(e.norm)); }
    setBusy(false);
  };
  return html`<section class="more-like" aria-labelledby="more-like-h" aria-busy=${busy ? 'true' : 'false'}>
    <h2 id="more-like-h">More like this cluster</h2>
    <div class="table-tools">
      <button type="button" class="secondary" onClick=${search} disabled=${busy}>Find similar documents</button>
      ${found ? html`<button type="button" onClick=${add} disabled=${busy || selected.size === 0}>Add selected to cluster${selected.size ? ` (${selected.size})` : ''}</button>
        <span class="count" data-testid="similar-count">${found.length} similar document${found.length === 1 ? '' : 's'}</span>` : null}
    </div>
    ${error ? html`<${FormSummary} messages=${[error]} />` : null}
    ${found && found.length ? html`<${DocumentsTable} testid="similar-documents" caption="Similar documents" docs=${found}
      columns=${columns} selected=${selected} setSelected=${setSelected} />` : null}
  </section>`;
}

export function ClusterPage({ route }) {
  const { pid, id: cid, cluster: id } = route.params;
  const base = `projects/${pid}/clustering/${cid}/clusters/${id}/`;
  const { clustering, view } = useClustering(pid, cid);
  const detail = useAsync(() => get(base), [pid, cid, id]);
  const [selected, setSelected] = useState(() => new Set());
  const [shown, setShown] = useState(STEP);
  const [dialog, setDialog] = useState(null);
  const [actionError, setActionError] = useState(null);
  const back = html`<p><a href=${href('clustering', { pid, id: cid })}>← Clusters${clustering ? ' of ' + clustering.description : ''}</a></p>`;
  if (detail.error && !detail.data) {
    const msg = detail.error.status === 404 ? 'This cluster does not exist.' : errorText(detail.error.norm);
    return html`<section>${back}<p class="form-summary" role="alert">${msg}</p></section>`;
  }
  if (!detail.data || !clustering) return html`<p aria-busy="true">Loading…</p>`;
  const c = detail.data;
  const docs = c.documents || [];
  const columns = documentColumns(docs, clustering.display_fields);
  const others = ((view && view.clusters) || []).filter((o) => String(o.id) !== String(id));
  const done = (res) => { toast(res.message); setSelected(new Set()); detail.reload(); };
  const act = async (fn) => {
    setActionError(null);
    try { done(await fn()); } catch (e) { setActionError(errorText(e.norm)); }
  };
  const close = () => setDialog(null);
  const toClustering = (res) => { toast(res.message); navigate(href('clustering', { pid, id: cid })); };
  const dialogs = {
    move: () => html`<${FormDialog} title=${`Move ${selected.size} document${selected.size === 1 ? '' : 's'} to another cluster`}
      submitLabel="Move" pid=${pid}
      fields=${[{
        name: 'receiving_cluster_id', label: 'Cluster', type: 'select', numeric: true, required: true, placeholder: 'Choose…',
        options: others.map((o) => ({ value: String(o.id), label: `Cluster ${o.id} (${o.document_count}: ${(o.significant_words || []).slice(0, 3).map((w) => w.key).join(', ')})` })),
      }]}
      onSubmit=${(b) => post(`${base}transfer_documents/`, { ids: [...selected], receiving_cluster_id: b.receiving_cluster_id })}
      onDone=${(res) => { close(); done(res); }} onClose=${close} />`,
    tag: () => html`<${FormDialog} title=${`Tag the ${c.document_count} documents of cluster ${id}`} submitLabel="Tag" pid=${pid}
      initial=${{ doc_path: (clustering.fields || [])[0] || '' }}
      fields=${[
        { name: 'fact', label: 'Fact name', type: 'text', required: true },
        { name: 'str_val', label: 'Fact value', type: 'text', required: true },
        { name: 'doc_path', label: 'Field', type: 'select', required: true, options: (clustering.fields || []).map((f) => ({ value: f, label: f })) },
      ]}
      onSubmit=${(b) => post(`${base}tag_cluster/`, b)}
      onDone=${(res) => { close(); toast(res.message); detail.reload(); }} onClose=${close} />`,
    ignore: () => html`<${ConfirmDialog} title="Ignore and delete cluster?" confirmLabel="Ignore and delete"
      message=${`Delete cluster ${id} and leave its ${c.document_count} documents out of the next retrain?`}
      onConfirm=${async () => toClustering(await post(`${base}ignore_and_delete/`))} onClose=${close} />`,
    delete: () => html`<${ConfirmDialog} title="Delete cluster?"
      message=${`Delete cluster ${id}? Its documents stay in the indices.`}
      onConfirm=${async () => toClustering(await del(base))} onClose=${close} />`,
  };
  return html`<section>
    ${back}
    <div class="page-head">
      <h1>Cluster ${c.id}</h1>
      <div class="page-actions">
        <button type="button" onClick=${() => setDialog('tag')}>Tag cluster</button>
        <button type="button" class="secondary" onClick=${() => setDialog('ignore')}>Ignore and delete</button>
        <button type="button" class="danger" onClick=${() => setDialog('delete')}>Delete cluster</button>
      </div>
    </div>
    <dl class="cluster-figures" data-testid="cluster-figures">
      <div><dt>Documents</dt><dd>${c.document_count}</dd></div>
      <div><dt>Similarity</dt><dd>${similarityText(c.intracluster_similarity)}</dd></div>
      <div><dt>Significant words</dt><dd><span class="chips">${(c.significant_words || []).length
        ? c.significant_words.map((w) => html`<span class="chip" key=${w.key}>${w.key} <small>${w.count}</small></span>`) : '—'}</span></dd></div>
    </dl>
    <h2>Documents</h2>
    <div class="table-tools">
      <button type="button" class="danger" disabled=${selected.size === 0}
        onClick=${() => act(() => post(`${base}remove_documents/`, { ids: [...selected] }))}>Remove selected${selected.size ? ` (${selected.size})` : ''}</button>
      <button type="button" class="secondary" disabled=${selected.size === 0 || others.length === 0}
        onClick=${() => setDialog('move')}>Move selected…</button>
      <span class="count" data-testid="table-count">${docs.length} document${docs.length === 1 ? '' : 's'}</span>
    </div>
    ${actionError ? html`<${FormSummary} messages=${[actionError]} />` : null}
    ${docs.length ? html`<${DocumentsTable} testid="cluster-documents" caption="Cluster documents" docs=${docs.slice(0, shown)}
      columns=${columns} selected=${selected} setSelected=${setSelected} />` : html`<p class="empty">No documents.</p>`}
    ${docs.length > shown ? html`<p><button type="button" class="secondary" onClick=${() => setShown(shown + STEP)}>
      Show ${Math.min(STEP, docs.length - shown)} more (${docs.length - shown} not shown)</button></p>` : null}
    <${MoreLike} base=${base} columns=${columns} onAdded=${detail.reload} />
    ${dialog ? dialogs[dialog]() : null}
  </section>`;
}
