// Login page (gui.md §3.1): username + password (show/hide), errors per §6, then to `next`.
import { html, useState } from '../preact.js';
import { post } from '../api.js';
import { useAppState } from '../components/hooks.js';
import { useFormState, Fields, FormSummary, showApiError } from '../components/form.js';
import { startSession, navigate } from '../session.js';

export function LoginPage({ route }) {
  const s = useAppState();
  const [show, setShow] = useState(false);
  const fields = [
    { name: 'username', label: 'Username', type: 'text', required: true, autocomplete: 'username' },
    { name: 'password', label: 'Password', type: show ? 'text' : 'password', required: true, autocomplete: 'current-password' },
  ];
  const form = useFormState(fields, {});
  const [busy, setBusy] = useState(false);
  const submit = async (e) => {
    e.preventDefault();
    form.setSummary([]);
    form.setErrors({});
    setBusy(true);
    try {
      const res = await post('rest-auth/login/', { username: form.values.username, password: form.values.password });
      await startSession(res.key);
      navigate(route.query.next ? '#' + route.query.next : '#/');
    } catch (err) {
      setBusy(false);
      showApiError(form, fields, err);
    }
  };
  return html`<section class="narrow-page">
    <h1>Log in</h1>
    ${s.loginNotice ? html`<p class="notice" role="status">${s.loginNotice}</p>` : null}
    <form onSubmit=${submit} aria-busy=${busy ? 'true' : null}>
      <${FormSummary} messages=${form.summary} />
      <${Fields} fields=${fields} form=${form} idPrefix="login" />
      <div class="form-buttons split">
        <button type="button" class="secondary small" aria-pressed=${show ? 'true' : 'false'}
          onClick=${() => setShow(!show)}>${show ? 'Hide password' : 'Show password'}</button>
        <button type="submit" disabled=${busy} aria-busy=${busy ? 'true' : null}>Log in</button>
      </div>
    </form>
    <p><a href="#/register">Create an account</a></p>
  </section>`;
}
