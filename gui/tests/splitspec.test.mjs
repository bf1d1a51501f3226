// Unit tests for js/splitspec.js: what each distribution asks for, quota rows into
// `custom_distribution`, and the index splitter's request body (collection.md §4).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { perLabel, needsFact, testSizeHint, parseQuotas, splitBody, countBody } from '../js/splitspec.js';

test('test size: a percentage with random and original, a count per label otherwise', () => {
  assert.deepEqual(['random', 'original', 'equal', 'custom'].map(perLabel), [false, false, true, true]);
  assert.match(testSizeHint('random'), /^Percentage/);
  assert.match(testSizeHint('equal'), /per label/);
});

test('every distribution but random needs a fact', () => {
  assert.deepEqual(['random', 'original', 'equal', 'custom', ''].map(needsFact), [false, true, true, true, false]);
});

test('quota rows become {label: count}; blank rows are dropped', () => {
  assert.deepEqual(parseQuotas([{ label: ' krimi ', count: '2' }, { label: '', count: '' }, { label: 'ilm', count: 0 }]),
    { value: { krimi: 2, ilm: 0 }, errors: [] });
  assert.deepEqual(parseQuotas([{ label: '', count: '' }]), { value: undefined, errors: [] });
});

test('bad quota rows are refused with their row numbers', () => {
  const { value, errors } = parseQuotas([
    { label: 'krimi', count: '-1' }, { label: '', count: '3' }, { label: 'ilm', count: '1.5' },
    { label: 'sport', count: '1' }, { label: 'sport', count: '2' },
  ]);
  assert.deepEqual(errors, [
    'Row 1: the count must be a whole number, 0 or more.',
    'Row 2: a label is needed.',
    'Row 3: the count must be a whole number, 0 or more.',
    'Row 5: sport has a quota already.',
  ]);
  assert.deepEqual(value, { sport: 1 });
});

test('the body: indices as {name}; custom always carries its quotas', () => {
  assert.deepEqual(splitBody({ description: 'd', train_index: 'a', test_index: 'b', distribution: 'random', test_size: 25 }),
    { description: 'd', train_index: 'a', test_index: 'b', distribution: 'random', test_size: 25, indices: [] });
  assert.deepEqual(splitBody({ description: 'd', indices: [{ name: 'news' }], distribution: 'custom', fact: 'L' }),
    { description: 'd', indices: [{ name: 'news' }], distribution: 'custom', fact: 'L', custom_distribution: {} });
  assert.deepEqual(splitBody({ distribution: 'custom', custom_distribution: { x: 1 } }).custom_distribution, { x: 1 });
});

test('counting an index', () => {
  assert.deepEqual(countBody('news_test'), { indices: ['news_test'], query: { query: { match_all: {} }, size: 0 } });
});
