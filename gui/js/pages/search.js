// Search page (gui.md §5.2): indices and columns pickers, a simple search box (multi_match,
// debounced) or raw JSON, filters added from the aggregations panel's bars, results with
// search words and facts marked, paging by from/size, and saved searches (shown as "Coming
// soon" while /searches/ answers 404). `?index=NAME` opens it on one index.
import { html, useState, useEffect, useRef } from '../preact.js';
import { post, get, patch, del } from '../api.js';
import { toast, pref, setPref } from '../state.js';
import { getIndices, getFields } from '../projectdata.js';
import { Highlighter, Chip } from '../components/highlight.js';
import { FormDialog } from '../components/form.js';
import { ConfirmDialog } from '../components/dialog.js';
import { AggregationsPanel } from '../components/aggpanel.js';
import { addFilter, withFilters } from '../aggs.js';
import { wordMarks, factMarks, searchWords } from '../spans.js';
import { errorText } from '../errors.js';

const PAGE = 25;
const CUT = 400;

function getPathValue(doc, path) {
  if (doc && Object.prototype.hasOwnProperty.call(doc, path)) return doc[path];
  let cur = doc;
  for (const k of path.split('.')) {
    if (cur === null || cur === undefined || typeof cur !== 'object') return undefined;
    cur = cur[k];
  }
  return cur;
}

/** Distinct fact chips (name + value) with how often each occurs in the document. */
function factChips(facts) {
  const out = new Map();
  for (const f of facts || []) {
    const k = `${f.fact}\u0000${f.str_val}`;
    if (out.has(k)) out.get(k)[1]++; else out.set(k, [f, 1]);
  }
  return [...out.values()];
}

/** The phase-1 query of §5.2. */
export function buildQuery(text, textFields, from) {
  const q = text.trim();
  const query = q
    ? { bool: { must: [{ multi_match: { query: q, ...(textFields.length ? { fields: textFields } : {}), operator: 'and' } }] } }
    : { match_all: {} };
  return { query, from, size: PAGE };
}

function Cell({ value, words, facts, field }) {
  const [all, setAll] = useState(false);
  if (value === undefined || value === null) return '—';
  if (typeof value !== 'string') return html`<code>${JSON.stringify(value)}</code>`;
  let marks = [...wordMarks(value, words, 'search'), ...factMarks(facts, field)];
  const cps = Array.from(value);
  let text = value;
  let cut = false;
  if (cps.length > CUT && !all) {
    const first = marks.length ? Math.min(...marks.map((m) => m.start)) : 0;
    const start = Math.max(0, Math.min(first - 100, cps.length - CUT));
    text = (start > 0 ? '…' : '') + cps.slice(start, start + CUT).join('') + (start + CUT < cps.length ? '…' : '');
    const shift = start > 0 ? 1 - start : 0;
    marks = marks.map((m) => ({ ...m, start: m.start + shift, end: m.end + shift }));
    cut = true;
  }
  return html`<div>
    <${Highlighter} text=${text} marks=${marks} legend=${false} />
    ${cps.length > CUT ? html`<button type="button" class="link small" onClick=${() => setAll(!all)}>${cut ? 'Show all' : 'Show less'}</button>` : null}
  </div>`;
}

function SavedSearches({ pid, current, onLoad }) {
  const [state, setState] = useState({ loading: true, list: [], missing: false });
  const [dialog, setDialog] = useState(null);
  const load = async () => {
    try {
      const res = await get(`projects/${pid}/searches/`);
      setState({ loading: false, list: res.results || res || [], missing: false });
    } catch (e) {
      setState({ loading: false, list: [], missing: e.status === 404, error: e.status === 404 ? null : errorText(e.norm) });
    }
  };
  useEffect(() => { load(); }, [pid]);
  if (state.missing) return html`<section aria-labelledby="saved-h" class="saved"><h2 id="saved-h">Saved searches</h2><p class="coming-soon">Coming soon</p></section>`;
  return html`<section aria-labelledby="saved-h" class="saved" aria-busy=${state.loading ? 'true' : 'false'}>
    <h2 id="saved-h">Saved searches</h2>
    ${state.error ? html`<p role="alert">${state.error}</p>` : null}
    <button type="button" class="secondary small" onClick=${() => setDialog({ kind: 'save' })}>Save search</button>
    ${state.list.length ? html`<ul class="saved-list">${state.list.map((s) => html`<li key=${s.id}>
      <button type="button" class="link" onClick=${() => onLoad(s)}>${s.description}</button>
      <button type="button" class="icon small" aria-label=${'Rename ' + s.description} onClick=${() => setDialog({ kind: 'rename', s })}>✎</button>
      <button type="button" class="icon small" aria-label=${'Delete ' + s.description} onClick=${() => setDialog({ kind: 'delete', s })}>🗑</button>
    </li>`)}</ul>` : html`<p>No saved searches.</p>`}
    ${dialog && dialog.kind === 'save' ? html`<${FormDialog} title="Save search" submitLabel="Save"
      fields=${[{ name: 'description', label: 'Description', type: 'text', required: true }]}
      onSubmit=${(b) => post(`projects/${pid}/searches/`, { description: b.description, query: current.query, query_constraints: current.constraints })}
      onDone=${(r) => { setDialog(null); toast(`Saved search ${r.description}.`); load(); }} onClose=${() => setDialog(null)} />` : null}
    ${dialog && dialog.kind === 'rename' ? html`<${FormDialog} title="Rename search" submitLabel="Save" initial=${dialog.s}
      fields=${[{ name: 'description', label: 'Description', type: 'text', required: true }]}
      onSubmit=${(b) => patch(`projects/${pid}/searches/${dialog.s.id}/`, b)}
      onDone=${() => { setDialog(null); load(); }} onClose=${() => setDialog(null)} />` : null}
    ${dialog && dialog.kind === 'delete' ? html`<${ConfirmDialog} title="Delete saved search?" message=${`Delete "${dialog.s.description}"?`}
      onConfirm=${async () => { await del(`projects/${pid}/searches/${dialog.s.id}/`); toast('Deleted saved search.'); load(); }}
      onClose=${() => setDialog(null)} />` : null}
  </section>`;
}

