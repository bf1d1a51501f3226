// Toast region (gui.md §4.6): notices in a polite live region, errors as alerts that stay.
import { html } from '../preact.js';
import { dismissToast } from '../state.js';
import { useAppState } from './hooks.js';

export function Toasts() {
  const s = useAppState();
  return html`<div class="toast-list">
    ${s.toasts.map((t) => html`<div key=${t.id} class=${'toast toast-' + t.kind} data-testid="toast"
        role=${t.kind === 'error' ? 'alert' : 'status'}>
      <span class="toast-text">${t.text}</span>
      <button type="button" class="toast-close" aria-label="Dismiss notice" onClick=${() => dismissToast(t.id)}>×</button>
    </div>`)}
  </div>`;
}
