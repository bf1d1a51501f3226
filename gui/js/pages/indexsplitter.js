// Index splitter page (collection.md §4): runs splitting documents of project indices into a
// train and a test index, with their task cells; a create dialog (distribution from the
// collection's OPTIONS choices, test size, the labelling fact, quotas per label); the document
// counts of both new indices once a run is done.
import { html } from '../preact.js';
import { post } from '../api.js';
import { ResourcePage } from '../components/resourcepage.js';
import { useAsync, useChoices } from '../components/hooks.js';
import { invalidateProject } from '../projectdata.js';
import { loadProjects } from '../session.js';
import { errorText } from '../errors.js';
import { needsFact, perLabel, testSizeHint, parseQuotas, splitBody, countBody } from '../splitspec.js';
import { indicesField, queryField, taskColumns } from './models-common.js';

function createFields(pid, distributions) {
  return [
    { name: 'description', label: 'Description', type: 'text', required: true },
    indicesField(),
    queryField(),
    { name: 'fields', label: 'Fields', type: 'fields', hint: 'None chosen = every field.' },
    { name: 'train_index', label: 'Train index', type: 'text', required: true, hint: 'A new index: lower-case letters, digits, - and _.' },
    { name: 'test_index', label: 'Test index', type: 'text', required: true, hint: 'A new index, other than the train index.' },
    {
      name: 'distribution', label: 'Distribution', type: 'select', default: 'random',
      options: distributions.map((d) => ({ value: d, label: d })),
    },
    {
      name: 'test_size', label: 'Test size', type: 'integer', default: 20, min: 1, max: 10000,
      hint: (v) => testSizeHint(v.distribution), showIf: (v) => v.distribution !== 'custom',
    },
    {
      name: 'fact', label: 'Fact', type: 'select', required: true, placeholder: 'Choose a fact',
      hint: 'Its values label the documents; documents without it go to neither index.',
      showIf: (v) => needsFact(v.distribution),
      load: async () => (await post(`projects/${pid}/get_facts/`, {})).map((f) => ({ value: f.name, label: f.name })),
    },
    { name: 'str_val', label: 'Fact value', type: 'text', hint: 'Only documents with this value; empty = every value.', showIf: (v) => needsFact(v.distribution) },
    {
      name: 'custom_distribution', label: 'Quotas', type: 'rows', addLabel: 'Add label', parse: parseQuotas,
      default: [{ label: '', count: '' }], showIf: (v) => v.distribution === 'custom',
      hint: 'Test documents per label (a value of the fact); labels not named get none.',
      columns: [{ name: 'label', label: 'Label', type: 'text' }, { name: 'count', label: 'Test documents', type: 'integer' }],
    },
  ];
}

const countOf = (res) => (res.count && typeof res.count === 'object' ? res.count.value : res.count);

/** An index name with, once its run completed, how many documents it holds. */
function IndexWithCount({ pid, index, done }) {
  const count = useAsync(async () => (done ? countOf(await post(`projects/${pid}/search_by_query/`, countBody(index))) : null), [pid, index, done]);
  let note = null;
  if (done && count.error) note = html`<span class="field-error">${count.error.norm ? errorText(count.error.norm) : String(count.error)}</span>`;
  else if (done && count.data !== null) note = html`<small data-testid="doc-count">${count.data} document${count.data === 1 ? '' : 's'}</small>`;
  return html`${index}${note ? html`<br />${note}` : null}`;
}

export function IndexSplitterPage({ route }) {
  const pid = route.params.pid;
  const choices = useChoices(`projects/${pid}/index_splitter/`);
  // the new indices join the project at create and get their fields when the run completes
  const refresh = () => { invalidateProject(pid); loadProjects(); };
  const indexColumn = (key, label) => ({
    key, label, order: key,
    render: (r) => html`<${IndexWithCount} pid=${pid} index=${r[key]} done=${!!r.task && r.task.status === 'completed'} />`,
  });
  const columns = [
    { key: 'id', label: 'ID', order: 'id' },
    { key: 'author_username', label: 'Author', order: 'author__username' },
    { key: 'description', label: 'Description', order: 'description' },
    indexColumn('train_index', 'Train index'),
    indexColumn('test_index', 'Test index'),
    { key: 'distribution', label: 'Distribution' },
    {
      key: 'test_size', label: 'Test size',
      render: (r) => (r.distribution === 'custom' ? 'per quota' : perLabel(r.distribution) ? `${r.test_size} per label` : `${r.test_size}\u00a0%`),
    },
    { key: 'fact', label: 'Fact' },
    ...taskColumns(),
  ];
  return html`<${ResourcePage} pid=${pid} title="Index splitter" resource="Index splitter" collection="index_splitter"
    columns=${columns} createFields=${createFields(pid, choices.distribution || [])} toBody=${splitBody}
    onCreated=${refresh} noEdit=${true}
    tableProps=${{
      finished: (r) => { refresh(); return `Indices ${r.train_index} and ${r.test_index} are ready`; },
      deleteMessage: (r) => `Delete index splitter "${r.description}"? The indices ${r.train_index} and ${r.test_index} stay.`,
    }} />`;
}
