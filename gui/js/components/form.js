// Form building blocks (gui.md §4.2, §4.3): a field spec renders a labelled control with its
// errors; values are collected into a request body; FormDialog submits and shows DRF errors
// per §6 (summary on top, messages under their control).
import { html, useState, useEffect, useRef } from '../preact.js';
import { splitForForm } from '../errors.js';
import { getIndices, getFields } from '../projectdata.js';
import { Dialog } from './dialog.js';
import { RowsField } from './rows.js';
import { initialValues, visibleFields, collectBody } from '../formvalues.js';

export { initialValues, visibleFields, collectBody };


let formSeq = 0;

/** The form summary: messages that belong to no control (role=alert). */
export function FormSummary({ messages }) {
  if (!messages || !messages.length) return null;
  return html`<div class="form-summary" role="alert" data-testid="form-summary">
    ${messages.map((m, i) => html`<p key=${i}>${m}</p>`)}
  </div>`;
}

/** A control's options: loaded (indices, fields, `load`), or the spec's own, read afresh at
 * each render (a list, or a function of the form's values). */
function useOptions(spec, pid, values) {
  const [opts, setOpts] = useState(null);
  const indicesKey = spec.type === 'fields' ? JSON.stringify(values.indices || []) : '';
  useEffect(() => {
    let live = true;
    let p = null;
    if (spec.type === 'indices') p = getIndices(pid).then((names) => names.map((n) => ({ value: n, label: n })));
    else if (spec.type === 'fields') {
      p = getFields(pid).then((groups) => {
        const chosen = values.indices || [];
        return groups.filter((g) => !chosen.length || chosen.includes(g.index)).map((g) => ({
          group: g.index,
          options: (g.fields || []).filter((f) => (!spec.textOnly || f.type === 'text') && (!spec.noFacts || f.type !== 'fact'))
            .map((f) => ({ value: f.path, label: `${f.path} (${f.type})` })),
        }));
      });
    } else if (spec.load) p = spec.load();
    if (p) p.then((o) => { if (live) setOpts(o); }, () => { if (live) setOpts([]); });
    return () => { live = false; };
  }, [spec.name, pid, indicesKey]);
  if (typeof spec.options === 'function') return spec.options(values);
  // fixed options may arrive after the dialog opened (a collection's OPTIONS choices)
  return spec.options || opts;
}

/** One labelled control with its error messages. */
export function Field({ spec, value, values, onChange, errors, idPrefix, pid }) {
  const id = `${idPrefix}-${spec.name.replace(/\./g, '-')}`;
  const errId = `${id}-err`;
  const hintId = `${id}-hint`;
  const hasErr = errors && errors.length > 0;
  const hintText = typeof spec.hint === 'function' ? spec.hint(values) : spec.hint;
  const described = [hasErr ? errId : null, hintText ? hintId : null].filter(Boolean).join(' ') || null;
  const needsOpts = ['select', 'multiselect', 'indices', 'fields'].includes(spec.type);
  const opts = needsOpts ? useOptions(spec, pid, values) : null;
  const common = {
    id, name: spec.name, required: spec.required && spec.type !== 'indices' ? true : null,
    'aria-invalid': hasErr ? 'true' : null, 'aria-describedby': described,
  };
  const req = spec.required ? html`<span class="req" aria-hidden="true" title="required">*</span>` : null;
  const errBox = hasErr ? html`<small id=${errId} class="field-error" data-testid=${'field-error-' + spec.name}>
      ${errors.map((m, i) => html`<span key=${i}>${m}</span>`)}</small>` : null;
  const hint = hintText ? html`<small id=${hintId} class="hint">${hintText}</small>` : null;

  if (spec.type === 'rows') {
    return html`<${RowsField} spec=${spec} value=${value} values=${values} onChange=${onChange} id=${id}
      described=${described} errors=${hasErr ? errors : []} req=${req} hint=${hint} errBox=${errBox} pid=${pid} />`;
  }
  if (spec.type === 'checkbox') {
    return html`<div class="field field-check compact">
      <label for=${id}><input type="checkbox" ...${common} checked=${!!value}
        onChange=${(e) => onChange(spec.name, e.target.checked)} /> ${spec.label}</label>
      ${hint}${errBox}</div>`;
  }
  let control;
  switch (spec.type) {
    case 'textarea':
    case 'lines':
    case 'json':
      control = html`<textarea ...${common} rows=${spec.rows || (spec.type === 'json' ? 5 : 4)}
        spellcheck=${spec.type === 'json' ? 'false' : null}
        value=${value} onInput=${(e) => onChange(spec.name, e.target.value)}></textarea>`;
      break;
    case 'select':
      control = html`<select ...${common} value=${value} onChange=${(e) => onChange(spec.name, e.target.value)}>
        ${spec.placeholder !== undefined ? html`<option value="">${spec.placeholder}</option>` : null}
        ${(opts || []).map((o) => html`<option key=${o.value} value=${o.value} selected=${String(o.value) === String(value)}>${o.label}</option>`)}
      </select>`;
      break;
    case 'multiselect':
    case 'indices':
    case 'fields': {
      const sel = new Set((value || []).map(String));
      const onSel = (e) => onChange(spec.name, Array.from(e.target.selectedOptions).map((o) => o.value));
      const renderOpt = (o) => html`<option key=${o.value} value=${o.value} selected=${sel.has(String(o.value))}>${o.label}</option>`;
      const list = opts || [];
      const size = Math.min(6, Math.max(3, list.reduce((n, o) => n + (o.options ? o.options.length + 1 : 1), 0)));
      control = html`<select ...${common} multiple size=${size} onChange=${onSel} aria-busy=${opts === null ? 'true' : null}>
        ${list.map((o) => (o.options
          ? html`<optgroup key=${o.group} label=${o.group}>${o.options.map(renderOpt)}</optgroup>`
          : renderOpt(o)))}
      </select>`;
      break;
    }
    case 'file':
      control = html`<input type="file" ...${common} accept=${spec.accept || null}
        onChange=${(e) => onChange(spec.name, e.target.files && e.target.files[0] ? e.target.files[0] : null)} />`;
      break;
    case 'number':
    case 'integer':
      control = html`<input type="number" ...${common} value=${value} min=${spec.min ?? null} max=${spec.max ?? null}
        step=${spec.step ?? (spec.type === 'integer' ? 1 : 'any')} onInput=${(e) => onChange(spec.name, e.target.value)} />`;
      break;
    default:
      control = html`<input type=${spec.type || 'text'} ...${common} value=${value}
        autocomplete=${spec.autocomplete || null}
        onInput=${(e) => onChange(spec.name, e.target.value)} />`;
  }
  const compact = ['number', 'integer', 'select'].includes(spec.type) || spec.compact;
  return html`<div class=${compact ? 'field compact' : 'field'}>
    <div class="label-row"><label for=${id}>${spec.label}</label>${req}</div>
    ${control}${hint}${errBox}
  </div>`;
}

