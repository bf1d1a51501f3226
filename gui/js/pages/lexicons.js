// Lexicons (gui.md §5.3): the list page and the builder (suggestions from an embedding's
// predict_similar, lexicon and rejected lines, save, create a regex tagger from it).
import { html, useState, useEffect } from '../preact.js';
import { get, post, patch, getAll } from '../api.js';
import { toast, pref, setPref } from '../state.js';
import { ResourcePage } from '../components/resourcepage.js';
import { FormDialog } from '../components/form.js';
import { href } from '../routes.js';
import { navigate } from '../session.js';
import { errorText } from '../errors.js';
import { regexTaggerFields } from './regextaggers.js';

const lines = (s) => String(s || '').split('\n').map((x) => x.trim()).filter(Boolean);

export function LexiconsPage({ route }) {
  const pid = route.params.pid;
  const path = `projects/${pid}/lexicons/`;
  const columns = [
    { key: 'id', label: 'ID', order: 'id' },
    { key: 'description', label: 'Description', order: 'description', render: (r) => html`<a href=${href('lexicon', { pid, id: r.id })}>${r.description}</a>` },
    { key: 'phrases', label: 'Phrases', render: (r) => String((r.phrases || []).length) },
    { key: 'author_username', label: 'Author', render: (r) => r.author_username || (r.author && r.author.username) || '—' },
  ];
  return html`<${ResourcePage} pid=${pid} title="Lexicons" resource="Lexicon" collection="lexicons" columns=${columns}
    unavailable=${html`<p class="coming-soon" role="status">Coming soon: this server does not offer lexicons yet.</p>`}
    rowActions=${(r) => [{ label: 'Open builder', run: () => navigate(href('lexicon', { pid, id: r.id })) }]}
    createDialog=${(ctx) => html`<${FormDialog} title="Create lexicon" submitLabel="Create"
      fields=${[{ name: 'description', label: 'Description', type: 'text', required: true }]}
      onSubmit=${(b) => post(path, { description: b.description, phrases: [], discarded_phrases: [] })}
      onDone=${(r) => { ctx.close(); toast(`Created lexicon ${r.description}.`); navigate(href('lexicon', { pid, id: r.id })); }}
      onClose=${ctx.close} />`} />`;
}

