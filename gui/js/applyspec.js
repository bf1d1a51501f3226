// Applying a model to an index (collection.md §2.1; api.md §9 for regex tagger groups): the
// form fields each model collection offers, their initial values for a model row, and the
// request body built from the collected form body.
// Pure: no DOM, unit-tested with node --test.

const OPTIONS = {
  lemmatize: { name: 'lemmatize', label: 'Lemmatize', type: 'checkbox', default: false },
  use_ner: { name: 'use_ner', label: 'Use NER', type: 'checkbox', default: false },
  n_similar_docs: { name: 'n_similar_docs', label: 'Similar documents', type: 'integer', default: 25 },
  n_candidate_tags: { name: 'n_candidate_tags', label: 'Candidate tags', type: 'integer', default: 25 },
  max_tags: { name: 'max_tags', label: 'Max tags', type: 'integer', default: 10000 },
  add_spans: { name: 'add_spans', label: 'Add spans', type: 'checkbox', default: true },
};

/**
 * Per collection: the action route, whether a fact name is asked (required or optional), the
 * hint of the fact value (absent: not asked), the model options, and whether `query` is sent
 * as an object (apply_tagger_group) instead of a JSON string.
 */
export const APPLY_KINDS = {
  taggers: { action: 'apply_to_index', factName: 'required', valueHint: "Empty = the tagger's description.", options: ['lemmatize'] },
  tagger_groups: {
    action: 'apply_to_index', factName: 'required',
    options: ['lemmatize', 'use_ner', 'n_similar_docs', 'n_candidate_tags', 'max_tags'],
  },
  torchtaggers: {
    action: 'apply_to_index', factName: 'required', options: [],
    valueHint: "Empty = the tagger's description; a model with a fact name writes its predicted class.",
  },
  regex_taggers: { action: 'apply_to_index', factName: 'optional', valueHint: 'Empty = the matched text.', options: ['add_spans'] },
  regex_tagger_groups: { action: 'apply_tagger_group', queryObject: true, options: [] },
};

function kindOf(collection) {
  const k = APPLY_KINDS[collection];
  if (!k) throw new Error(`no apply action for ${collection}`);
  return k;
}

/** Form field specs (formvalues.js) of the apply dialog. */
export function applyFields(collection) {
  const k = kindOf(collection);
  const out = [{ name: 'description', label: 'Description', type: 'text', required: true, hint: 'Label of this run.' }];
  if (k.factName) {
    out.push({
      name: 'new_fact_name', label: 'New fact name', type: 'text', required: k.factName === 'required',
      hint: k.factName === 'required' ? 'The fact name written into the documents.' : "Empty = the tagger's description.",
    });
  }
  if (k.valueHint) out.push({ name: 'new_fact_value', label: 'New fact value', type: 'text', hint: k.valueHint });
  out.push(
    { name: 'indices', label: 'Indices', type: 'indices', hint: 'None chosen = all project indices.' },
    { name: 'fields', label: 'Fields', type: 'fields', required: true, noFacts: true },
    { name: 'query', label: 'Query', type: 'json', default: { query: { match_all: {} } }, rows: 4 },
    ...k.options.map((o) => OPTIONS[o]),
  );
  return out;
}

/** Initial values for a model row: a run label, and the model's own fact name if it has one. */
export function applyInitial(row) {
  return { description: `apply ${row.description}`, new_fact_name: row.fact_name || '' };
}

/** The request path of the action, relative to the API base. */
export function applyPath(collectionPath, collection, id) {
  return `${collectionPath}${id}/${kindOf(collection).action}/`;
}

/** The request body: indices always a list, query a JSON string except where an object is taken. */
export function applyBody(collection, body) {
  const out = { ...body, indices: body.indices || [] };
  if (body.query !== undefined && !kindOf(collection).queryObject) out.query = JSON.stringify(body.query);
  return out;
}
