// The index splitter's create form (collection.md §4): what each distribution asks for, the
// quota rows turned into `custom_distribution`, and the request body built from the collected
// form body. Pure: no DOM, unit-tested with node --test.

/** `equal` and `custom` take the test size as a count per label; the others as a percentage. */
export function perLabel(distribution) {
  return distribution === 'equal' || distribution === 'custom';
}

/** Every distribution but `random` labels the documents by a fact. */
export function needsFact(distribution) {
  return !!distribution && distribution !== 'random';
}

/** The hint of the test size for a distribution. */
export function testSizeHint(distribution) {
  return perLabel(distribution) ? 'Test documents per label (1–10000).' : 'Percentage of the documents that go to the test index (1–100).';
}

/**
 * Quota rows `{label, count}` → `{label: count}`. Rows left wholly blank are dropped; a row
 * needs a label and a non-negative whole count; a label may appear once.
 * @param {Array<{label?:string, count?:(string|number)}>} rows
 * @returns {{value:(object|undefined), errors:string[]}} value undefined when no row is filled
 */
export function parseQuotas(rows) {
  const out = {};
  const errors = [];
  (rows || []).forEach((r, i) => {
    const label = String(r.label ?? '').trim();
    const raw = String(r.count ?? '').trim();
    if (!label && !raw) return;
    const line = `Row ${i + 1}: `;
    const whole = /^\d+$/.test(raw);
    if (!label) errors.push(`${line}a label is needed.`);
    else if (label in out) errors.push(`${line}${label} has a quota already.`);
    if (!whole) errors.push(`${line}the count must be a whole number, 0 or more.`);
    else if (label && !(label in out)) out[label] = Number(raw);
  });
  return { value: Object.keys(out).length ? out : undefined, errors };
}

/**
 * The request body: indices as `[{name}]`, and with `custom` the quotas even when none is
 * filled (the server then says they are needed). The form leaves out what the distribution
 * does not use.
 * @param {object} body the form body of collectBody (formvalues.js)
 */
export function splitBody(body) {
  const out = { ...body, indices: body.indices || [] };
  if (body.distribution === 'custom' && out.custom_distribution === undefined) out.custom_distribution = {};
  return out;
}

/** The search body that counts an index's documents (search_by_query). */
export function countBody(index) {
  return { indices: [index], query: { query: { match_all: {} }, size: 0 } };
}
