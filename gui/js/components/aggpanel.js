// Aggregations panel of the Search page (gui.md §5.2): fact names and values, the terms of a
// chosen field and a date histogram over the documents the current search selects, drawn as
// inline SVG bars. Clicking a bar hands the page a filter (aggs.js) to add to the search.
import { html, useState } from '../preact.js';
import { post } from '../api.js';
import { pref, setPref } from '../state.js';
import { errorText } from '../errors.js';
import { useAsync } from './hooks.js';
import {
  INTERVALS, TERM_TYPES, aggsSearchBody, factBars, termBars, dateBars, factFilter, termFilter, dateFilter,
} from '../aggs.js';

const docsText = (n) => `${n} document${n === 1 ? '' : 's'}`;
const plural = (n) => (n === 1 ? ' document' : ' documents');
/** Text read out but not shown; a bar's accessible name is "Filter by <what> <label> <n> documents". */
const hidden = (text) => html`<span class="visually-hidden">${text}</span>`;
const share = (n, max) => (max > 0 ? Math.max(1, Math.round((100 * n) / max)) : 0);

/** A horizontal bar: label, a bar as long as its share of `max`, the count; `what` prefixes the label when read. */
function Bar({ label, count, max, what, onPick, strong }) {
  return html`<button type="button" class=${strong ? 'agg-bar strong' : 'agg-bar'} onClick=${onPick}
      title=${`${what}${label}: ${docsText(count)}`}>
    ${hidden(`Filter by ${what}`)}<span class="agg-label">${label}</span>
    <svg class="agg-svg" viewBox="0 0 100 10" preserveAspectRatio="none" aria-hidden="true" focusable="false">
      <rect width=${share(count, max)} height="10" /></svg>
    <span class="agg-count"> ${count}${hidden(plural(count))}</span>
  </button>`;
}

/** Fact names scaled to the largest, each name's values to that name's document count. */
function Facts({ bars, onFilter }) {
  if (!bars.length) return html`<p class="no-match">No facts in these documents.</p>`;
  const maxName = Math.max(...bars.map((b) => b.count));
  return bars.map((n) => html`<div class="agg-group" key=${n.name} data-testid=${'fact-bars-' + n.name}>
      <${Bar} label=${n.name} count=${n.count} max=${maxName} what="fact " strong=${true}
        onPick=${() => onFilter(factFilter(n.name))} />
      <div class="agg-values">${n.values.map((v) => html`<${Bar} key=${v.value} label=${v.value} count=${v.count}
        max=${n.count} what=${`${n.name}: `} onPick=${() => onFilter(factFilter(n.name, v.value))} />`)}</div>
    </div>`);
}

function Terms({ bars, field, onFilter }) {
  if (!bars.length) return html`<p class="no-match">No values in these documents.</p>`;
  const max = Math.max(...bars.map((b) => b.count));
  return bars.map((b) => html`<${Bar} key=${b.label} label=${b.label} count=${b.count} max=${max}
    what=${`${field.path} = `} onPick=${() => onFilter(termFilter(field, b.key))} />`);
}

/** Vertical bars over time; empty buckets are drawn but not clickable. */
function Histogram({ bars, path, onFilter }) {
  if (!bars.length) return html`<p class="no-match">No dates in these documents.</p>`;
  const max = Math.max(...bars.map((b) => b.count));
  return html`<div class="agg-hist">${bars.map((b) => html`<button type="button" key=${b.from} class="agg-col"
      disabled=${b.count === 0} onClick=${() => onFilter(dateFilter(path, b))}
      title=${`${b.label}: ${docsText(b.count)}`}>
    ${hidden(`Filter by ${path}: `)}<svg viewBox="0 0 10 100" preserveAspectRatio="none" aria-hidden="true" focusable="false">
      <rect x="0" y=${100 - share(b.count, max)} width="10" height=${share(b.count, max)} /></svg>
    <span class="agg-col-label">${b.label}</span>${hidden(` ${b.count}${plural(b.count)}`)}
  </button>`)}</div>`;
}

function Choice({ id, label, value, options, onChange, none }) {
  return html`<div class="agg-choice"><label for=${id}>${label}</label>
    <select id=${id} value=${value} onChange=${(e) => onChange(e.target.value)}>
      ${none ? html`<option value="">${none}</option>` : null}
      ${options.map((o) => html`<option key=${o} value=${o} selected=${o === value}>${o}</option>`)}
    </select></div>`;
}

/**
 * @param {{pid:string, indices:string[], fields:Array<{path:string,type:string}>, body:object,
 *   onFilter:(f:{label:string, clause:object})=>void}} p  `body` is the search body of the results shown
 */
export function AggregationsPanel({ pid, indices, fields, body, onFilter }) {
  const key = `search.${pid}.aggs`;
  const [choice, setChoice] = useState(() => JSON.parse(pref(key, '{}')));
  const choose = (patch) => { const c = { ...choice, ...patch }; setChoice(c); setPref(key, JSON.stringify(c)); };
  const termFields = fields.filter((f) => TERM_TYPES.includes(f.type));
  const dateFields = fields.filter((f) => f.type === 'date').map((f) => f.path);
  const terms = termFields.find((f) => f.path === choice.terms) || null;
  const date = choice.date === '' ? null : (dateFields.includes(choice.date) ? choice.date : dateFields[0] || null);
  const interval = INTERVALS.includes(choice.interval) ? choice.interval : 'month';
  const req = { query: aggsSearchBody(body, { terms, date, interval }), indices };
  const res = useAsync(() => post(`projects/${pid}/search_by_query/`, req), [pid, JSON.stringify(req)]);
  const aggs = res.data ? res.data.aggs : null;
  return html`<section class="aggs" aria-labelledby="aggs-h" aria-busy=${res.loading ? 'true' : 'false'}>
    <h2 id="aggs-h">Aggregations</h2>
    <div class="agg-choices">
      <${Choice} id="agg-terms" label="Terms of field" value=${terms ? terms.path : ''} none="None"
        options=${termFields.map((f) => f.path)} onChange=${(v) => choose({ terms: v })} />
      <${Choice} id="agg-date" label="Date field" value=${date || ''} none="None" options=${dateFields}
        onChange=${(v) => choose({ date: v })} />
      ${date ? html`<${Choice} id="agg-interval" label="Interval" value=${interval} options=${INTERVALS}
        onChange=${(v) => choose({ interval: v })} />` : null}
    </div>
    ${res.error ? html`<p class="form-summary" role="alert">${res.error.norm ? errorText(res.error.norm) : String(res.error)}</p>` : null}
    ${aggs ? html`<div class="agg-grid">
      <figure data-testid="agg-facts"><figcaption>Facts</figcaption><${Facts} bars=${factBars(aggs)} onFilter=${onFilter} /></figure>
      ${date ? html`<figure data-testid="agg-dates"><figcaption>${date} by ${interval}</figcaption>
        <${Histogram} bars=${dateBars(aggs, interval)} path=${date} onFilter=${onFilter} /></figure>` : null}
      ${terms ? html`<figure data-testid="agg-terms"><figcaption>Terms of ${terms.path}</figcaption>
        <${Terms} bars=${termBars(aggs)} field=${terms} onFilter=${onFilter} /></figure>` : null}
    </div>` : null}
  </section>`;
}
