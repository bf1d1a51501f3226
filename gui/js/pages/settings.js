// Settings page (gui.md §3.5): account facts, change e-mail, change password.
import { html } from '../preact.js';
import { patch, post, get } from '../api.js';
import { setState, toast } from '../state.js';
import { useAppState } from '../components/hooks.js';
import { useFormState, Fields, FormSummary, showApiError, collectBody } from '../components/form.js';
import { fmtTime } from '../components/table.js';

const EMAIL = [{ name: 'email', label: 'E-mail', type: 'email' }];
const PASSWORD = [
  { name: 'new_password1', label: 'New password', type: 'password', required: true, autocomplete: 'new-password' },
  { name: 'new_password2', label: 'Repeat new password', type: 'password', required: true, autocomplete: 'new-password' },
];

export function SettingsPage() {
  const s = useAppState();
  const u = s.user || {};
  const ef = useFormState(EMAIL, { email: u.email || '' });
  const pf = useFormState(PASSWORD, {});
  const saveEmail = async (e) => {
    e.preventDefault();
    ef.setSummary([]);
    try {
      await patch('rest-auth/user/', collectBody(EMAIL, ef.values).body);
      setState({ user: await get('rest-auth/user/') });
      toast('E-mail saved.');
    } catch (err) { showApiError(ef, EMAIL, err); }
  };
  const savePw = async (e) => {
    e.preventDefault();
    pf.setSummary([]);
    try {
      const res = await post('rest-auth/password/change/', collectBody(PASSWORD, pf.values).body);
      toast(res.detail || 'Password changed.');
      pf.setValues({ new_password1: '', new_password2: '' });
    } catch (err) { showApiError(pf, PASSWORD, err); }
  };
  return html`<section class="narrow-page">
    <h1>Settings</h1>
    <dl class="facts">
      <dt>Username</dt><dd>${u.username}</dd>
      <dt>Superuser</dt><dd>${u.is_superuser ? 'yes' : 'no'}</dd>
      <dt>Joined</dt><dd>${fmtTime(u.date_joined)}</dd>
    </dl>
    <form onSubmit=${saveEmail} aria-label="Change e-mail">
      <h2>E-mail</h2>
      <${FormSummary} messages=${ef.summary} />
      <${Fields} fields=${EMAIL} form=${ef} idPrefix="set-email" />
      <button type="submit">Save e-mail</button>
    </form>
    <form onSubmit=${savePw} aria-label="Change password">
      <h2>Password</h2>
      <${FormSummary} messages=${pf.summary} />
      <${Fields} fields=${PASSWORD} form=${pf} idPrefix="set-pw" />
      <button type="submit">Change password</button>
    </form>
  </section>`;
}
