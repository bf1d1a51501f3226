// Dataset import page (gui.md §5.5.1): imports table with task cells, create dialog uploading
// the file as multipart with a determinate upload bar, "Index … is ready" when done.
import { html, useState, useRef } from '../preact.js';
import { upload } from '../api.js';
import { toast } from '../state.js';
import { FormDialog } from '../components/form.js';
import { ResourcePage } from '../components/resourcepage.js';
import { TaskCell } from '../components/task.js';
import { fmtTime } from '../components/table.js';
import { invalidateProject } from '../projectdata.js';
import { loadProjects } from '../session.js';
import { detailUnderField } from '../errors.js';

const FIELDS = [
  { name: 'description', label: 'Description', type: 'text', required: true },
  { name: 'index', label: 'Index name', type: 'text', required: true, hint: 'Lower-case letters, digits, - and _.' },
  { name: 'file', label: 'File', type: 'file', required: true, accept: '.csv,.json,.jsonl,.jsonlines,.xls,.xlsx' },
  {
    name: 'separator', label: 'Separator', type: 'text', default: ',',
    showIf: (v) => !v.file || /\.csv$/i.test(v.file.name),
  },
];

function ImportDialog({ ctx, created }) {
  const [pct, setPct] = useState(0);
  const submit = (body) => {
    const fd = new FormData();
    fd.append('description', body.description ?? '');
    fd.append('index', body.index ?? '');
    if (body.separator !== undefined && body.separator !== '') fd.append('separator', body.separator);
    if (body.file) fd.append('file', body.file, body.file.name);
    setPct(0);
    return upload(ctx.path, fd, (f) => setPct(Math.round(f * 100)));
  };
  return html`<${FormDialog} title="Create dataset import" fields=${FIELDS} submitLabel="Import" pid=${ctx.pid}
    onSubmit=${submit} mapError=${detailUnderField('index')}
    busyContent=${html`<div class="upload"><progress max="100" value=${pct} aria-label="Upload progress"></progress>
      <span>Uploading ${pct} %</span></div>`}
    onDone=${(r) => { created.add(r.id); ctx.close(); toast(`Import ${r.description} started.`); ctx.reload(); }}
    onClose=${ctx.close} />`;
}

export function DatasetImportPage({ route }) {
  const pid = route.params.pid;
  const created = useRef(new Set()).current;
  const columns = [
    { key: 'id', label: 'ID', order: 'id' },
    { key: 'author_username', label: 'Author', order: 'author__username' },
    { key: 'description', label: 'Description', order: 'description' },
    { key: 'index', label: 'Index' },
    { key: 'docs', label: 'Documents read / indexed', render: (r) => `${r.num_documents} / ${r.num_documents_success}` },
    { key: 'started', label: 'Started', render: (r) => fmtTime(r.task && r.task.time_started) },
    { key: 'completed', label: 'Completed', render: (r) => fmtTime(r.task && r.task.time_completed) },
    { key: 'task', label: 'Task', render: (r) => html`<${TaskCell} task=${r.task} description=${r.description} />` },
  ];
  const finished = (r) => {
    invalidateProject(pid);
    loadProjects();
    return `Index ${r.index} is ready`;
  };
  return html`<${ResourcePage} pid=${pid} title="Dataset import" resource="Dataset import" collection="dataset_imports"
    columns=${columns}
    createDialog=${(ctx) => html`<${ImportDialog} ctx=${ctx} created=${created} />`}
    tableProps=${{
      finished,
      finishedOnFirstSight: (r) => created.has(r.id),
      deleteMessage: (r) => `Delete import "${r.description}"? The index data stays.`,
    }} />`;
}
