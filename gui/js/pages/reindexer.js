// Reindexer page (gui.md §5.5.4, collection.md §3): runs copying documents of project indices
// into a new index, with their task cells; a create dialog (source indices, query, new index,
// fields with renames and types, random sample size); Search on the new index once done.
import { html } from '../preact.js';
import { ResourcePage } from '../components/resourcepage.js';
import { href } from '../routes.js';
import { invalidateProject } from '../projectdata.js';
import { loadProjects } from '../session.js';
import { detailUnderField } from '../errors.js';
import { FIELD_TYPES, parseFieldTypes, reindexBody } from '../reindexspec.js';
import { indicesField, queryField, taskColumns } from './models-common.js';

const CREATE = [
  { name: 'description', label: 'Description', type: 'text', required: true },
  { ...indicesField(), label: 'Source indices' },
  queryField(),
  { name: 'new_index', label: 'New index', type: 'text', required: true, hint: 'Lower-case letters, digits, - and _; it must not exist yet.' },
  { name: 'fields', label: 'Fields', type: 'fields', hint: 'None chosen = every field.' },
  {
    name: 'field_type', label: 'Field changes', type: 'rows', addLabel: 'Add field change', parse: parseFieldTypes,
    hint: 'Renames a field in the new index (blank new path: same name) and sets its type there.',
    columns: [
      { name: 'path', label: 'Field', type: 'path', placeholder: 'Choose a field' },
      { name: 'new_path_name', label: 'New path', type: 'text' },
      { name: 'field_type', label: 'Type', type: 'select', placeholder: 'Choose a type', options: FIELD_TYPES.map((t) => ({ value: t, label: t })) },
    ],
  },
  { name: 'random_size', label: 'Random sample size', type: 'integer', default: 0, min: 0, max: 10000, hint: '0 = every selected document.' },
];

export function ReindexerPage({ route }) {
  const pid = route.params.pid;
  // the new index joins the project at create and gets its fields when the run completes
  const refresh = () => { invalidateProject(pid); loadProjects(); };
  const columns = [
    { key: 'id', label: 'ID', order: 'id' },
    { key: 'author_username', label: 'Author', order: 'author__username' },
    { key: 'description', label: 'Description', order: 'description' },
    { key: 'indices', label: 'Source indices', order: 'indices' },
    {
      key: 'new_index', label: 'New index', order: 'new_index',
      render: (r) => html`${r.new_index}${r.task && r.task.status === 'completed'
        ? html`<br /><a href=${href('search', { pid }, { index: r.new_index })} onClick=${() => invalidateProject(pid)}>Search<span
            class="visually-hidden"> ${r.new_index}</span></a>` : null}`,
    },
    { key: 'fields', label: 'Fields', order: 'fields', render: (r) => (r.fields && r.fields.length ? r.fields.join(', ') : 'all') },
    { key: 'random_size', label: 'Random size', order: 'random_size', render: (r) => (r.random_size ? String(r.random_size) : 'all') },
    ...taskColumns(),
  ];
  return html`<${ResourcePage} pid=${pid} title="Reindexer" resource="Reindexer" collection="reindexer"
    columns=${columns} createFields=${CREATE} toBody=${reindexBody} mapError=${detailUnderField('new_index')}
    onCreated=${refresh} noEdit=${true}
    tableProps=${{
      finished: (r) => { refresh(); return `Index ${r.new_index} is ready`; },
      deleteMessage: (r) => `Delete reindexer "${r.description}"? The index ${r.new_index} stays.`,
    }} />`;
}
