// Modal dialogs (gui.md §4.2): native <dialog> opened with showModal(), Escape closes, focus
// returns to the opener; plus a confirm dialog and a simple message-list dialog.
import { html, useEffect, useRef, useState } from '../preact.js';
import { FormSummary } from './form.js';

let dialogSeq = 0;

/**
 * @param {{title:string, onClose:()=>void, children:any, wide?:boolean, footer?:any}} props
 */
export function Dialog({ title, onClose, children, wide, footer }) {
  const ref = useRef(null);
  const idRef = useRef(`dlg-${++dialogSeq}`);
  const closeRef = useRef(onClose);
  closeRef.current = onClose;
  useEffect(() => {
    const dlg = ref.current;
    const opener = document.activeElement;
    if (!dlg.open) dlg.showModal();
    const first = dlg.querySelector('[autofocus], input:not([type=hidden]):not([disabled]), textarea, select');
    if (first) first.focus();
    const onCancel = (e) => { e.preventDefault(); closeRef.current(); };
    dlg.addEventListener('cancel', onCancel);
    return () => {
      dlg.removeEventListener('cancel', onCancel);
      if (dlg.open) dlg.close();
      if (opener && opener.isConnected && typeof opener.focus === 'function') opener.focus();
    };
  }, []);
  return html`<dialog ref=${ref} aria-labelledby=${idRef.current} class=${wide ? 'wide' : ''}>
    <article>
      <header>
        <button type="button" class="dialog-close" aria-label="Close" onClick=${() => onClose()}>×</button>
        <h2 id=${idRef.current}>${title}</h2>
      </header>
      ${children}
      ${footer ? html`<footer>${footer}</footer>` : null}
    </article>
  </dialog>`;
}

/** Asks before a destructive action; shows the server's error inside when it fails. */
export function ConfirmDialog({ title, message, confirmLabel = 'Delete', onConfirm, onClose }) {
  const [busy, setBusy] = useState(false);
  const [errors, setErrors] = useState([]);
  const go = async () => {
    setBusy(true);
    setErrors([]);
    try {
      await onConfirm();
      onClose(true);
    } catch (e) {
      setBusy(false);
      setErrors(e && e.norm ? [...e.norm.summary, ...Object.values(e.norm.fields).flat()] : [String(e)]);
    }
  };
  return html`<${Dialog} title=${title} onClose=${() => onClose(false)}
    footer=${html`<button type="button" class="secondary" onClick=${() => onClose(false)} disabled=${busy}>Cancel</button>
      <button type="button" class="danger" onClick=${go} disabled=${busy} aria-busy=${busy ? 'true' : null}>${confirmLabel}</button>`}>
    <${FormSummary} messages=${errors} />
    <p>${message}</p>
  <//>`;
}

/** Lists messages (task errors, warnings). */
export function MessagesDialog({ title, messages, onClose }) {
  return html`<${Dialog} title=${title} onClose=${onClose}
    footer=${html`<button type="button" onClick=${onClose}>Close</button>`}>
    <ul class="messages">${messages.map((m, i) => html`<li key=${i}>${m}</li>`)}</ul>
  <//>`;
}
