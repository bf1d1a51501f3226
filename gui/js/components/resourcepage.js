// A model/tool page frame (gui.md §5.4 common part): heading, Create button with its dialog,
// the resource table, Edit (PATCH) dialog, and page-specific dialogs opened from row actions.
import { html, useState } from '../preact.js';
import { post, patch } from '../api.js';
import { toast } from '../state.js';
import { FormDialog } from './form.js';
import { ResourceTable } from './table.js';

/**
 * @param {{pid:string, title:string, resource:string, collection:string, columns:Array,
 *   createFields?:Array, editFields?:Array, createDefaults?:object, rowActions?:Function,
 *   pageActions?:Array, dialogs?:Object, tableProps?:object, intro?:any, createDialog?:Function,
 *   describe?:Function, onCreated?:Function, mapError?:Function, noEdit?:boolean}} p
 */
export function ResourcePage(p) {
  const [dialog, setDialog] = useState(null);
  const [reload, setReload] = useState(0);
  const path = `projects/${p.pid}/${p.collection}/`;
  const describe = p.describe || ((r) => r.description || `#${r.id}`);
  const close = () => setDialog(null);
  const bump = () => setReload((n) => n + 1);
  const open = (kind, row = null, extra = {}) => setDialog({ kind, row, ...extra });
  const createBtn = p.createFields || p.createDialog
    ? html`<button type="button" onClick=${() => open('create')}>Create</button>` : null;
  let dlg = null;
  if (dialog) {
    const ctx = { pid: p.pid, path, close, reload: bump, open };
    if (dialog.kind === 'create' && p.createDialog) dlg = p.createDialog(ctx, dialog);
    else if (dialog.kind === 'create') {
      dlg = html`<${FormDialog} title=${'Create ' + p.resource.toLowerCase()} fields=${p.createFields} pid=${p.pid}
        initial=${dialog.initial || p.createDefaults || {}} submitLabel="Create" wide=${true}
        onSubmit=${(body) => post(path, p.toBody ? p.toBody(body) : body)}
        mapError=${p.mapError}
        onDone=${(r) => { close(); toast(`Created ${p.resource.toLowerCase()} ${describe(r)}.`); if (p.onCreated) p.onCreated(r); bump(); }}
        onClose=${close} />`;
    } else if (dialog.kind === 'edit') {
      dlg = html`<${FormDialog} title=${'Edit ' + p.resource.toLowerCase() + ' ' + describe(dialog.row)}
        fields=${p.editFields || [{ name: 'description', label: 'Description', type: 'text', required: true }]}
        pid=${p.pid} initial=${p.editInitial ? p.editInitial(dialog.row) : dialog.row} submitLabel="Save" wide=${true}
        onSubmit=${(body) => patch(`${path}${dialog.row.id}/`, p.toBody ? p.toBody(body) : body)}
        onDone=${(r) => { close(); toast(`Saved ${p.resource.toLowerCase()} ${describe(r)}.`); bump(); }}
        onClose=${close} />`;
    } else if (p.dialogs && p.dialogs[dialog.kind]) {
      dlg = p.dialogs[dialog.kind](dialog.row, ctx, dialog);
    }
  }
  return html`<section>
    <div class="page-head">
      <h1>${p.title}</h1>
      <div class="page-actions">
        ${(p.pageActions || []).map((a) => html`<button key=${a.label} type="button" class="secondary"
          onClick=${() => open(a.kind)}>${a.label}</button>`)}
        ${createBtn}
      </div>
    </div>
    ${p.intro || null}
    <${ResourceTable} path=${path} resource=${p.resource} columns=${p.columns} describe=${describe}
      reloadSignal=${reload} createButton=${createBtn}
      rowActions=${p.rowActions ? (r) => p.rowActions(r, (kind, extra) => open(kind, r, extra)) : null}
      onEdit=${p.noEdit ? null : (r) => open('edit', r)} ...${p.tableProps || {}} />
    ${dlg}
  </section>`;
}