/** Form state: values, per-field errors, summary; editing a field clears its errors. */
export function useFormState(fields, initial) {
  const [values, setValues] = useState(() => initialValues(fields, initial));
  const [errors, setErrors] = useState({});
  const [summary, setSummary] = useState([]);
  const onChange = (name, v) => {
    setValues((old) => ({ ...old, [name]: v }));
    setErrors((old) => {
      if (!old[name]) return old;
      const n = { ...old };
      delete n[name];
      return n;
    });
  };
  return { values, setValues, errors, setErrors, summary, setSummary, onChange };
}

/** Renders a list of field specs. */
export function Fields({ fields, form, idPrefix, pid }) {
  return html`<div class="fields">${visibleFields(fields, form.values).map((f) => html`<${Field} key=${f.name} spec=${f}
    value=${form.values[f.name]} values=${form.values} onChange=${form.onChange}
    errors=${form.errors[f.name]} idPrefix=${idPrefix} pid=${pid} />`)}</div>`;
}

/** Applies an ApiError to a form (errors.js §6 rules); `mapError` may move messages first. */
export function showApiError(form, fields, err, mapError) {
  if (!err || !err.norm) {
    form.setSummary([String(err && err.message ? err.message : err)]);
    return;
  }
  let norm = err.norm;
  if (mapError) norm = mapError(norm) || norm;
  const names = visibleFields(fields, form.values).map((f) => f.name);
  const split = splitForForm(norm, names);
  form.setErrors(split.fields);
  form.setSummary(split.summary);
}

/**
 * A dialog holding a form. onSubmit(body, values) returns a promise; on success the dialog
 * calls onDone(result); on failure it stays open with the errors shown.
 */
export function FormDialog({ title, fields, initial, submitLabel = 'Save', onSubmit, onDone, onClose, pid,
  mapError, children, busyContent, wide, result }) {
  const form = useFormState(fields, initial);
  const [busy, setBusy] = useState(false);
  const idPrefix = useRef(`form${++formSeq}`).current;
  const submit = async (e) => {
    e.preventDefault();
    form.setSummary([]);
    const { body, errors } = collectBody(fields, form.values);
    if (Object.keys(errors).length) {
      form.setErrors(errors);
      return;
    }
    form.setErrors({});
    setBusy(true);
    try {
      const res = await onSubmit(body, form.values);
      setBusy(false);
      if (onDone) onDone(res, body);
    } catch (err) {
      setBusy(false);
      showApiError(form, fields, err, mapError);
    }
  };
  return html`<${Dialog} title=${title} onClose=${onClose} wide=${wide}>
    <form onSubmit=${submit} aria-busy=${busy ? 'true' : null} novalidate=${false}>
      <${FormSummary} messages=${form.summary} />
      <${Fields} fields=${fields} form=${form} idPrefix=${idPrefix} pid=${pid} />
      ${busy && busyContent ? busyContent : null}
      ${busy && !busyContent ? html`<progress aria-label="Working"></progress>` : null}
      <div class="form-buttons">
        <button type="button" class="secondary" onClick=${onClose}>Cancel</button>
        <button type="submit" disabled=${busy} aria-busy=${busy ? 'true' : null}>${submitLabel}</button>
      </div>
    </form>
    ${result || null}
    ${children || null}
  <//>`;
}
