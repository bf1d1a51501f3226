// Unit tests for js/taskstate.js: task cell state per status (gui.md §7.1).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { taskView, formatDuration, parseTaskErrors, needsPolling, isTerminal } from '../js/taskstate.js';

const t = (o) => ({ id: 1, status: 'created', progress: 0, step: '', errors: '[]', time_started: '2020-09-23T11:05:06.123456Z',
  last_update: null, time_completed: null, total: 0, num_processed: 0, ...o });

test('null task', () => {
  assert.equal(taskView(null).label, 'Not started');
  assert.equal(taskView(null, { nullLabel: 'Not applied' }).label, 'Not applied');
  assert.equal(taskView(null).status, 'none');
});

test('waiting states are indeterminate', () => {
  for (const s of ['created', 'queued']) {
    const v = taskView(t({ status: s }));
    assert.equal(v.label, 'Waiting');
    assert.equal(v.indeterminate, true);
    assert.equal(needsPolling(t({ status: s })), true);
  }
});

test('running shows rounded percent, step and counts', () => {
  const v = taskView(t({ status: 'running', progress: 42.5, step: 'training', total: 10, num_processed: 4 }));
  assert.equal(v.percentText, '43 %');
  assert.equal(v.step, 'training');
  assert.equal(v.counts, '4 / 10');
  assert.equal(v.indeterminate, false);
  assert.equal(taskView(t({ status: 'running', progress: 0 })).indeterminate, true);
  assert.equal(taskView(t({ status: 'running' })).counts, null);
});

test('completed has a full bar and duration; warnings from errors', () => {
  const v = taskView(t({ status: 'completed', progress: 100, time_completed: '2020-09-23T11:06:11.123456Z', errors: '["row 3 bad"]' }));
  assert.equal(v.label, 'Completed');
  assert.equal(v.progress, 100);
  assert.equal(v.percentText, '100 %');
  assert.equal(v.duration, '1 min 5 s');
  assert.deepEqual(v.errors, ['row 3 bad']);
  assert.equal(isTerminal('completed'), true);
});

test('failed cuts the first error to 80 characters', () => {
  const long = 'x'.repeat(100);
  const v = taskView(t({ status: 'failed', errors: JSON.stringify([long, 'b']) }));
  assert.equal(v.label, 'Failed');
  assert.equal(v.firstError.length, 80);
  assert.equal(v.errors.length, 2);
  assert.equal(needsPolling(t({ status: 'failed' })), false);
});

test('cancelled', () => {
  assert.equal(taskView(t({ status: 'cancelled' })).label, 'Cancelled');
});

test('formatDuration and parseTaskErrors', () => {
  assert.equal(formatDuration(3000), '3 s');
  assert.equal(formatDuration(65000), '1 min 5 s');
  assert.equal(formatDuration(3660000), '1 h 1 min');
  assert.equal(formatDuration(-1), null);
  assert.deepEqual(parseTaskErrors('[]'), []);
  assert.deepEqual(parseTaskErrors('not json'), ['not json']);
  assert.deepEqual(parseTaskErrors(''), []);
});
