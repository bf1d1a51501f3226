// Registration page (gui.md §3.2): username, e-mail, two passwords; server messages verbatim.
import { html, useState } from '../preact.js';
import { post } from '../api.js';
import { useFormState, Fields, FormSummary, showApiError } from '../components/form.js';
import { startSession, navigate } from '../session.js';

const FIELDS = [
  { name: 'username', label: 'Username', type: 'text', required: true, autocomplete: 'username' },
  { name: 'email', label: 'E-mail', type: 'email', autocomplete: 'email', hint: 'Optional.' },
  { name: 'password1', label: 'Password', type: 'password', required: true, autocomplete: 'new-password' },
  { name: 'password2', label: 'Repeat password', type: 'password', required: true, autocomplete: 'new-password' },
];

export function RegisterPage() {
  const form = useFormState(FIELDS, {});
  const [busy, setBusy] = useState(false);
  const submit = async (e) => {
    e.preventDefault();
    form.setSummary([]);
    form.setErrors({});
    setBusy(true);
    try {
      const v = form.values;
      const res = await post('rest-auth/registration/', { username: v.username, email: v.email, password1: v.password1, password2: v.password2 });
      await startSession(res.key);
      navigate('#/');
    } catch (err) {
      setBusy(false);
      showApiError(form, FIELDS, err);
    }
  };
  return html`<section class="narrow-page">
    <h1>Register</h1>
    <form onSubmit=${submit} aria-busy=${busy ? 'true' : null}>
      <${FormSummary} messages=${form.summary} />
      <${Fields} fields=${FIELDS} form=${form} idPrefix="register" />
      <div class="form-buttons"><button type="submit" disabled=${busy} aria-busy=${busy ? 'true' : null}>Register</button></div>
    </form>
    <p>Already have an account? <a href="#/login">Log in</a></p>
  </section>`;
}