export function LexiconBuilderPage({ route }) {
  const pid = route.params.pid;
  const id = route.params.id;
  const path = `projects/${pid}/lexicons/${id}/`;
  const [lex, setLex] = useState(null);
  const [error, setError] = useState(null);
  const [embeddings, setEmbeddings] = useState([]);
  const [emb, setEmb] = useState(pref(`lexicon.${pid}.embedding`, ''));
  const [positives, setPositives] = useState('');
  const [negatives, setNegatives] = useState('');
  const [suggestions, setSuggestions] = useState(null);
  const [sugError, setSugError] = useState(null);
  const [dirty, setDirty] = useState(false);
  const [regexDialog, setRegexDialog] = useState(false);
  useEffect(() => {
    get(path).then((l) => {
      setLex(l);
      setPositives((l.phrases || []).join('\n'));
      setNegatives((l.discarded_phrases || []).join('\n'));
    }, (e) => setError(e.status === 404 ? 'Coming soon: this server does not offer lexicons yet, or the lexicon does not exist.' : errorText(e.norm)));
    getAll(`projects/${pid}/embeddings/?task_status=completed`).then(setEmbeddings, () => setEmbeddings([]));
  }, [pid, id]);
  useEffect(() => {
    const warn = (e) => { if (dirty) { e.preventDefault(); e.returnValue = ''; } };
    window.addEventListener('beforeunload', warn);
    return () => window.removeEventListener('beforeunload', warn);
  }, [dirty]);
  const suggest = async () => {
    setSugError(null);
    let neg = lines(negatives);
    if (suggestions && suggestions.length) {
      neg = [...neg, ...suggestions.filter((s) => !neg.includes(s))];
      setNegatives(neg.join('\n'));
      setDirty(true);
    }
    try {
      const res = await post(`projects/${pid}/embeddings/${emb}/predict_similar/`, { positives: lines(positives), negatives: neg, output_size: 20 });
      const known = new Set([...lines(positives), ...neg]);
      setSuggestions(res.map((r) => r.phrase).filter((p) => !known.has(p)));
    } catch (e) {
      setSuggestions(null);
      setSugError(e.norm && e.norm.detail === 'Model does not exist' ? 'Model does not exist: the embedding is not trained yet.' : errorText(e.norm));
    }
  };
  const pick = (p) => {
    setPositives([...lines(positives), p].join('\n'));
    setSuggestions(suggestions.filter((s) => s !== p));
    setDirty(true);
  };
  const save = async () => {
    try {
      const l = await patch(path, { description: lex.description, phrases: lines(positives), discarded_phrases: lines(negatives) });
      setLex(l);
      setDirty(false);
      toast(`Saved lexicon ${l.description}.`);
    } catch (e) { toast(errorText(e.norm), 'error'); }
  };
  if (error) return html`<section><h1>Lexicon</h1><p class="coming-soon" role="status">${error}</p></section>`;
  if (!lex) return html`<p aria-busy="true">Loading lexicon…</p>`;
  return html`<section>
    <div class="page-head"><h1>Lexicon ${lex.description}</h1>
      <div class="page-actions"><a href=${href('lexicons', { pid })}>All lexicons</a></div></div>
    <div class="lexicon-tools">
      <label for="lex-emb">Embedding</label>
      <select id="lex-emb" value=${emb} onChange=${(e) => { setEmb(e.target.value); setPref(`lexicon.${pid}.embedding`, e.target.value); }}>
        <option value="">Choose an embedding</option>
        ${embeddings.map((e) => html`<option key=${e.id} value=${String(e.id)} selected=${String(e.id) === emb}>${e.description}</option>`)}
      </select>
      <button type="button" onClick=${suggest} disabled=${!emb}>Suggest</button>
      <button type="button" class="secondary" onClick=${() => { setPositives(''); setNegatives(''); setSuggestions(null); setDirty(true); }}>Clear</button>
      <button type="button" onClick=${save}>Save</button>
      <button type="button" class="secondary" onClick=${() => setRegexDialog(true)}>Create regex tagger from this lexicon</button>
    </div>
    <div class="lexicon-cols">
      <section aria-labelledby="sug-h"><h2 id="sug-h">Suggestions</h2>
        ${sugError ? html`<p role="alert" class="form-summary">${sugError}</p>` : null}
        <div data-testid="suggestions">
        ${suggestions === null ? html`<p>Press Suggest.</p>` : suggestions.length === 0 ? html`<p>No suggestions</p>`
          : html`<ul class="suggestions">${suggestions.map((s) => html`<li key=${s}><button type="button" class="link" onClick=${() => pick(s)}>${s}</button></li>`)}</ul>`}
        </div>
      </section>
      <div><label for="lex-pos">Lexicon</label>
        <textarea id="lex-pos" rows="12" value=${positives} onInput=${(e) => { setPositives(e.target.value); setDirty(true); }}></textarea></div>
      <div><label for="lex-neg">Rejected</label>
        <textarea id="lex-neg" rows="12" value=${negatives} onInput=${(e) => { setNegatives(e.target.value); setDirty(true); }}></textarea></div>
    </div>
    ${regexDialog ? html`<${FormDialog} title="Create regex tagger" fields=${regexTaggerFields()} submitLabel="Create" wide=${true}
      initial=${{ description: lex.description, lexicon: lines(positives) }}
      onSubmit=${(b) => post(`projects/${pid}/regex_taggers/`, b)}
      onDone=${(r) => { setRegexDialog(false); toast(`Created regex tagger ${r.description}.`); }}
      onClose=${() => setRegexDialog(false)} />` : null}
  </section>`;
}
