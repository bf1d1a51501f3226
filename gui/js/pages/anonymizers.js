// Anonymizers page (gui.md §5.5.2): table with flags, create/edit dialog, anonymize text
// (names as "Last, First" lines) and anonymize several texts separated by "---" lines.
import { html } from '../preact.js';
import { ResourcePage } from '../components/resourcepage.js';
import { TagTextDialog } from '../components/tagging.js';

const FIELDS = [
  { name: 'description', label: 'Description', type: 'text', required: true },
  { name: 'replace_misspelled_names', label: 'Replace misspelled names', type: 'checkbox', default: true },
  { name: 'replace_single_last_names', label: 'Replace single last names', type: 'checkbox', default: true },
  { name: 'replace_single_first_names', label: 'Replace single first names', type: 'checkbox', default: true },
  { name: 'mimic_casing', label: 'Mimic casing', type: 'checkbox', default: true },
  { name: 'auto_adjust_threshold', label: 'Auto-adjust threshold', type: 'checkbox', default: false },
  { name: 'misspelling_threshold', label: 'Misspelling threshold', type: 'number', default: 0.9, min: 0, max: 1, step: 0.05 },
];

const flag = (v) => (v ? '✓' : '—');

function Output({ text }) {
  const copy = () => { if (navigator.clipboard) navigator.clipboard.writeText(text).catch(() => {}); };
  return html`<div class="output">
    <label for="anon-output">Output</label>
    <textarea id="anon-output" readonly rows="4" value=${text}></textarea>
    <button type="button" class="secondary small" onClick=${copy}>Copy</button>
  </div>`;
}

export function AnonymizersPage({ route }) {
  const pid = route.params.pid;
  const base = `projects/${pid}/anonymizers/`;
  const columns = [
    { key: 'id', label: 'ID', order: 'id' },
    { key: 'description', label: 'Description', order: 'description' },
    { key: 'misspelling_threshold', label: 'Misspelling threshold' },
    { key: 'replace_misspelled_names', label: 'Misspelled', render: (r) => flag(r.replace_misspelled_names) },
    { key: 'replace_single_last_names', label: 'Single last', render: (r) => flag(r.replace_single_last_names) },
    { key: 'replace_single_first_names', label: 'Single first', render: (r) => flag(r.replace_single_first_names) },
    { key: 'mimic_casing', label: 'Mimic casing', render: (r) => flag(r.mimic_casing) },
    { key: 'auto_adjust_threshold', label: 'Auto-adjust', render: (r) => flag(r.auto_adjust_threshold) },
  ];
  const names = { name: 'names', label: 'Names', type: 'lines', required: true, rows: 3, hint: 'One name per line as "Last, First".' };
  return html`<${ResourcePage} pid=${pid} title="Anonymizers" resource="Anonymizer" collection="anonymizers"
    columns=${columns} createFields=${FIELDS} editFields=${FIELDS}
    rowActions=${(r, open) => [
      { label: 'Anonymize text', run: () => open('text') },
      { label: 'Anonymize texts', run: () => open('texts') },
    ]}
    dialogs=${{
      text: (r, ctx) => html`<${TagTextDialog} title=${'Anonymize text with ' + r.description} url=${`${base}${r.id}/anonymize_text/`}
        submitLabel="Anonymize" extraFields=${[names]}
        view=${(res) => html`<${Output} text=${String(res)} />`} onClose=${ctx.close} />`,
      texts: (r, ctx) => html`<${TagTextDialog} title=${'Anonymize texts with ' + r.description} url=${`${base}${r.id}/anonymize_texts/`}
        submitLabel="Anonymize" textLabel="Texts (separate texts with a line holding ---)"
        extraFields=${[names, { name: 'consistent_replacement', label: 'Consistent replacement', type: 'checkbox', default: true }]}
        toBody=${(b) => ({
          texts: String(b.text).split(/^---$/m).map((t) => t.trim()).filter(Boolean),
          names: b.names, consistent_replacement: b.consistent_replacement,
        })}
        view=${(res) => html`<ol class="outputs">${(res || []).map((t, i) => html`<li key=${i}><pre>${t}</pre></li>`)}</ol>`}
        onClose=${ctx.close} />`,
    }} />`;
}
