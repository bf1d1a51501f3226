// Unit tests for js/reindexspec.js: field-change rows into `field_type` items and the
// reindexer's request body (collection.md §3).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FIELD_TYPES, parseFieldTypes, reindexBody } from '../js/reindexspec.js';
import { collectBody, initialValues } from '../js/formvalues.js';

test('the field types are those the API accepts', () => {
  assert.deepEqual(FIELD_TYPES, ['text', 'keyword', 'long', 'float', 'boolean', 'date', 'fact']);
});

test('rows become items; a blank new path keeps the name; blank rows are dropped', () => {
  const rows = [
    { path: 'label', new_path_name: ' category ', field_type: 'keyword' },
    { path: '', new_path_name: '', field_type: '' },
    { path: 'count', new_path_name: '', field_type: 'long' },
  ];
  assert.deepEqual(parseFieldTypes(rows), {
    value: [{ path: 'label', field_type: 'keyword', new_path_name: 'category' }, { path: 'count', field_type: 'long' }],
    errors: [],
  });
});

test('no filled row: no value, so the field is left out', () => {
  assert.deepEqual(parseFieldTypes([]), { value: undefined, errors: [] });
  assert.deepEqual(parseFieldTypes([{ path: '', new_path_name: ' ', field_type: '' }]), { value: undefined, errors: [] });
});

test('half-filled, doubled and spaced rows are refused with their row numbers', () => {
  const { errors } = parseFieldTypes([
    { path: '', new_path_name: 'x', field_type: 'text' },
    { path: 'a', new_path_name: '', field_type: '' },
    { path: 'a', new_path_name: 'b c', field_type: 'text' },
  ]);
  assert.deepEqual(errors, [
    'Row 1: choose a field.',
    'Row 2: choose a type.',
    'Row 3: a is changed twice.',
    'Row 3: a new path has no spaces.',
  ]);
});

test('the body: plain index names, the rest as collected', () => {
  const fields = [
    { name: 'description', type: 'text', required: true },
    { name: 'indices', type: 'indices' },
    { name: 'query', type: 'json' },
    { name: 'new_index', type: 'text', required: true },
    { name: 'fields', type: 'fields' },
    { name: 'field_type', type: 'rows', parse: parseFieldTypes },
    { name: 'random_size', type: 'integer', default: 0 },
  ];
  const values = {
    ...initialValues(fields), description: 'sample', indices: ['news'], query: '{"query": {"match": {"label": "krimi"}}}',
    new_index: 'news_sample', fields: ['text', 'label'], random_size: '2',
    field_type: [{ path: 'label', new_path_name: 'category', field_type: 'keyword' }],
  };
  const { body, errors } = collectBody(fields, values);
  assert.deepEqual(errors, {});
  assert.deepEqual(reindexBody(body), {
    description: 'sample', indices: ['news'], query: { query: { match: { label: 'krimi' } } }, new_index: 'news_sample',
    fields: ['text', 'label'], field_type: [{ path: 'label', field_type: 'keyword', new_path_name: 'category' }], random_size: 2,
  });
  const bad = collectBody(fields, { ...values, field_type: [{ path: 'label', new_path_name: '', field_type: '' }] });
  assert.deepEqual(bad.errors, { field_type: ['Row 1: choose a type.'] });
  assert.deepEqual(reindexBody(collectBody(fields, { ...values, indices: [] }).body).indices, []);
});
