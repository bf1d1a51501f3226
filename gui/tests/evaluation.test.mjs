// Unit tests for js/evaluation.js: the confusion matrix as heat-map cells with labels, the
// per-class rows and their order, the fact options of the create form (collection.md §6).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  parseMatrix, matrixLabels, heatRows, cellColours, classRows, sortRows, factOptions, valueOptions,
} from '../js/evaluation.js';

test('matrices parse from their JSON text; nothing drawable is empty', () => {
  assert.deepEqual(parseMatrix('[[3, 1], [0, 2]]'), [[3, 1], [0, 2]]);
  assert.deepEqual(parseMatrix('[]'), []);
  assert.deepEqual(parseMatrix('[[]]'), []);
  assert.deepEqual(parseMatrix('not json'), []);
  assert.deepEqual(parseMatrix('{"a": 1}'), []);
});

test('labels: the value for binary, the sorted classes for multilabel, else numbers', () => {
  const binary = { evaluation_type: 'binary', true_fact_value: 'sport' };
  assert.deepEqual(matrixLabels(binary, [], 2), ['not sport', 'sport']);
  const multi = { evaluation_type: 'multilabel' };
  assert.deepEqual(matrixLabels(multi, ['c', 'a', 'b'], 3), ['a', 'b', 'c']);
  assert.deepEqual(matrixLabels(multi, [], 3), ['1', '2', '3']);
});

test('heat-map cells are shaded by their share of the largest count', () => {
  const rows = heatRows([[4, 0], [1, 2]], ['a', 'b']);
  assert.deepEqual(rows, [
    { label: 'a', cells: [{ count: 4, shade: 1, truth: 'a', predicted: 'a' }, { count: 0, shade: 0, truth: 'a', predicted: 'b' }] },
    { label: 'b', cells: [{ count: 1, shade: 0.25, truth: 'b', predicted: 'a' }, { count: 2, shade: 0.5, truth: 'b', predicted: 'b' }] },
  ]);
  assert.equal(heatRows([[0]], ['a'])[0].cells[0].shade, 0);
  assert.deepEqual(cellColours(0), { background: 'rgb(247, 251, 255)', color: '#000' });
  assert.deepEqual(cellColours(1), { background: 'rgb(8, 48, 107)', color: '#fff' });
});

test('per-class rows order by any column; ties keep label order', () => {
  const rows = classRows({
    b: { precision: 1, recall: 0.5, f1_score: 0.6, accuracy: 0.8, count: 2, confusion_matrix: [[4, 0], [1, 1]] },
    a: { precision: 0.5, recall: 1, f1_score: 0.6, accuracy: 0.8, count: 3, confusion_matrix: [[3, 1], [0, 2]] },
    c: { precision: 0.5, recall: 1, f1_score: 0.7, accuracy: 0.9, count: 3, confusion_matrix: [[3, 1], [0, 2]] },
  });
  assert.deepEqual(rows[0], { label: 'b', precision: 1, recall: 0.5, f1_score: 0.6, accuracy: 0.8, count: 2 });
  const labels = (key, desc) => sortRows(rows, key, desc).map((r) => r.label);
  assert.deepEqual(labels('label', false), ['a', 'b', 'c']);
  assert.deepEqual(labels('label', true), ['c', 'b', 'a']);
  assert.deepEqual(labels('count', true), ['a', 'c', 'b']);
  assert.deepEqual(labels('f1_score', false), ['a', 'b', 'c']);
  assert.deepEqual(labels('precision', true), ['b', 'a', 'c']);
  assert.deepEqual(classRows(undefined), []);
});

test('fact names and the values of the chosen fact as options', () => {
  const facts = [{ name: 'GOLD', values: ['a', 'b'] }, { name: 'PRED', values: ['a', 7] }];
  assert.deepEqual(factOptions(facts), [{ value: 'GOLD', label: 'GOLD' }, { value: 'PRED', label: 'PRED' }]);
  assert.deepEqual(valueOptions(facts, 'PRED'), [{ value: 'a', label: 'a' }, { value: '7', label: '7' }]);
  assert.deepEqual(valueOptions(facts, ''), []);
  assert.deepEqual(factOptions(null), []);
});
