// Unit tests for js/applyspec.js: the apply-to-index form per model collection and the request
// it sends (collection.md §2.1; api.md §9 for regex tagger groups).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { applyFields, applyInitial, applyPath, applyBody } from '../js/applyspec.js';
import { initialValues, collectBody } from '../js/formvalues.js';

const names = (c) => applyFields(c).map((f) => f.name);
const COMMON = ['description', 'indices', 'fields', 'query'];

test('each collection asks its own fields', () => {
  assert.deepEqual(names('taggers'), ['description', 'new_fact_name', 'new_fact_value', ...COMMON.slice(1), 'lemmatize']);
  assert.deepEqual(names('tagger_groups'), ['description', 'new_fact_name', ...COMMON.slice(1),
    'lemmatize', 'use_ner', 'n_similar_docs', 'n_candidate_tags', 'max_tags']);
  assert.deepEqual(names('torchtaggers'), ['description', 'new_fact_name', 'new_fact_value', ...COMMON.slice(1)]);
  assert.deepEqual(names('regex_taggers'), ['description', 'new_fact_name', 'new_fact_value', ...COMMON.slice(1), 'add_spans']);
  assert.deepEqual(names('regex_tagger_groups'), COMMON);
  assert.throws(() => applyFields('embeddings'));
});

test('the fact name is required except for regex taggers', () => {
  const req = (c) => applyFields(c).find((f) => f.name === 'new_fact_name').required;
  assert.equal(req('taggers'), true);
  assert.equal(req('tagger_groups'), true);
  assert.equal(req('torchtaggers'), true);
  assert.equal(req('regex_taggers'), false);
});

test('initial values take the model fact name when it has one', () => {
  assert.deepEqual(applyInitial({ description: 'Teemad', fact_name: 'TEEMA' }), { description: 'apply Teemad', new_fact_name: 'TEEMA' });
  assert.equal(applyInitial({ description: 'politsei' }).new_fact_name, '');
});

test('paths: apply_to_index, and apply_tagger_group for regex tagger groups', () => {
  assert.equal(applyPath('projects/1/taggers/', 'taggers', 4), 'projects/1/taggers/4/apply_to_index/');
  assert.equal(applyPath('projects/1/regex_tagger_groups/', 'regex_tagger_groups', 2), 'projects/1/regex_tagger_groups/2/apply_tagger_group/');
});

test('a regex tagger body: indices as names, query as a JSON string, defaults left to the server', () => {
  const specs = applyFields('regex_taggers');
  const v = { ...initialValues(specs, applyInitial({ description: 'politsei' })), indices: ['news'], fields: ['text'] };
  const { body, errors } = collectBody(specs, v);
  assert.deepEqual(errors, {});
  assert.deepEqual(applyBody('regex_taggers', body), {
    description: 'apply politsei', indices: [{ name: 'news' }], fields: ['text'],
    query: '{"query":{"match_all":{}}}', add_spans: true,
  });
});

test('a tagger group body carries its options; no indices means []', () => {
  const specs = applyFields('tagger_groups');
  const v = { ...initialValues(specs, applyInitial({ description: 'g', fact_name: 'TEEMA' })), fields: ['text'], query: '' };
  const out = applyBody('tagger_groups', collectBody(specs, v).body);
  assert.deepEqual(out, {
    description: 'apply g', new_fact_name: 'TEEMA', indices: [], fields: ['text'],
    lemmatize: false, use_ner: false, n_similar_docs: 25, n_candidate_tags: 25, max_tags: 10000,
  });
});

test('regex tagger groups take the query as an object', () => {
  const out = applyBody('regex_tagger_groups', { description: 'd', fields: ['text'], query: { query: { match_all: {} } } });
  assert.deepEqual(out.query, { query: { match_all: {} } });
  assert.deepEqual(out.indices, []);
});
