// "Apply to index" on the model pages (collection.md §2, api.md §9): the row action, its form
// dialog (fields per collection from applyspec.js, DRF errors at the fields), and the task
// column of models whose task is null until first applied ("Not applied").
import { html } from '../preact.js';
import { post } from '../api.js';
import { toast } from '../state.js';
import { href } from '../routes.js';
import { applyFields, applyInitial, applyPath, applyBody } from '../applyspec.js';
import { FormDialog } from './form.js';
import { TaskCell } from './task.js';
import { modelMissingHint } from './tagging.js';

/** The row action; `open` is the row's dialog opener of ResourcePage. */
export const applyAction = (open) => ({ label: 'Apply to index', run: () => open('apply') });

/**
 * The dialog for one model row. On success the toast shows the server's message and the
 * table reloads, so the row's task starts polling at once (gui.md §7.2).
 * @param {{collection:string, row:object, ctx:{pid:string, path:string, close:Function, reload:Function}}} p
 */
export function ApplyDialog({ collection, row, ctx }) {
  return html`<${FormDialog} title=${'Apply ' + row.description + ' to an index'} fields=${applyFields(collection)}
    pid=${ctx.pid} initial=${applyInitial(row)} submitLabel="Apply" wide=${true} mapError=${modelMissingHint}
    onSubmit=${(body) => post(applyPath(ctx.path, collection, row.id), applyBody(collection, body))}
    onDone=${(res) => { ctx.close(); toast(res && res.message ? res.message : 'Started.'); ctx.reload(); }}
    onClose=${ctx.close} />`;
}

/** Task column for models that have no task until applied; links to Search once completed. */
export function appliedTaskColumn(pid) {
  return {
    key: 'task', label: 'Task',
    render: (r) => html`<${TaskCell} task=${r.task} description=${r.description} nullLabel="Not applied" />
      ${r.task && r.task.status === 'completed' ? html`<a href=${href('search', { pid })}>See facts in Search</a>` : null}`,
  };
}
