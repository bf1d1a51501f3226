// Form values (gui.md §4.2, §4.3): initial control values from field specs and a resource,
// and the request body collected from them (lines → lists, indices → [{name}], JSON parsed).
// Pure: no DOM, unit-tested with node --test.

/**
 * Field spec:
 * {name, label, type: text|password|email|textarea|lines|number|integer|checkbox|select|
 *  multiselect|json|indices|fields|file|rows, required?, default?,
 *  options?: [{value,label}] or (values) => [{value,label}] (read at each render),
 *  load?: async () => options, hint?: string or (values) => string, rows?, min?, max?, step?,
 *  accept?, showIf?: (values) => bool, emptyAs?: value sent when empty (omitted otherwise),
 *  autocomplete?, textOnly?/noFacts?: a fields picker offers only text fields / no texta_facts,
 *  columns?/parse?: a `rows` editor's cells [{name, label, type: text|integer|select|path}] and
 *  (rows) => {value, errors} turning its rows into the request value (value undefined: empty)}
 */

/** Initial form values from specs and an optional object. */
export function initialValues(fields, initial = {}) {
  const v = {};
  for (const f of fields) {
    const given = getPath(initial, f.name);
    let val = given !== undefined ? given : f.default;
    switch (f.type) {
      case 'lines':
        val = Array.isArray(val) ? val.join('\n') : (val ?? '');
        break;
      case 'checkbox':
        val = val === undefined ? false : !!val;
        break;
      case 'multiselect':
      case 'fields':
        val = Array.isArray(val) ? val.map(String) : [];
        break;
      case 'indices':
        val = Array.isArray(val) ? val.map((x) => (typeof x === 'string' ? x : x.name)) : [];
        break;
      case 'json':
        if (val === undefined || val === null) val = '';
        else if (typeof val !== 'string') val = JSON.stringify(val, null, 2);
        else {
          try { val = JSON.stringify(JSON.parse(val), null, 2); } catch { /* keep as is */ }
        }
        break;
      case 'number':
      case 'integer':
        val = val === undefined || val === null ? '' : String(val);
        break;
      case 'file':
        val = null;
        break;
      case 'rows':
        val = Array.isArray(val) ? val.map((r) => ({ ...r })) : [];
        break;
      default:
        val = val === undefined || val === null ? '' : String(val);
    }
    v[f.name] = val;
  }
  return v;
}

export function getPath(obj, path) {
  let cur = obj;
  for (const k of path.split('.')) {
    if (cur === null || cur === undefined || typeof cur !== 'object') return undefined;
    cur = cur[k];
  }
  return cur;
}

export function setPath(obj, path, value) {
  const keys = path.split('.');
  let cur = obj;
  for (const k of keys.slice(0, -1)) {
    if (!cur[k] || typeof cur[k] !== 'object') cur[k] = {};
    cur = cur[k];
  }
  cur[keys[keys.length - 1]] = value;
}

/** Visible specs for the current values. */
export function visibleFields(fields, values) {
  return fields.filter((f) => !f.showIf || f.showIf(values));
}

/**
 * Collects a request body. Returns {body, errors}: errors holds browser-side problems
 * (required fields, invalid JSON) keyed by field name.
 */
export function collectBody(fields, values) {
  const body = {};
  const errors = {};
  for (const f of visibleFields(fields, values)) {
    const raw = values[f.name];
    let out;
    let empty = false;
    switch (f.type) {
      case 'lines':
        out = String(raw || '').split('\n').map((s) => s.trim()).filter(Boolean);
        empty = out.length === 0;
        break;
      case 'checkbox':
        out = !!raw;
        break;
      case 'multiselect':
        out = f.numeric ? raw.map(Number) : [...raw];
        empty = out.length === 0;
        break;
      case 'fields':
        out = [...raw];
        empty = out.length === 0;
        break;
      case 'indices':
        out = raw.map((name) => ({ name }));
        empty = out.length === 0;
        break;
      case 'json':
        if (String(raw).trim() === '') { empty = true; break; }
        try { out = JSON.parse(raw); } catch (e) { errors[f.name] = [`Not valid JSON: ${e.message}`]; }
        break;
      case 'number':
      case 'integer':
        if (String(raw).trim() === '') { empty = true; break; }
        out = Number(raw);
        break;
      case 'select':
        if (raw === '') { empty = true; break; }
        out = f.numeric ? Number(raw) : raw;
        break;
      case 'file':
        out = raw;
        empty = !raw;
        break;
      case 'rows': {
        const parsed = f.parse(raw);
        if (parsed.errors.length) errors[f.name] = parsed.errors;
        out = parsed.value;
        empty = out === undefined;
        break;
      }
      default:
        out = raw;
        empty = raw === '';
    }
    if (empty) {
      // empty optional fields are left out (server defaults apply); empty required ones are
      // sent empty so the server's own message ("This field is required." etc.) is shown
      if ('emptyAs' in f) setPath(body, f.name, f.emptyAs);
      else if (f.required && f.type !== 'file') setPath(body, f.name, f.type === 'lines' || f.type === 'multiselect' || f.type === 'fields' ? [] : '');
      continue;
    }
    if (out !== undefined) setPath(body, f.name, out);
  }
  return { body, errors };
}

