// Tag-text dialogs (gui.md §5.4.7) and result views shared by the model pages: a text box,
// a Tag button, and a result area replaced on each run.
import { html, useState } from '../preact.js';
import { post, get } from '../api.js';
import { FormDialog } from './form.js';
import { Highlighter, Chip } from './highlight.js';

/** Marks from regex matches [{str_val, span}] labelled by tag. */
export function matchMarks(tag, matches) {
  return (matches || []).filter((m) => Array.isArray(m.span))
    .map((m) => ({ start: m.span[0], end: m.span[1], label: tag, value: m.str_val }));
}

/** Maps "Model does not exist" to a hint (§5.4.7). */
export function modelMissingHint(norm) {
  if (norm.detail === 'Model does not exist' || norm.detail === 'model does not exist (yet?)') {
    return { ...norm, summary: [norm.detail, 'Training has not finished yet.'] };
  }
  return norm;
}

/**
 * Generic tag-text dialog: posts {text, ...extra fields} to `url`, renders the answer with `view`.
 * @param {{title:string, url:string, extraFields?:Array, view:(res:any, text:string)=>any, onClose:Function, pid?:string, submitLabel?:string, textLabel?:string}} p
 */
export function TagTextDialog(p) {
  const [res, setRes] = useState(null);
  const textField = { name: 'text', label: p.textLabel || 'Text', type: 'textarea', required: true, rows: 4 };
  const fields = p.noText ? (p.extraFields || []) : [textField, ...(p.extraFields || [])];
  return html`<${FormDialog} title=${p.title} fields=${fields} submitLabel=${p.submitLabel || 'Tag'} pid=${p.pid} wide=${true}
    initial=${p.initial || {}}
    onSubmit=${(body) => (p.method === 'GET' ? get(p.url) : post(p.url, p.toBody ? p.toBody(body) : body))}
    onDone=${(r, body) => setRes({ r, text: String(body.text || '') })}
    mapError=${modelMissingHint}
    onClose=${p.onClose}
    result=${res ? html`<section class="result" aria-label="Result" aria-live="polite">${p.view(res.r, res.text)}</section>` : null} />`;
}

/** Result of a regex tagger tag_text. */
export function RegexTagResult({ res, text }) {
  if (!res.result) return html`<p class="no-match">No matches found</p>`;
  return html`<div>
    <p class="chips"><${Chip} label=${res.tag}>${res.tag}<//></p>
    <${Highlighter} text=${text.trim()} marks=${matchMarks(res.tag, res.matches)} legend=${false} />
  </div>`;
}

/** Result of a regex tagger group tag_text / multitag results ([{tag, matches}]). */
export function MultiTagResult({ tags, text, groupTag }) {
  if (!tags || !tags.length) return html`<p class="no-match">No matches found</p>`;
  const marks = tags.flatMap((t) => matchMarks(t.tag, t.matches));
  return html`<div>
    ${groupTag ? html`<p>Group <strong>${groupTag}</strong>: ${tags.length} tag${tags.length === 1 ? '' : 's'} matched</p>` : null}
    <${Highlighter} text=${text.trim()} marks=${marks} />
  </div>`;
}

/** A flattened document with per-field highlighted matches (tag_random_doc answers). */
export function DocumentView({ document, matches, tagOf }) {
  const entries = Object.entries(document || {});
  if (!entries.length) return html`<p>No document.</p>`;
  return html`<dl class="details">${entries.map(([k, v]) => {
    const ms = (matches || []).filter((m) => m.field === k);
    return html`<div key=${k}><dt>${k}</dt><dd>${typeof v === 'string' && ms.length
      ? html`<${Highlighter} text=${v} marks=${ms.map((m) => ({ start: m.span[0], end: m.span[1], label: tagOf(m), value: m.str_val }))} />`
      : html`<pre>${typeof v === 'string' ? v : JSON.stringify(v, null, 2)}</pre>`}</dd></div>`;
  })}</dl>`;
}

/** Probability as a percentage with two decimals. */
export function pct(p) {
  return typeof p === 'number' ? `${(p * 100).toFixed(2)} %` : '—';
}
