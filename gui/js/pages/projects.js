// Projects page (gui.md §5.1): the caller's projects, create/edit/delete for superusers,
// select a project, and the service health panel.
import { html, useState } from '../preact.js';
import { get, post, patch, del } from '../api.js';
import { setState, toast } from '../state.js';
import { useAppState, useAsync } from '../components/hooks.js';
import { FormDialog } from '../components/form.js';
import { ConfirmDialog } from '../components/dialog.js';
import { RowMenu } from '../components/table.js';
import { loadProjects, navigate } from '../session.js';
import { href } from '../routes.js';

function projectFields() {
  return [
    { name: 'title', label: 'Title', type: 'text', required: true },
    {
      name: 'users', label: 'Members', type: 'multiselect', required: true,
      hint: 'Hold Ctrl or Shift to choose several.',
      load: async () => (await get('users/')).map((u) => ({ value: u.url, label: u.username })),
    },
    { name: 'indices', label: 'Indices', type: 'lines', emptyAs: [], hint: 'One index name per line; usually empty (a dataset import adds its index).' },
  ];
}

function Bar({ label, used, total, unit }) {
  if (typeof used !== 'number' || typeof total !== 'number') return null;
  return html`<div class="bar-row"><span>${label}: ${used.toFixed(1)} / ${total.toFixed(1)} ${unit || ''}</span>
    <progress max=${total} value=${used} aria-label=${label + ' used'}></progress></div>`;
}

function HealthPanel() {
  const h = useAsync(() => get('health/'), []);
  const d = h.data;
  return html`<aside class="health" aria-labelledby="health-h" aria-busy=${h.loading ? 'true' : 'false'}>
    <h2 id="health-h">Service health</h2>
    ${h.error ? html`<p role="alert">${h.error.message}</p>` : null}
    ${d ? html`<dl class="facts">
      <dt>Version</dt><dd>${d.version ?? (d.toolkit && d.toolkit.version)}</dd>
      <dt>Index store</dt><dd>${d.elastic && d.elastic.alive ? '✓ alive' : '✗ down'} <small>${d.elastic && d.elastic.url}</small></dd>
      <dt>MLP</dt><dd>${d.mlp && d.mlp.alive ? '✓ alive' : '✗ down'}</dd>
      <dt>CPU</dt><dd>${d.cpu && typeof d.cpu.percent === 'number' ? d.cpu.percent.toFixed(0) + ' %' : '—'}</dd>
      <dt>Active tasks</dt><dd>${d.active_tasks ?? '—'}</dd>
      <dt>GPUs</dt><dd>${d.gpu ? d.gpu.count : '—'}</dd>
    </dl>
    ${d.disk ? html`<${Bar} label="Disk" used=${d.disk.used} total=${d.disk.total} unit=${d.disk.unit} />` : null}
    ${d.memory ? html`<${Bar} label="Memory" used=${d.memory.used} total=${d.memory.total} unit=${d.memory.unit} />` : null}` : null}
    <button type="button" class="secondary small" onClick=${h.reload}>Refresh</button>
  </aside>`;
}

export function ProjectsPage() {
  const s = useAppState();
  const su = !!(s.user && s.user.is_superuser);
  const [dialog, setDialog] = useState(null);
  const [filter, setFilter] = useState('');
  const projects = (s.projects || []).filter((p) => !filter || p.title.toLowerCase().includes(filter.toLowerCase()));
  const select = (p) => {
    setState({ projectId: String(p.id) });
    navigate(href('search', { pid: p.id }));
  };
  const fields = projectFields();
  const createBtn = su ? html`<button type="button" onClick=${() => setDialog({ kind: 'create' })}>Create project</button>` : null;
  return html`<div class="with-aside">
    <section>
      <h1>Projects</h1>
      <div class="table-tools">
        <input type="search" aria-label="Filter by title" placeholder="Filter by title" value=${filter}
          onInput=${(e) => setFilter(e.target.value)} />
        ${createBtn}
      </div>
      ${s.projects === null ? html`<p aria-busy="true">Loading projects…</p>` : null}
      ${s.projects && s.projects.length === 0 ? html`<div class="empty"><p>Nothing here yet.</p>
        ${su ? null : html`<p>Ask a superuser to add you to a project.</p>`}</div>` : null}
      ${projects.length ? html`<div class="table-scroll"><table>
        <thead><tr><th scope="col">ID</th><th scope="col">Title</th><th scope="col">Author</th>
          <th scope="col">Indices</th><th scope="col">Members</th><th scope="col">Actions</th></tr></thead>
        <tbody>${projects.map((p) => html`<tr key=${p.id} data-testid=${'row-' + p.id}
            class=${String(p.id) === String(s.projectId) ? 'current' : ''}>
          <td data-col="id">${p.id}</td>
          <td data-col="title">${p.title}</td>
          <td data-col="author">${p.author_username}</td>
          <td data-col="indices">${p.indices.length
            ? html`<details class="inline"><summary>${p.indices.length}</summary><ul>${p.indices.map((i) => html`<li key=${i}>${i}</li>`)}</ul></details>`
            : '0'}</td>
          <td data-col="members">${p.users.length}</td>
          <td class="actions">
            <button type="button" class="small" aria-label=${'Select project ' + p.title} onClick=${() => select(p)}>Select</button>
            ${su ? html`<${RowMenu} label=${'Actions for ' + p.title} actions=${[
              { label: 'Edit', run: () => setDialog({ kind: 'edit', project: p }) },
              { label: 'Delete', danger: true, run: () => setDialog({ kind: 'delete', project: p }) },
            ]} />` : null}
          </td>
        </tr>`)}</tbody>
      </table></div>` : null}
    </section>
    <${HealthPanel} />
    ${dialog && dialog.kind === 'create' ? html`<${FormDialog} title="Create project" fields=${fields} submitLabel="Create"
      onSubmit=${(body) => post('projects/', body)}
      onDone=${async (p) => { setDialog(null); toast(`Created project ${p.title}.`); await loadProjects(); }}
      onClose=${() => setDialog(null)} />` : null}
    ${dialog && dialog.kind === 'edit' ? html`<${FormDialog} title=${'Edit project ' + dialog.project.title} fields=${fields}
      initial=${dialog.project}
      onSubmit=${(body) => patch(`projects/${dialog.project.id}/`, body)}
      onDone=${async (p) => { setDialog(null); toast(`Saved project ${p.title}.`); await loadProjects(); }}
      onClose=${() => setDialog(null)} />` : null}
    ${dialog && dialog.kind === 'delete' ? html`<${ConfirmDialog} title="Delete project?"
      message=${`Delete project "${dialog.project.title}"? All its models are deleted; the indices are kept.`}
      onConfirm=${async () => {
        await del(`projects/${dialog.project.id}/`);
        if (String(s.projectId) === String(dialog.project.id)) setState({ projectId: null });
        toast(`Deleted project ${dialog.project.title}.`);
        await loadProjects();
      }}
      onClose=${() => setDialog(null)} />` : null}
  </div>`;
}