export function SearchPage({ route }) {
  const pid = route.params.pid;
  const [indices, setIndices] = useState(null);
  const [fieldGroups, setFieldGroups] = useState(null);
  const [chosenIdx, setChosenIdx] = useState(() => {
    // `?index=` (a tool's "Search <index>" link) opens on that index and remembers the choice
    if (!route.query.index) return JSON.parse(pref(`search.${pid}.indices`, '[]'));
    setPref(`search.${pid}.indices`, JSON.stringify([route.query.index]));
    return [route.query.index];
  });
  const [columns, setColumns] = useState(() => JSON.parse(pref(`search.${pid}.columns`, 'null')));
  const [text, setText] = useState('');
  const [advanced, setAdvanced] = useState(false);
  const [raw, setRaw] = useState(JSON.stringify({ query: { match_all: {} }, from: 0, size: PAGE }, null, 2));
  const [from, setFrom] = useState(0);
  const [result, setResult] = useState(null);
  const [error, setError] = useState(null);
  const [busy, setBusy] = useState(false);
  const [words, setWords] = useState([]);
  const [filters, setFilters] = useState([]);
  const [searched, setSearched] = useState(null);
  const seq = useRef(0);
  const idle = useRef(null);

  useEffect(() => {
    getIndices(pid).then(setIndices, (e) => setError(errorText(e.norm)));
    getFields(pid).then(setFieldGroups, (e) => setError(errorText(e.norm)));
  }, [pid]);

  const groups = (fieldGroups || []).filter((g) => !chosenIdx.length || chosenIdx.includes(g.index));
  const allFields = [];
  const textFields = [];
  const fieldInfos = [];
  for (const g of groups) {
    for (const f of g.fields || []) {
      if (f.path === 'texta_facts' || f.path.startsWith('texta_facts.')) continue;
      if (!allFields.includes(f.path)) { allFields.push(f.path); fieldInfos.push(f); }
      if (f.type === 'text' && !textFields.includes(f.path)) textFields.push(f.path);
    }
  }
  const shown = (columns || allFields).filter((c) => allFields.includes(c));

  const run = async (q, terms) => {
    const my = ++seq.current;
    setBusy(true);
    setError(null);
    setSearched({ body: q, indices: chosenIdx });
    try {
      const res = await post(`projects/${pid}/search_by_query/`, { query: q, indices: chosenIdx });
      if (my !== seq.current) return;
      setResult(res);
      setWords(terms);
    } catch (e) {
      if (my !== seq.current) return;
      setResult(null);
      setError(errorText(e.norm));
    }
    if (my === seq.current) setBusy(false);
  };

  /** The search body of the builder (or the raw JSON, which may throw), filters added. */
  const bodyOf = (t, f) => withFilters(advanced ? JSON.parse(raw) : buildQuery(t, textFields, f), filters);

  const searchNow = (t = text, f = 0) => {
    clearTimeout(idle.current);
    setFrom(f);
    let q;
    try { q = bodyOf(t, f); } catch (e) { setError(`Query is not valid JSON: ${e.message}`); return; }
    run(q, advanced ? [] : searchWords(t));
  };

  useEffect(() => {
    if (fieldGroups) searchNow(text, 0);
  }, [fieldGroups, JSON.stringify(chosenIdx), JSON.stringify(filters.map((f) => f.label))]);
  useEffect(() => () => clearTimeout(idle.current), []);

  const onText = (e) => {
    const t = e.target.value;
    setText(t);
    clearTimeout(idle.current);
    idle.current = setTimeout(() => searchNow(t, 0), 500);
  };
  const onKey = (e) => { if (e.key === 'Enter') { e.preventDefault(); searchNow(e.target.value, 0); } };
  const count = result ? (typeof result.count === 'object' && result.count ? result.count.value : result.count) : 0;
  const hits = result ? result.results || [] : [];
  const loadSaved = (s) => {
    const c = s.query_constraints;
    let cs = c;
    if (typeof c === 'string') { try { cs = JSON.parse(c); } catch { cs = {}; } }
    const t = cs && typeof cs.text === 'string' ? cs.text : '';
    setAdvanced(false);
    setText(t);
    setFilters(cs && Array.isArray(cs.filters) ? cs.filters : []);
    searchNow(t, 0);
  };
  const current = () => {
    try { return bodyOf(text, 0); } catch { return {}; }
  };
  return html`<div class="search-layout">
    <aside class="search-side">
      <h1>Search</h1>
      <label for="search-text">Search text</label>
      <input id="search-text" type="search" value=${text} onInput=${onText} onKeyDown=${onKey} disabled=${advanced}
        placeholder="Words to find" />
      <label for="search-adv" class="check"><input id="search-adv" type="checkbox" checked=${advanced}
        onChange=${(e) => setAdvanced(e.target.checked)} /> Advanced (raw JSON query)</label>
      ${advanced ? html`<label for="search-raw">Query JSON</label>
        <textarea id="search-raw" rows="8" spellcheck="false" value=${raw} onInput=${(e) => setRaw(e.target.value)}></textarea>
        <button type="button" onClick=${() => searchNow(text, 0)}>Search</button>` : null}
      <label for="search-indices">Indices</label>
      <select id="search-indices" multiple size="3" aria-describedby="search-indices-hint"
        onChange=${(e) => { const v = Array.from(e.target.selectedOptions).map((o) => o.value); setChosenIdx(v); setPref(`search.${pid}.indices`, JSON.stringify(v)); }}>
        ${(indices || []).map((i) => html`<option key=${i} value=${i} selected=${chosenIdx.includes(i)}>${i}</option>`)}
      </select>
      <small id="search-indices-hint">None chosen = all project indices.</small>
      <label for="search-columns">Columns</label>
      <select id="search-columns" multiple size="4"
        onChange=${(e) => { const v = Array.from(e.target.selectedOptions).map((o) => o.value); setColumns(v.length ? v : null); setPref(`search.${pid}.columns`, JSON.stringify(v.length ? v : null)); }}>
        ${allFields.map((f) => html`<option key=${f} value=${f} selected=${shown.includes(f) && columns !== null}>${f}</option>`)}
      </select>
      <${SavedSearches} pid=${pid} current=${{ query: current(), constraints: { text, advanced, filters } }}
        onLoad=${loadSaved} />
    </aside>
    <section class="search-results" aria-busy=${busy ? 'true' : 'false'} aria-label="Results">
      ${error ? html`<p class="form-summary" role="alert">${error}</p>` : null}
      ${result ? html`<p data-testid="result-count" aria-live="polite">${count} document${count === 1 ? '' : 's'}</p>` : null}
      ${filters.length ? html`<div class="filters chips" role="group" aria-label="Filters">${filters.map((f) => html`<span key=${f.label}
        class="chip filter-chip">${f.label} <button type="button" class="chip-remove" aria-label=${'Remove filter ' + f.label}
        onClick=${() => setFilters(filters.filter((x) => x !== f))}>×</button></span>`)}</div>` : null}
      ${searched && fieldGroups ? html`<${AggregationsPanel} pid=${pid} indices=${searched.indices} fields=${fieldInfos}
        body=${searched.body} onFilter=${(f) => setFilters(addFilter(filters, f))} />` : null}
      ${hits.length ? html`<div class="table-scroll"><table>
        <thead><tr>${shown.map((f) => html`<th scope="col" key=${f}>${f}</th>`)}<th scope="col">Facts</th></tr></thead>
        <tbody>${hits.map((h, i) => {
          const doc = h.doc || h._source || h;
          const facts = doc.texta_facts || [];
          return html`<tr key=${i} data-testid=${'hit-' + (from + i)}>
            ${shown.map((f) => html`<td key=${f} data-col=${f}><${Cell} value=${getPathValue(doc, f)} words=${words} facts=${facts} field=${f} /></td>`)}
            <td data-col="facts"><span class="chips">${factChips(facts).map(([f, n]) => html`<${Chip} key=${f.fact + '\u0000' + f.str_val} label=${f.fact}>${f.fact}: ${f.str_val}${n > 1 ? ` ×${n}` : ''}<//>`)}</span></td>
          </tr>`;
        })}</tbody>
      </table></div>
      <nav class="pager" aria-label="Result pages">
        <button type="button" class="secondary" disabled=${from === 0 || advanced} onClick=${() => searchNow(text, Math.max(0, from - PAGE))}>Previous</button>
        <span>${from + 1}–${from + hits.length} of ${count}</span>
        <button type="button" class="secondary" disabled=${from + PAGE >= count || advanced} onClick=${() => searchNow(text, from + PAGE)}>Next</button>
      </nav>` : null}
    </section>
  </div>`;
}
