// Unit tests for js/spans.js: code-point spans, overlaps, search-word and fact marks (gui.md §4.5).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { toSegments, wordMarks, factMarks, colorIndex, legendLabels, unitToCodePoint } from '../js/spans.js';

const marked = (segs) => segs.filter((s) => s.marks.length).map((s) => s.text);

test('plain span', () => {
  const t = 'Eile kell 10 õhtul sisenes varas keemiatehasesse.';
  const segs = toSegments(t, [{ start: 27, end: 32, label: 'politsei' }]);
  assert.deepEqual(marked(segs), ['varas']);
  assert.equal(segs.map((s) => s.text).join(''), t);
});

test('an astral character before the match shifts UTF-16 but not code points', () => {
  const t = '🚓 Täna tabati varas.';
  // code points: 🚓=0, space=1, T=2 ... "varas" starts at 14
  assert.equal(Array.from(t).indexOf("v"), 14);
  assert.equal(t.indexOf("v"), 15); // UTF-16 index differs
  const segs = toSegments(t, [{ start: 14, end: 19, label: "politsei" }]);
  assert.deepEqual(marked(segs), ['varas']);
});

test('overlapping spans split at every boundary', () => {
  const segs = toSegments('abcdef', [{ start: 0, end: 4, label: 'A' }, { start: 2, end: 6, label: 'B' }]);
  assert.deepEqual(segs.map((s) => [s.text, s.marks.map((m) => m.label)]), [
    ['ab', ['A']], ['cd', ['A', 'B']], ['ef', ['B']],
  ]);
});

test('out-of-range and empty spans are ignored or clipped', () => {
  const segs = toSegments('abc', [{ start: 2, end: 10, label: 'A' }, { start: 1, end: 1, label: 'B' }]);
  assert.deepEqual(segs.map((s) => [s.text, s.marks.length]), [['ab', 0], ['c', 1]]);
});

test('search-word marks are case-insensitive word prefixes in code points', () => {
  const t = '😀 Varas ja kaasvaras, varastati';
  const m = wordMarks(t, ['varas']);
  assert.deepEqual(m.map((x) => [x.start, x.end, x.value]), [[2, 7, 'Varas'], [22, 27, 'varas']]);
  assert.deepEqual(marked(toSegments(t, m)), ['Varas', 'varas']);
});

test('fact marks parse JSON span strings and keep only the field', () => {
  const facts = [
    { fact: 'Hädaabi', str_val: 'politsei', doc_path: 'text', spans: '[[0, 5]]' },
    { fact: 'X', str_val: 'y', doc_path: 'other', spans: '[[0, 1]]' },
    { fact: 'Z', str_val: 'z', doc_path: 'text', spans: '[[0, 0]]' },
  ];
  assert.deepEqual(factMarks(facts, 'text'), [{ start: 0, end: 5, label: 'Hädaabi', value: 'politsei' }]);
});

test('colour index is stable and in range; legend keeps first-appearance order', () => {
  assert.equal(colorIndex('politsei'), colorIndex('politsei'));
  assert.ok(colorIndex('x') >= 0 && colorIndex('x') < 8);
  assert.deepEqual(legendLabels([{ label: 'b' }, { label: 'a' }, { label: 'b' }]), ['b', 'a']);
});

test('unitToCodePoint', () => {
  assert.equal(unitToCodePoint('🚓a', 2), 1);
});
