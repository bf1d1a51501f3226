// Language processing over indices (gui.md §5.5.3 "later", collection.md §1.1): the
// mlp_index workers with their task cells, a create dialog (analyzers from the collection's
// OPTIONS choices), and Retry on a failed or completed worker.
import { html } from '../preact.js';
import { post } from '../api.js';
import { toast } from '../state.js';
import { ResourcePage } from '../components/resourcepage.js';
import { ConfirmDialog } from '../components/dialog.js';
import { useChoices } from '../components/hooks.js';
import { indicesField, fieldsField, queryField, taskColumns } from './models-common.js';

const retryable = (r) => !!r.task && ['failed', 'completed'].includes(r.task.status);

export function MlpIndexPage({ route }) {
  const pid = route.params.pid;
  const base = `projects/${pid}/mlp_index/`;
  const choices = useChoices(base);
  const create = [
    { name: 'description', label: 'Description', type: 'text', required: true },
    indicesField(), { ...fieldsField(), noFacts: true }, queryField(),
    {
      name: 'analyzers', label: 'Analyzers', type: 'multiselect', hint: 'None chosen = all.',
      options: (choices.analyzers || []).map((a) => ({ value: a, label: a })),
    },
  ];
  const columns = [
    { key: 'id', label: 'ID', order: 'id' },
    { key: 'author_username', label: 'Author', order: 'author__username' },
    { key: 'description', label: 'Description', order: 'description' },
    { key: 'indices', label: 'Indices' },
    { key: 'fields', label: 'Fields', order: 'fields' },
    { key: 'analyzers', label: 'Analyzers' },
    ...taskColumns(),
  ];
  return html`<${ResourcePage} pid=${pid} title="Language processing of indices" resource="MLP worker" collection="mlp_index"
    columns=${columns} createFields=${create}
    rowActions=${(r, open) => (retryable(r) ? [{ label: 'Retry', run: () => open('retry') }] : [])}
    dialogs=${{
      retry: (r, ctx) => html`<${ConfirmDialog} title="Retry MLP worker?" confirmLabel="Retry"
        message=${`Continue "${r.description}" after its last committed batch?`}
        onConfirm=${async () => { const res = await post(`${base}${r.id}/retry/`); toast(res && res.message ? res.message : 'Retry started.'); ctx.reload(); }}
        onClose=${ctx.close} />`,
    }} />`;
}
