// Regex taggers page (gui.md §5.4.5): table, create/duplicate/edit dialog, tag text, tag a
// random document, apply to index with its task, and multi-tag text over several taggers.
import { html } from '../preact.js';
import { getAll } from '../api.js';
import { ResourcePage } from '../components/resourcepage.js';
import { TagTextDialog, RegexTagResult, MultiTagResult, DocumentView } from '../components/tagging.js';
import { ApplyDialog, applyAction, appliedTaskColumn } from '../components/apply.js';

export function regexTaggerFields() {
  return [
    { name: 'description', label: 'Description', type: 'text', required: true },
    { name: 'lexicon', label: 'Lexicon', type: 'lines', required: true, rows: 5, hint: 'One word, phrase or pattern per line.' },
    { name: 'counter_lexicon', label: 'Counter lexicon', type: 'lines', rows: 3 },
    { name: 'operator', label: 'Operator', type: 'select', default: 'or', options: [{ value: 'or', label: 'or' }, { value: 'and', label: 'and' }] },
    {
      name: 'match_type', label: 'Match type', type: 'select', default: 'prefix',
      options: ['prefix', 'exact', 'subword'].map((v) => ({ value: v, label: v })),
    },
    { name: 'required_words', label: 'Required words', type: 'number', default: 1.0, step: 0.05, showIf: (v) => v.operator === 'and' },
    { name: 'phrase_slop', label: 'Phrase slop', type: 'integer', default: 0 },
    { name: 'counter_slop', label: 'Counter slop', type: 'integer', default: 0 },
    { name: 'n_allowed_edits', label: 'Allowed edits', type: 'integer', default: 0 },
    { name: 'return_fuzzy_match', label: 'Return fuzzy match', type: 'checkbox', default: true },
    { name: 'ignore_case', label: 'Ignore case', type: 'checkbox', default: true },
    { name: 'ignore_punctuation', label: 'Ignore punctuation', type: 'checkbox', default: true },
  ];
}

function lexiconPreview(lex) {
  const l = lex || [];
  return l.slice(0, 5).join(', ') + (l.length > 5 ? ` …${l.length - 5} more` : '');
}

export function RegexTaggersPage({ route }) {
  const pid = route.params.pid;
  const base = `projects/${pid}/regex_taggers/`;
  const columns = [
    { key: 'id', label: 'ID', order: 'id' },
    { key: 'author_username', label: 'Author', order: 'author__username' },
    { key: 'description', label: 'Description', order: 'description' },
    { key: 'lexicon', label: 'Lexicon', render: (r) => lexiconPreview(r.lexicon) },
    { key: 'operator', label: 'Operator' },
    { key: 'match_type', label: 'Match type' },
    { key: 'tagger_groups', label: 'Groups', render: (r) => (r.tagger_groups || []).map((g) => g.description).join(', ') || '—' },
    appliedTaskColumn(pid),
  ];
  const fields = regexTaggerFields();
  return html`<${ResourcePage} pid=${pid} title="Regex taggers" resource="Regex tagger" collection="regex_taggers"
    columns=${columns} createFields=${fields} editFields=${fields}
    pageActions=${[{ label: 'Multi-tag text', kind: 'multitag' }]}
    rowActions=${(r, open) => [
      { label: 'Tag text', run: () => open('tag') },
      { label: 'Tag random document', run: () => open('random') },
      applyAction(open),
      { label: 'Duplicate', run: () => open('create', { initial: { ...r, description: `${r.description} (copy)` } }) },
    ]}
    dialogs=${{
      tag: (r, ctx) => html`<${TagTextDialog} title=${'Tag text with ' + r.description} url=${`${base}${r.id}/tag_text/`}
        view=${(res, text) => html`<${RegexTagResult} res=${res} text=${text} />`} onClose=${ctx.close} />`,
      random: (r, ctx) => html`<${TagTextDialog} title=${'Tag a random document with ' + r.description} pid=${pid}
        url=${`${base}${r.id}/tag_random_doc/`} submitLabel="Tag random document"
        extraFields=${[
          { name: 'indices', label: 'Indices', type: 'indices', hint: 'None chosen = all project indices.' },
          { name: 'fields', label: 'Fields', type: 'fields', required: true, textOnly: true },
        ]}
        toBody=${(b) => ({ indices: b.indices || [], fields: b.fields })}
        noText=${true}
        view=${(res) => html`<div>${res.result ? html`<p>Matched: ${res.matches.length}</p>` : html`<p class="no-match">No matches found</p>`}
          <${DocumentView} document=${res.document} matches=${res.matches} tagOf=${() => r.description} /></div>`}
        onClose=${ctx.close} />`,
      multitag: (r, ctx) => html`<${TagTextDialog} title="Multi-tag text" pid=${pid} url=${`${base}multitag_text/`}
        extraFields=${[{
          name: 'taggers', label: 'Regex taggers', type: 'multiselect', numeric: true, hint: 'None chosen = all taggers.',
          load: async () => (await getAll(base)).map((t) => ({ value: String(t.id), label: t.description })),
        }]}
        view=${(res, text) => html`<${MultiTagResult} tags=${res} text=${text} />`} onClose=${ctx.close} />`,
      apply: (r, ctx) => html`<${ApplyDialog} collection="regex_taggers" row=${r} ctx=${ctx} />`,
    }} />`;
}
