// Unit tests for js/errors.js: DRF error bodies of conventions.md §6 → form/toast display (gui.md §6).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { normalizeError, splitForForm, isSessionEnd, errorText, detailUnderField } from '../js/errors.js';

test('field errors stay under their field', () => {
  const n = normalizeError(400, { password1: ['Password must be a minimum of 6 characters.'] });
  assert.deepEqual(n.fields, { password1: ['Password must be a minimum of 6 characters.'] });
  assert.deepEqual(n.summary, []);
});

test('non_field_errors go to the summary', () => {
  const n = normalizeError(400, { non_field_errors: ["The two password fields didn't match."] });
  assert.deepEqual(n.summary, ["The two password fields didn't match."]);
});

test('list-child errors become Line n', () => {
  const n = normalizeError(400, { lexicon: { 0: ['This field may not be blank.'], 2: ['x'] } });
  assert.deepEqual(n.fields.lexicon, ['Line 1: This field may not be blank.', 'Line 3: x']);
});

test('nested object errors use dotted paths, summary with ›', () => {
  const n = normalizeError(400, { tagger: { fields: ['This field is required.'] } });
  assert.deepEqual(n.fields, { 'tagger.fields': ['This field is required.'] });
  const withCtl = splitForForm(n, ['tagger.fields']);
  assert.deepEqual(withCtl.fields, { 'tagger.fields': ['This field is required.'] });
  const without = splitForForm(n, ['description']);
  assert.deepEqual(without.summary, ['tagger › fields: This field is required.']);
});

test('nested non_field_errors stay on the parent field', () => {
  const n = normalizeError(400, { tagger: { non_field_errors: ['Invalid data. Expected a dictionary, but got str.'] } });
  assert.deepEqual(n.fields, { tagger: ['Invalid data. Expected a dictionary, but got str.'] });
});

test('many nested serializer errors name the item', () => {
  const n = normalizeError(400, { indices: [{}, { name: ['This field is required.'] }] });
  assert.deepEqual(n.fields.indices, ['item 2: name: This field is required.']);
});

test('detail and error bodies', () => {
  const d = normalizeError(400, { detail: 'Uppercase characters are not allowed!' });
  assert.equal(d.detail, 'Uppercase characters are not allowed!');
  assert.deepEqual(d.summary, ['Uppercase characters are not allowed!']);
  const e = normalizeError(400, { error: 'Must include key "ids" with an array of integers (private keys)' });
  assert.equal(e.detail, 'Must include key "ids" with an array of integers (private keys)');
});

test('bare array of strings', () => {
  const n = normalizeError(400, ['No indices are available to you!', 'second']);
  assert.deepEqual(n.summary, ['No indices are available to you!', 'second']);
});

test('a JSON string or number body', () => {
  assert.deepEqual(normalizeError(400, 'oops').summary, ['HTTP 400: oops']);
  assert.deepEqual(normalizeError(500, 42).summary, ['HTTP 500: 42']);
});

test('no JSON body and network failure', () => {
  assert.deepEqual(normalizeError(502, undefined, 'Bad Gateway').summary, ['HTTP 502 Bad Gateway']);
  assert.deepEqual(normalizeError(0, undefined).summary, ['Cannot reach the server']);
});

test('fields without a control go to the summary as field: m', () => {
  const n = normalizeError(400, { title: ['This field is required.'], users: ['Invalid hyperlink - No URL match.'] });
  const s = splitForForm(n, ['title']);
  assert.deepEqual(s.fields, { title: ['This field is required.'] });
  assert.deepEqual(s.summary, ['users: Invalid hyperlink - No URL match.']);
});

test('session end detection', () => {
  assert.equal(isSessionEnd(403, { detail: 'Invalid token.' }), true);
  assert.equal(isSessionEnd(403, { detail: 'Authentication credentials were not provided.' }), true);
  assert.equal(isSessionEnd(403, { detail: 'User inactive or deleted.' }), true);
  assert.equal(isSessionEnd(403, { detail: 'Insufficient permissions for this project.' }), false);
  assert.equal(isSessionEnd(400, { detail: 'Invalid token.' }), false);
  assert.equal(isSessionEnd(403, ['Invalid token.']), false);
});

test('errorText joins summary and fields', () => {
  const n = normalizeError(400, { non_field_errors: ['a'], names: ['b'] });
  assert.equal(errorText(n), 'a\nnames: b');
});

test('a lone detail moves under the named control; field errors stay', () => {
  const under = detailUnderField('new_index');
  assert.deepEqual(under(normalizeError(400, { detail: 'Uppercase characters are not allowed!' })),
    { status: 400, summary: [], fields: { new_index: ['Uppercase characters are not allowed!'] }, detail: 'Uppercase characters are not allowed!' });
  const taken = normalizeError(400, { new_index: ['new_index already exists, choose a different name for your reindexed index'] });
  assert.equal(under(taken), taken);
});
