// A form control of rows (gui.md §4.2): a labelled group holding one line of cells per row,
// with Add and Remove buttons — the reindexer's field changes, the index splitter's quotas.
// Cells are text, integer, select (fixed options) or path (a field of the chosen indices).
import { html, useState, useEffect } from '../preact.js';
import { getFields, fieldPaths } from '../projectdata.js';

function usePaths(spec, pid, values) {
  const wanted = spec.columns.some((c) => c.type === 'path');
  const [groups, setGroups] = useState(null);
  useEffect(() => {
    if (!wanted) return undefined;
    let live = true;
    getFields(pid).then((g) => { if (live) setGroups(g); }, () => { if (live) setGroups([]); });
    return () => { live = false; };
  }, [pid, wanted]);
  // the copied fields when some are chosen, else every field of the chosen indices
  return values.fields && values.fields.length ? values.fields : fieldPaths(groups, values.indices || []);
}

function Cell({ col, row, i, paths, onCell, invalid }) {
  const label = `${col.label}, row ${i + 1}`;
  const value = row[col.name] ?? '';
  const common = { name: `${col.name}-${i}`, 'aria-label': label, 'aria-invalid': invalid ? 'true' : null };
  if (col.type === 'select' || col.type === 'path') {
    const opts = col.type === 'path' ? paths.map((p) => ({ value: p, label: p })) : col.options || [];
    return html`<select ...${common} value=${value} onChange=${(e) => onCell(i, col.name, e.target.value)}>
      ${col.placeholder !== undefined ? html`<option value="">${col.placeholder}</option>` : null}
      ${opts.map((o) => html`<option key=${o.value} value=${o.value} selected=${String(o.value) === String(value)}>${o.label}</option>`)}
    </select>`;
  }
  return html`<input type=${col.type === 'integer' ? 'number' : 'text'} ...${common} value=${value}
    min=${col.type === 'integer' ? 0 : null} step=${col.type === 'integer' ? 1 : null}
    onInput=${(e) => onCell(i, col.name, e.target.value)} />`;
}

/**
 * The rows control of a `rows` field spec; `value` is the list of row objects.
 * `errors` naming rows ("Row 2: …") mark those rows invalid; others mark every row.
 * @param {{spec:object, value:Array, values:object, onChange:Function, id:string, described:(string|null),
 *   errors:string[], req:any, hint:any, errBox:any, pid:string}} p
 */
export function RowsField({ spec, value, values, onChange, id, described, errors, req, hint, errBox, pid }) {
  const paths = usePaths(spec, pid, values);
  const perRow = errors.length > 0 && errors.every((m) => /^Row \d+: /.test(m));
  const invalid = (i) => errors.length > 0 && (!perRow || errors.some((m) => m.startsWith(`Row ${i + 1}: `)));
  const rows = value || [];
  const blank = () => Object.fromEntries(spec.columns.map((c) => [c.name, c.default ?? '']));
  const set = (next) => onChange(spec.name, next);
  const onCell = (i, name, v) => set(rows.map((r, j) => (j === i ? { ...r, [name]: v } : r)));
  return html`<fieldset class="field rows-field" id=${id} aria-describedby=${described}>
    <legend class="label-row">${spec.label}${req}</legend>
    ${rows.length ? html`<table class="rows-table">
      <thead><tr>${spec.columns.map((c) => html`<th scope="col" key=${c.name}>${c.label}</th>`)}
        <th scope="col"><span class="visually-hidden">Remove</span></th></tr></thead>
      <tbody>${rows.map((r, i) => html`<tr key=${i}>
        ${spec.columns.map((c) => html`<td key=${c.name}><${Cell} col=${c} row=${r} i=${i} paths=${paths} onCell=${onCell} invalid=${invalid(i)} /></td>`)}
        <td><button type="button" class="icon small secondary" aria-label=${`Remove row ${i + 1}`}
          onClick=${() => set(rows.filter((_, j) => j !== i))}>×</button></td>
      </tr>`)}</tbody>
    </table>` : null}
    <button type="button" class="secondary small" onClick=${() => set([...rows, blank()])}>${spec.addLabel || 'Add row'}</button>
    ${hint}${errBox}
  </fieldset>`;
}
