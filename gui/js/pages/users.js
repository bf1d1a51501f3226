// User management (gui.md §5.6, superusers): users table, superuser toggle and delete; both
// controls are disabled for user id 1, which the API protects.
import { html, useState } from '../preact.js';
import { get, patch, del } from '../api.js';
import { toast } from '../state.js';
import { errorText } from '../errors.js';
import { useAppState, useAsync } from '../components/hooks.js';
import { ConfirmDialog } from '../components/dialog.js';
import { fmtTime } from '../components/table.js';

export function UsersPage() {
  const s = useAppState();
  const users = useAsync(() => get('users/'), []);
  const [confirm, setConfirm] = useState(null);
  if (s.user && !s.user.is_superuser) {
    return html`<section><h1>User management</h1><p role="status">Only superusers can manage users.</p></section>`;
  }
  const toggle = async (u) => {
    try {
      await patch(`users/${u.id}/`, { is_superuser: !u.is_superuser });
      toast(`${u.username} is ${u.is_superuser ? 'no longer' : 'now'} a superuser.`);
      users.reload();
    } catch (e) { toast(errorText(e.norm), 'error'); }
  };
  const list = users.data || [];
  return html`<section aria-busy=${users.loading ? 'true' : 'false'}>
    <h1>User management</h1>
    ${users.error ? html`<p role="alert" class="form-summary">${errorText(users.error.norm)}</p>` : null}
    <div class="table-scroll"><table>
      <thead><tr><th scope="col">ID</th><th scope="col">Username</th><th scope="col">E-mail</th><th scope="col">Joined</th>
        <th scope="col">Last login</th><th scope="col">Superuser</th><th scope="col">Actions</th></tr></thead>
      <tbody>${list.map((u) => html`<tr key=${u.id} data-testid=${'row-' + u.id}>
        <td>${u.id}</td><td>${u.username}</td><td>${u.email || '—'}</td><td>${fmtTime(u.date_joined)}</td><td>${fmtTime(u.last_login)}</td>
        <td><input type="checkbox" aria-label=${'Superuser ' + u.username} checked=${u.is_superuser} disabled=${u.id === 1}
          onChange=${() => toggle(u)} /></td>
        <td><button type="button" class="danger small" disabled=${u.id === 1} aria-label=${'Delete user ' + u.username}
          onClick=${() => setConfirm(u)}>Delete</button></td>
      </tr>`)}</tbody>
    </table></div>
    ${confirm ? html`<${ConfirmDialog} title="Delete user?" message=${`Delete user "${confirm.username}"?`}
      onConfirm=${async () => { await del(`users/${confirm.id}/`); toast(`Deleted user ${confirm.username}.`); users.reload(); }}
      onClose=${() => setConfirm(null)} />` : null}
  </section>`;
}
