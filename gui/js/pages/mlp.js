// Language processing page (gui.md §5.5.3): POST /mlp/texts/ for one text; language, the
// Token / Lemma / POS table, facts highlighted in the tokenized text and a facts table.
import { html, useState } from '../preact.js';
import { post } from '../api.js';
import { useFormState, Fields, FormSummary, showApiError, collectBody } from '../components/form.js';
import { Highlighter } from '../components/highlight.js';
import { factMarks } from '../spans.js';

const ANALYZERS = ['lemmas', 'pos_tags', 'transliteration', 'ner', 'contacts', 'entities', 'namemail', 'bounded'];
const FIELDS = [
  { name: 'text', label: 'Text', type: 'textarea', required: true, rows: 5 },
  {
    name: 'analyzers', label: 'Analyzers', type: 'multiselect', hint: 'None chosen = all.',
    options: ANALYZERS.map((a) => ({ value: a, label: a })),
  },
];

function Result({ item }) {
  const t = item.text || {};
  const tokens = String(t.text || '').split(' ').filter((x) => x !== '');
  const lemmas = t.lemmas !== undefined ? String(t.lemmas).split(' ').filter((x) => x !== '') : null;
  const pos = t.pos_tags !== undefined ? String(t.pos_tags).split(' ').filter((x) => x !== '') : null;
  const facts = item.texta_facts || item.service_facts || [];
  const marks = factMarks(facts.map((f) => ({ ...f, doc_path: 'text.text' })), 'text.text');
  return html`<section class="result" aria-label="Result">
    <p>Language: <strong data-testid="mlp-lang">${t.lang}</strong></p>
    <div class="table-scroll"><table class="tokens">
      <tbody>
        <tr><th scope="row">Token</th>${tokens.map((x, i) => html`<td key=${i}>${x}</td>`)}</tr>
        ${lemmas ? html`<tr><th scope="row">Lemma</th>${lemmas.map((x, i) => html`<td key=${i}>${x}</td>`)}</tr>` : null}
        ${pos ? html`<tr><th scope="row">POS</th>${pos.map((x, i) => html`<td key=${i}>${x}</td>`)}</tr>` : null}
      </tbody>
    </table></div>
    <h2>Facts</h2>
    ${facts.length ? html`<${Highlighter} text=${t.text || ''} marks=${marks} />
      <table><thead><tr><th scope="col">Fact</th><th scope="col">Value</th><th scope="col">Spans</th></tr></thead>
      <tbody>${facts.map((f, i) => html`<tr key=${i}><td>${f.fact}</td><td>${f.str_val}</td><td>${typeof f.spans === 'string' ? f.spans : JSON.stringify(f.spans)}</td></tr>`)}</tbody></table>`
      : html`<p>No facts found.</p>`}
  </section>`;
}

export function MlpPage() {
  const form = useFormState(FIELDS, {});
  const [busy, setBusy] = useState(false);
  const [res, setRes] = useState(null);
  const submit = async (e) => {
    e.preventDefault();
    form.setSummary([]);
    form.setErrors({});
    const { body } = collectBody(FIELDS, form.values);
    const req = { texts: [body.text] };
    if (body.analyzers && body.analyzers.length) req.analyzers = body.analyzers;
    setBusy(true);
    try {
      const out = await post('mlp/texts/', req);
      setRes(out && out[0]);
    } catch (err) {
      // the text is sent as texts[0]: show its item errors under Text
      const e2 = err && err.norm && err.norm.fields.texts
        ? { ...err, norm: { ...err.norm, fields: { text: err.norm.fields.texts.map((m) => m.replace(/^Line 1: /, '')) } } } : err;
      showApiError(form, FIELDS, e2);
    }
    setBusy(false);
  };
  return html`<section>
    <h1>Language processing</h1>
    <form onSubmit=${submit} aria-busy=${busy ? 'true' : null}>
      <${FormSummary} messages=${form.summary} />
      <${Fields} fields=${FIELDS} form=${form} idPrefix="mlp" />
      <button type="submit" disabled=${busy} aria-busy=${busy ? 'true' : null}>Process</button>
    </form>
    ${res ? html`<${Result} item=${res} />` : null}
  </section>`;
}
