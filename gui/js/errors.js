// Error normalisation (gui.md §6): turns any failed API answer into {summary, fields, detail}
// that forms, dialogs and toasts render. Pure: no DOM, no fetch, unit-tested with node --test.

/** 403 details that mean the token is gone (gui.md §3.4). */
export const SESSION_END_DETAILS = [
  'Invalid token.',
  'Authentication credentials were not provided.',
  'User inactive or deleted.',
];

/** True when an answer means the session has ended and the GUI must log out locally. */
export function isSessionEnd(status, body) {
  return status === 403 && body !== null && typeof body === 'object' && !Array.isArray(body)
    && SESSION_END_DETAILS.includes(body.detail);
}

function isMessageList(v) {
  return Array.isArray(v) && v.every((m) => typeof m === 'string');
}

function isIndexKeyed(obj) {
  const keys = Object.keys(obj);
  return keys.length > 0 && keys.every((k) => /^\d+$/.test(k));
}

function addField(fields, path, msgs) {
  if (!fields[path]) fields[path] = [];
  fields[path].push(...msgs);
}

// Flattens one field value of a DRF error body into fields[path].
function walk(fields, summary, path, value) {
  if (isMessageList(value)) {
    addField(fields, path, value);
  } else if (typeof value === 'string') {
    addField(fields, path, [value]);
  } else if (Array.isArray(value)) {
    // many nested serializer: one object per item, {} for valid ones
    value.forEach((item, i) => {
      if (item && typeof item === 'object' && !Array.isArray(item)) {
        for (const [sub, msgs] of Object.entries(item)) {
          const list = isMessageList(msgs) ? msgs : [JSON.stringify(msgs)];
          addField(fields, path, list.map((m) => `item ${i + 1}: ${sub}: ${m}`));
        }
      } else if (item !== null && item !== undefined) {
        addField(fields, path, [`item ${i + 1}: ${String(item)}`]);
      }
    });
  } else if (value && typeof value === 'object') {
    if (isIndexKeyed(value)) {
      for (const [k, msgs] of Object.entries(value)) {
        const list = isMessageList(msgs) ? msgs : [JSON.stringify(msgs)];
        addField(fields, path, list.map((m) => `Line ${Number(k) + 1}: ${m}`));
      }
    } else {
      for (const [sub, v] of Object.entries(value)) {
        if (sub === 'non_field_errors') walk(fields, summary, path, v);
        else walk(fields, summary, `${path}.${sub}`, v);
      }
    }
  } else if (value !== null && value !== undefined) {
    addField(fields, path, [String(value)]);
  }
}

/**
 * Normalises a failed answer.
 * @param {number} status HTTP status, 0 for a network failure
 * @param {*} body parsed JSON body, or undefined when the body was not JSON
 * @param {string} [statusText]
 * @returns {{status:number, summary:string[], fields:Object<string,string[]>, detail:(string|null)}}
 */
export function normalizeError(status, body, statusText = '') {
  const out = { status, summary: [], fields: {}, detail: null };
  if (status === 0) {
    out.summary.push('Cannot reach the server');
    return out;
  }
  if (body === undefined) {
    out.summary.push(`HTTP ${status}${statusText ? ' ' + statusText : ''}`);
    return out;
  }
  if (Array.isArray(body) && isMessageList(body)) {
    out.summary.push(...body);
    return out;
  }
  if (body && typeof body === 'object' && !Array.isArray(body)) {
    const keys = Object.keys(body);
    if (keys.length === 1 && (keys[0] === 'detail' || keys[0] === 'error') && typeof body[keys[0]] === 'string') {
      out.detail = body[keys[0]];
      out.summary.push(out.detail);
      return out;
    }
    for (const [key, value] of Object.entries(body)) {
      if (key === 'non_field_errors') {
        if (isMessageList(value)) out.summary.push(...value);
        else out.summary.push(JSON.stringify(value));
      } else if ((key === 'detail' || key === 'error') && typeof value === 'string') {
        out.detail = out.detail ?? value;
        out.summary.push(value);
      } else {
        walk(out.fields, out.summary, key, value);
      }
    }
    return out;
  }
  out.summary.push(`HTTP ${status}: ${typeof body === 'string' ? body : JSON.stringify(body)}`);
  return out;
}

/**
 * Splits a normalised error for a form: messages for fields the form has a control for stay
 * under that control; the rest go to the summary as `field: m` (nested: `a › b: m`).
 * @param {{summary:string[], fields:Object<string,string[]>}} norm
 * @param {string[]} controlNames names of the form's controls
 * @returns {{summary:string[], fields:Object<string,string[]>}}
 */
export function splitForForm(norm, controlNames) {
  const names = new Set(controlNames);
  const summary = [...norm.summary];
  const fields = {};
  for (const [path, msgs] of Object.entries(norm.fields)) {
    if (names.has(path)) fields[path] = msgs;
    else summary.push(...msgs.map((m) => `${path.split('.').join(' › ')}: ${m}`));
  }
  return { summary, fields };
}

/**
 * A `mapError` (form.js) putting a lone `detail` answer under the control `name`: index-name
 * rules answer `{"detail"}` (conventions.md §9), which belongs beside the name's field.
 * @param {string} name
 */
export function detailUnderField(name) {
  return (norm) => (norm.detail && !Object.keys(norm.fields).length
    ? { ...norm, summary: [], fields: { [name]: [norm.detail] } } : norm);
}

/** One line for a toast. */
export function errorText(norm) {
  const lines = [...norm.summary];
  for (const [path, msgs] of Object.entries(norm.fields)) {
    lines.push(...msgs.map((m) => `${path.split('.').join(' › ')}: ${m}`));
  }
  return lines.join('\n');
}
