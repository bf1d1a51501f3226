// Search aggregations (gui.md §5.2): the `aggs` body of a search_by_query call (facts as a
// nested aggregation on texta_facts, terms of a field, a date histogram), the bars read from
// its answer, and the filter a clicked bar adds to the search query.
// Pure: no DOM, unit-tested with node --test.

export const INTERVALS = ['year', 'quarter', 'month', 'week', 'day'];
export const FACT_NAMES = 10;
export const FACT_VALUES = 10;
export const TERMS = 15;

/** Field types a terms aggregation can count (text fields through their `.keyword` subfield). */
export const TERM_TYPES = ['keyword', 'text', 'long', 'float', 'boolean'];

/** The path a terms aggregation or a term filter uses for a get_fields entry. */
export function termsPath(field) {
  return field.type === 'text' ? `${field.path}.keyword` : field.path;
}

const docs = { docs: { reverse_nested: {} } };

/**
 * The `aggs` object: `facts` always; `terms` for a field {path, type}; `dates` for a date
 * field path with a calendar interval. Fact counts are documents (reverse_nested), not facts.
 * @param {{terms?:{path:string,type:string}|null, date?:string|null, interval?:string}} choice
 */
export function aggsBody({ terms = null, date = null, interval = 'month' } = {}) {
  const aggs = {
    facts: {
      nested: { path: 'texta_facts' },
      aggs: {
        names: {
          terms: { field: 'texta_facts.fact', size: FACT_NAMES },
          aggs: { ...docs, values: { terms: { field: 'texta_facts.str_val', size: FACT_VALUES }, aggs: docs } },
        },
      },
    },
  };
  if (terms) aggs.terms = { terms: { field: termsPath(terms), size: TERMS } };
  if (date) aggs.dates = { date_histogram: { field: date, calendar_interval: interval } };
  return aggs;
}

/** The search body asking only for aggregations over the documents a search query selects. */
export function aggsSearchBody(searchBody, choice) {
  return { query: (searchBody && searchBody.query) || { match_all: {} }, aggs: aggsBody(choice), size: 0 };
}

const count = (b) => (b.docs ? b.docs.doc_count : b.doc_count);

/** [{name, count, values: [{value, count}]}] from the `facts` answer. */
export function factBars(aggs) {
  const names = aggs && aggs.facts && aggs.facts.names ? aggs.facts.names.buckets || [] : [];
  return names.map((n) => ({
    name: String(n.key),
    count: count(n),
    values: ((n.values && n.values.buckets) || []).map((v) => ({ value: String(v.key), count: count(v) })),
  }));
}

/** [{key, label, count}] from the `terms` answer. */
export function termBars(aggs) {
  const b = aggs && aggs.terms ? aggs.terms.buckets || [] : [];
  return b.map((x) => ({ key: x.key, label: String(x.key_as_string ?? x.key), count: x.doc_count }));
}

const STEP = { year: [12, 0], quarter: [3, 0], month: [1, 0], week: [0, 7], day: [0, 1] };

/** The start of the next interval after `iso` (UTC), as an ISO string. */
export function nextBoundary(iso, interval) {
  const d = new Date(iso);
  const [months, days] = STEP[interval] || STEP.day;
  if (months) d.setUTCMonth(d.getUTCMonth() + months);
  else d.setUTCDate(d.getUTCDate() + days);
  return d.toISOString();
}

/** A bucket start as a short label: 2024, 2024 Q1, 2024-02, 2024-02-05. */
export function dateLabel(iso, interval) {
  const s = new Date(iso).toISOString();
  if (interval === 'year') return s.slice(0, 4);
  if (interval === 'quarter') return `${s.slice(0, 4)} Q${Math.floor((Number(s.slice(5, 7)) - 1) / 3) + 1}`;
  if (interval === 'month') return s.slice(0, 7);
  return s.slice(0, 10);
}

/** [{label, count, from, to}] from the `dates` answer; [from, to) is the bucket's time range. */
export function dateBars(aggs, interval) {
  const b = aggs && aggs.dates ? aggs.dates.buckets || [] : [];
  return b.map((x) => {
    const from = x.key_as_string || new Date(x.key).toISOString();
    return { label: dateLabel(from, interval), count: x.doc_count, from, to: nextBoundary(from, interval) };
  });
}

/**
 * A search filter: `label` names it on a chip, `clause` goes into bool.filter.
 * @typedef {{label:string, clause:object}} Filter
 */

/** Documents with a fact of this name (and this value, when given). */
export function factFilter(name, value) {
  const must = [{ term: { 'texta_facts.fact': name } }];
  if (value !== undefined) must.push({ term: { 'texta_facts.str_val': value } });
  return {
    label: value === undefined ? `fact ${name}` : `${name}: ${value}`,
    clause: { nested: { path: 'texta_facts', query: { bool: { must } } } },
  };
}

/** Documents whose field has this term. */
export function termFilter(field, key) {
  return { label: `${field.path} = ${key}`, clause: { term: { [termsPath(field)]: key } } };
}

/** Documents dated in [from, to). */
export function dateFilter(path, bar) {
  return { label: `${path}: ${bar.label}`, clause: { range: { [path]: { gte: bar.from, lt: bar.to } } } };
}

/** Adds a filter unless one with the same label is there. */
export function addFilter(filters, f) {
  return filters.some((x) => x.label === f.label) ? filters : [...filters, f];
}

/** The search body with the filters' clauses added to its query (all must hold). */
export function withFilters(body, filters) {
  if (!filters || !filters.length) return body;
  const query = (body && body.query) || { match_all: {} };
  return { ...body, query: { bool: { must: [query], filter: filters.map((f) => f.clause) } } };
}
