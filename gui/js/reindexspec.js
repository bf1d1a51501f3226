// The reindexer's create form (collection.md §3): the field types a field change may name,
// the field-change rows turned into `field_type` items, and the request body built from the
// collected form body. Pure: no DOM, unit-tested with node --test.

/** The types a `field_type` item may name (collection.md §3, rule 4). */
export const FIELD_TYPES = ['text', 'keyword', 'long', 'float', 'boolean', 'date', 'fact'];

/**
 * Field-change rows `{path, new_path_name, field_type}` → `field_type` items. Rows left wholly
 * blank are dropped; a row needs a field and a known type; a blank new path keeps the name.
 * @param {Array<{path?:string, new_path_name?:string, field_type?:string}>} rows
 * @returns {{value:(Array|undefined), errors:string[]}} value undefined when no row is filled
 */
export function parseFieldTypes(rows) {
  const items = [];
  const errors = [];
  const seen = new Set();
  (rows || []).forEach((r, i) => {
    const path = String(r.path ?? '').trim();
    const newPath = String(r.new_path_name ?? '').trim();
    const type = String(r.field_type ?? '').trim();
    if (!path && !newPath && !type) return;
    const line = `Row ${i + 1}: `;
    if (!path) errors.push(`${line}choose a field.`);
    else if (seen.has(path)) errors.push(`${line}${path} is changed twice.`);
    if (!FIELD_TYPES.includes(type)) errors.push(`${line}choose a type.`);
    if (/\s/.test(newPath)) errors.push(`${line}a new path has no spaces.`);
    seen.add(path);
    const item = { path, field_type: type };
    if (newPath) item.new_path_name = newPath;
    items.push(item);
  });
  return { value: items.length ? items : undefined, errors };
}

/**
 * The request body: the source indices as plain names (the query object, the sample size and
 * the field changes are already what the API takes).
 * @param {object} body the form body of collectBody (formvalues.js)
 */
export function reindexBody(body) {
  return { ...body, indices: (body.indices || []).map((i) => (typeof i === 'string' ? i : i.name)) };
}
