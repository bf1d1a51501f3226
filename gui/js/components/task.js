// Task progress cell (gui.md §7.1): status label, <progress>, percent, step, counts, duration,
// warnings and failure details. Carries data-testid="task-status" with data-status/progress.
import { html, useState } from '../preact.js';
import { taskView } from '../taskstate.js';
import { MessagesDialog } from './dialog.js';

export function TaskCell({ task, description, nullLabel, live }) {
  const v = taskView(task, { nullLabel });
  const [open, setOpen] = useState(false);
  const name = description || 'Task';
  const bar = v.showBar
    ? (v.indeterminate
      ? html`<progress class=${'task-bar tone-' + v.tone} aria-label=${name + ' progress'}></progress>`
      : html`<progress class=${'task-bar tone-' + v.tone} max="100" value=${v.progress} aria-label=${name + ' progress'}></progress>`)
    : null;
  return html`<div class=${'task-cell tone-' + v.tone} data-testid="task-status" data-status=${v.status}
      data-progress=${String(v.progress)}>
    ${bar}
    <span class="task-label" aria-live=${live ? 'polite' : null}>${v.label}</span>
    ${v.percentText ? html` <span class="task-pct">${v.percentText}</span>` : null}
    ${v.step ? html` <span class="task-step">${v.step}</span>` : null}
    ${v.counts ? html` <span class="task-counts">${v.counts}</span>` : null}
    ${v.duration ? html` <span class="task-duration">${v.duration}</span>` : null}
    ${v.status === 'completed' && v.errors.length
      ? html` <button type="button" class="warn small" onClick=${() => setOpen(true)}>⚠ ${v.errors.length} warnings</button>` : null}
    ${v.status === 'failed' ? html`<div class="task-error">${v.firstError || ''}
        <button type="button" class="small secondary" aria-label=${'Details of ' + name + ' failure'} onClick=${() => setOpen(true)}>Details</button></div>` : null}
    ${open ? html`<${MessagesDialog} title=${v.status === 'failed' ? 'Errors' : 'Warnings'}
        messages=${v.errors.length ? v.errors : ['(no message)']} onClose=${() => setOpen(false)} />` : null}
  </div>`;
}
