// Regex tagger groups page (gui.md §5.4.6): members as chips, "Not applied" / task cell,
// tag text, apply to index (task-backed), tag random document, multi-tag text.
import { html } from '../preact.js';
import { getAll } from '../api.js';
import { ResourcePage } from '../components/resourcepage.js';
import { Chip } from '../components/highlight.js';
import { TagTextDialog, MultiTagResult, DocumentView } from '../components/tagging.js';
import { ApplyDialog, applyAction, appliedTaskColumn } from '../components/apply.js';

export function RegexTaggerGroupsPage({ route }) {
  const pid = route.params.pid;
  const base = `projects/${pid}/regex_tagger_groups/`;
  const loadTaggers = async () => (await getAll(`projects/${pid}/regex_taggers/`))
    .map((t) => ({ value: String(t.id), label: t.description }));
  const fields = [
    { name: 'description', label: 'Description', type: 'text', required: true, hint: 'Also the fact name the group writes.' },
    { name: 'regex_taggers', label: 'Regex taggers', type: 'multiselect', numeric: true, required: true, load: loadTaggers },
  ];
  const columns = [
    { key: 'id', label: 'ID', order: 'id' },
    { key: 'author_username', label: 'Author', order: 'author__username' },
    { key: 'description', label: 'Description', order: 'description' },
    {
      key: 'members', label: 'Members',
      render: (r) => html`<span class="chips">${(r.tagger_info || []).map((t) => html`<${Chip} key=${t.tagger_id} label=${t.description} />`)}</span>`,
    },
    appliedTaskColumn(pid),
  ];
  return html`<${ResourcePage} pid=${pid} title="Regex tagger groups" resource="Regex tagger group" collection="regex_tagger_groups"
    columns=${columns} createFields=${fields} editFields=${fields}
    editInitial=${(r) => ({ ...r, regex_taggers: (r.regex_taggers || []).map(String) })}
    pageActions=${[{ label: 'Multi-tag text', kind: 'multitag' }]}
    rowActions=${(r, open) => [
      { label: 'Tag text', run: () => open('tag') },
      applyAction(open),
      { label: 'Tag random document', run: () => open('random') },
    ]}
    dialogs=${{
      tag: (r, ctx) => html`<${TagTextDialog} title=${'Tag text with ' + r.description} url=${`${base}${r.id}/tag_text/`}
        view=${(res, text) => html`<${MultiTagResult} tags=${res.result ? res.tags : []} text=${text} groupTag=${res.result ? res.tagger_group_tag : null} />`}
        onClose=${ctx.close} />`,
      apply: (r, ctx) => html`<${ApplyDialog} collection="regex_tagger_groups" row=${r} ctx=${ctx} />`,
      random: (r, ctx) => html`<${TagTextDialog} title=${'Tag a random document with ' + r.description} pid=${pid}
        url=${`${base}${r.id}/tag_random_doc/`} submitLabel="Tag random document" noText=${true}
        extraFields=${[
          { name: 'indices', label: 'Indices', type: 'indices', hint: 'None chosen = all project indices.' },
          { name: 'fields', label: 'Fields', type: 'fields', required: true, textOnly: true },
        ]}
        toBody=${(b) => ({ indices: b.indices || [], fields: b.fields })}
        view=${(res) => html`<div>${res.result ? null : html`<p class="no-match">No matches found</p>`}
          <${DocumentView} document=${res.document} matches=${(res.tags || []).flatMap((t) => (t.matches || []).map((m) => ({ ...m, tag: t.tag })))}
            tagOf=${(m) => m.tag} /></div>`}
        onClose=${ctx.close} />`,
      multitag: (r, ctx) => html`<${TagTextDialog} title="Multi-tag text with groups" pid=${pid} url=${`${base}multitag_text/`}
        extraFields=${[{
          name: 'tagger_groups', label: 'Regex tagger groups', type: 'multiselect', numeric: true, hint: 'None chosen = all groups.',
          load: async () => (await getAll(base)).map((g) => ({ value: String(g.id), label: g.description })),
        }]}
        view=${(res, text) => html`<${MultiTagResult} tags=${res.flatMap((g) => g.tags.map((t) => ({ ...t, tag: `${g.tagger_group_tag}: ${t.tag}` })))} text=${text} />`}
        onClose=${ctx.close} />`,
    }} />`;
}
