// Unit tests for js/formvalues.js: initial values and request bodies built from field specs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { initialValues, collectBody, visibleFields } from '../js/formvalues.js';

const specs = [
  { name: 'description', type: 'text', required: true },
  { name: 'lexicon', type: 'lines', required: true },
  { name: 'counter_lexicon', type: 'lines' },
  { name: 'operator', type: 'select', default: 'or' },
  { name: 'required_words', type: 'number', default: 1.0, showIf: (v) => v.operator === 'and' },
  { name: 'phrase_slop', type: 'integer', default: 0 },
  { name: 'ignore_case', type: 'checkbox', default: true },
];

test('initial values from defaults and a resource', () => {
  const v = initialValues(specs, { description: 'politsei', lexicon: ['varas', 'röövel'] });
  assert.equal(v.description, 'politsei');
  assert.equal(v.lexicon, 'varas\nröövel');
  assert.equal(v.counter_lexicon, '');
  assert.equal(v.operator, 'or');
  assert.equal(v.phrase_slop, '0');
  assert.equal(v.ignore_case, true);
});

test('lines drop blanks; hidden fields are not sent; numbers are numbers', () => {
  const v = { ...initialValues(specs), description: 'p', lexicon: ' varas \n\n röövel\n' };
  const { body, errors } = collectBody(specs, v);
  assert.deepEqual(errors, {});
  assert.deepEqual(body, { description: 'p', lexicon: ['varas', 'röövel'], operator: 'or', phrase_slop: 0, ignore_case: true });
  const and = collectBody(specs, { ...v, operator: 'and' }).body;
  assert.equal(and.required_words, 1);
  assert.equal(visibleFields(specs, { operator: 'or' }).some((f) => f.name === 'required_words'), false);
});

test('empty required lists are sent empty so the server answers', () => {
  const { body } = collectBody(specs, { ...initialValues(specs), description: 'p' });
  assert.deepEqual(body.lexicon, []);
  assert.equal('counter_lexicon' in body, false);
});

test('indices become {name} objects and dotted names nest', () => {
  const s = [
    { name: 'tagger.indices', type: 'indices' },
    { name: 'tagger.fields', type: 'fields', required: true },
    { name: 'tagger.embedding', type: 'select', numeric: true, emptyAs: null },
    { name: 'regex_taggers', type: 'multiselect', numeric: true },
  ];
  const v = initialValues(s, { tagger: { indices: [{ name: 'news', id: 1 }] } });
  assert.deepEqual(v['tagger.indices'], ['news']);
  const { body } = collectBody(s, { ...v, 'tagger.fields': ['text'], regex_taggers: ['3', '5'] });
  assert.deepEqual(body, { tagger: { indices: [{ name: 'news' }], fields: ['text'], embedding: null }, regex_taggers: [3, 5] });
});

test('JSON fields are parsed, pretty-printed on load, and invalid JSON is a field error', () => {
  const s = [{ name: 'query', type: 'json', default: { query: { match_all: {} } } }];
  const v = initialValues(s, { query: '{"query": {"match": {"text": "varas"}}}' });
  assert.match(v.query, /\n/);
  assert.deepEqual(collectBody(s, v).body, { query: { query: { match: { text: 'varas' } } } });
  const bad = collectBody(s, { query: '{nope' });
  assert.ok(bad.errors.query[0].startsWith('Not valid JSON'));
  assert.deepEqual(collectBody(s, { query: '  ' }).body, {});
});
