// Topic analyzer logic (collection.md §5): the request body of the create/edit form, the
// cluster bars of a clustering's picture, and the document columns of a cluster.
// Pure: no DOM, unit-tested with node --test.

export const EMBEDDING_VECTORIZER = 'Embedding Vectorizer';

/**
 * The clustering body from the body a form collected: the query goes as a JSON string (as
 * texta-ui sends it), `num_topics` only with LSI, `embedding` only for the Embedding Vectorizer.
 * @param {object} body
 * @returns {object}
 */
export function clusteringBody(body) {
  const out = { ...body };
  if (out.query !== undefined && typeof out.query !== 'string') out.query = JSON.stringify(out.query);
  if (!out.use_lsi) delete out.num_topics;
  if (out.vectorizer !== EMBEDDING_VECTORIZER) delete out.embedding;
  return out;
}

/** "0.41" for a similarity, "—" when missing. */
export function similarityText(v) {
  return typeof v === 'number' && Number.isFinite(v) ? v.toFixed(2) : '—';
}

/**
 * The bars of a clustering's picture: one per cluster, largest first (ties: lower id first),
 * each as long as its share of the largest cluster (at least 1 % when it has documents).
 * @param {Array<{id:number, document_count:number, average_similarity:number,
 *   significant_words:Array<{key:string,count:number}>}>} clusters
 * @param {number} [maxWords] how many significant words a bar names
 * @returns {Array<{id:number, count:number, share:number, words:string[], similarity:string, label:string}>}
 *   `label` is the bar's whole text as read out.
 */
export function clusterBars(clusters, maxWords = 5) {
  const list = [...(clusters || [])].sort((a, b) => (b.document_count - a.document_count) || (a.id - b.id));
  const max = list.reduce((m, c) => Math.max(m, c.document_count || 0), 0);
  return list.map((c) => {
    const count = c.document_count || 0;
    const words = (c.significant_words || []).slice(0, maxWords).map((w) => w.key);
    const similarity = similarityText(c.average_similarity);
    const share = max > 0 && count > 0 ? Math.max(1, Math.round((100 * count) / max)) : 0;
    const docs = `${count} document${count === 1 ? '' : 's'}`;
    const label = `Cluster ${c.id}: ${docs}, similarity ${similarity}, words ${words.length ? words.join(', ') : 'none'}`;
    return { id: c.id, count, share, words, similarity, label };
  });
}

/**
 * Columns of a cluster's document table: `display_fields` first, then the first document's
 * keys (texta-ui builds its columns from them), each once.
 * @param {Array<{content:object}>} docs
 * @param {string[]} [displayFields]
 * @returns {string[]}
 */
export function documentColumns(docs, displayFields = []) {
  const first = docs && docs.length ? docs[0].content || {} : {};
  const out = [];
  for (const k of [...(displayFields || []), ...Object.keys(first)]) if (!out.includes(k)) out.push(k);
  return out;
}

/** A cell's text: strings as they are, facts as "fact: value", other values as JSON. */
export function cellText(v) {
  if (v === null || v === undefined || v === '') return '—';
  if (typeof v === 'string') return v;
  if (Array.isArray(v) && v.every((f) => f && typeof f === 'object' && 'fact' in f)) {
    return v.map((f) => `${f.fact}: ${f.str_val ?? f.num_val ?? ''}`).join('; ');
  }
  return typeof v === 'object' ? JSON.stringify(v) : String(v);
}

/** The flattened source of a found document (more_like_cluster answers `_id` when asked for meta). */
export function foundDocument(d) {
  if (d && typeof d === 'object' && '_source' in d) return { id: d._id, index: d._index, content: d._source };
  return { id: null, index: null, content: d };
}
