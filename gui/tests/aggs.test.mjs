// Unit tests for js/aggs.js: the aggregation body, bars read from an answer, and the filters
// a clicked bar adds to the search query (answers as the embedded store gives them).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  aggsBody, aggsSearchBody, factBars, termBars, dateBars, nextBoundary, dateLabel, termsPath,
  factFilter, termFilter, dateFilter, addFilter, withFilters,
} from '../js/aggs.js';

test('facts are always asked as a nested aggregation counting documents', () => {
  const a = aggsBody();
  assert.deepEqual(Object.keys(a), ['facts']);
  assert.deepEqual(a.facts.nested, { path: 'texta_facts' });
  const names = a.facts.aggs.names;
  assert.equal(names.terms.field, 'texta_facts.fact');
  assert.deepEqual(names.aggs.docs, { reverse_nested: {} });
  assert.equal(names.aggs.values.terms.field, 'texta_facts.str_val');
  assert.deepEqual(names.aggs.values.aggs.docs, { reverse_nested: {} });
});

test('terms of a text field go through .keyword; dates get a calendar interval', () => {
  const a = aggsBody({ terms: { path: 'label', type: 'text' }, date: 'date', interval: 'week' });
  assert.equal(a.terms.terms.field, 'label.keyword');
  assert.deepEqual(a.dates, { date_histogram: { field: 'date', calendar_interval: 'week' } });
  assert.equal(termsPath({ path: 'n', type: 'long' }), 'n');
  assert.equal(termsPath({ path: 'tag', type: 'keyword' }), 'tag');
});

test('the search body keeps only the query and asks no hits', () => {
  const q = { query: { match: { text: 'varas' } }, from: 25, size: 25 };
  const b = aggsSearchBody(q, {});
  assert.deepEqual(b.query, q.query);
  assert.equal(b.size, 0);
  assert.equal(b.from, undefined);
  assert.deepEqual(aggsSearchBody({}, {}).query, { match_all: {} });
});

test('fact bars count documents (reverse_nested), falling back to doc_count', () => {
  const aggs = { facts: { doc_count: 3, names: { buckets: [{ key: 'politsei', doc_count: 3, docs: { doc_count: 2 },
    values: { buckets: [{ key: 'varas', doc_count: 1, docs: { doc_count: 1 } }, { key: 'röövel', doc_count: 2 }] } }] } } };
  assert.deepEqual(factBars(aggs), [{ name: 'politsei', count: 2, values: [{ value: 'varas', count: 1 }, { value: 'röövel', count: 2 }] }]);
  assert.deepEqual(factBars({}), []);
});

test('term bars keep the bucket key for the filter', () => {
  const aggs = { terms: { buckets: [{ key: 'krimi', doc_count: 2 }, { key: 3, doc_count: 1 }, { key: 1, key_as_string: 'true', doc_count: 1 }] } };
  assert.deepEqual(termBars(aggs), [{ key: 'krimi', label: 'krimi', count: 2 }, { key: 3, label: '3', count: 1 }, { key: 1, label: 'true', count: 1 }]);
});

test('date bars span one calendar interval', () => {
  const aggs = { dates: { buckets: [
    { key_as_string: '2024-01-01T00:00:00.000Z', key: 1704067200000, doc_count: 1 },
    { key_as_string: '2024-12-01T00:00:00.000Z', key: 1733011200000, doc_count: 0 },
  ] } };
  assert.deepEqual(dateBars(aggs, 'month'), [
    { label: '2024-01', count: 1, from: '2024-01-01T00:00:00.000Z', to: '2024-02-01T00:00:00.000Z' },
    { label: '2024-12', count: 0, from: '2024-12-01T00:00:00.000Z', to: '2025-01-01T00:00:00.000Z' },
  ]);
  assert.equal(nextBoundary('2024-01-29T00:00:00.000Z', 'week'), '2024-02-05T00:00:00.000Z');
  assert.equal(nextBoundary('2024-10-01T00:00:00.000Z', 'quarter'), '2025-01-01T00:00:00.000Z');
  assert.equal(nextBoundary('2024-02-28T00:00:00.000Z', 'day'), '2024-02-29T00:00:00.000Z');
  assert.equal(nextBoundary('2024-01-01T00:00:00.000Z', 'year'), '2025-01-01T00:00:00.000Z');
  assert.equal(dateLabel('2024-10-01T00:00:00.000Z', 'quarter'), '2024 Q4');
  assert.equal(dateLabel('2024-03-01T00:00:00.000Z', 'quarter'), '2024 Q1');
  assert.equal(dateLabel('2024-03-01T00:00:00.000Z', 'year'), '2024');
  assert.equal(dateLabel('2024-03-04T00:00:00.000Z', 'week'), '2024-03-04');
});

test('a fact bar filters with a nested query on fact and value', () => {
  assert.deepEqual(factFilter('politsei', 'varas'), {
    label: 'politsei: varas',
    clause: { nested: { path: 'texta_facts', query: { bool: { must: [
      { term: { 'texta_facts.fact': 'politsei' } }, { term: { 'texta_facts.str_val': 'varas' } }] } } } },
  });
  assert.deepEqual(factFilter('politsei').clause.nested.query.bool.must, [{ term: { 'texta_facts.fact': 'politsei' } }]);
  assert.equal(factFilter('politsei').label, 'fact politsei');
});

test('term and date bars filter with a term and a range', () => {
  assert.deepEqual(termFilter({ path: 'label', type: 'text' }, 'krimi'), { label: 'label = krimi', clause: { term: { 'label.keyword': 'krimi' } } });
  const bar = { label: '2024-02', from: '2024-02-01T00:00:00.000Z', to: '2024-03-01T00:00:00.000Z' };
  assert.deepEqual(dateFilter('date', bar), { label: 'date: 2024-02', clause: { range: { date: { gte: bar.from, lt: bar.to } } } });
});

test('filters are added once and joined to the query with bool.filter', () => {
  const f1 = factFilter('politsei', 'varas');
  const f2 = termFilter({ path: 'label', type: 'text' }, 'krimi');
  let fs = addFilter([], f1);
  fs = addFilter(fs, factFilter('politsei', 'varas'));
  fs = addFilter(fs, f2);
  assert.equal(fs.length, 2);
  const body = { query: { match: { text: 'x' } }, from: 0, size: 25 };
  assert.equal(withFilters(body, []), body);
  assert.deepEqual(withFilters(body, fs), { query: { bool: { must: [body.query], filter: [f1.clause, f2.clause] } }, from: 0, size: 25 });
  assert.deepEqual(withFilters({ size: 5 }, [f1]).query.bool.must, [{ match_all: {} }]);
});
