// Field specs and columns shared by the trained-model pages (embeddings, taggers, torch
// taggers, tagger groups): indices/fields/query pickers, score formatting, time columns.
import { html } from '../preact.js';
import { getAll } from '../api.js';
import { TaskCell } from '../components/task.js';
import { fmtTime } from '../components/table.js';

export const MATCH_ALL = { query: { match_all: {} } };

export const indicesField = (name = 'indices') => ({ name, label: 'Indices', type: 'indices', hint: 'None chosen = all project indices.' });
export const fieldsField = (name = 'fields') => ({ name, label: 'Fields', type: 'fields', required: true });
export const queryField = (label = 'Query') => ({ name: 'query', label, type: 'json', default: MATCH_ALL, rows: 4 });

/** Optional embedding select fed by the project's completed embeddings. */
export function embeddingField(pid, name = 'embedding') {
  return {
    name, label: 'Embedding', type: 'select', numeric: true, placeholder: 'None', emptyAs: null,
    load: async () => (await getAll(`projects/${pid}/embeddings/?task_status=completed`)).map((e) => ({ value: String(e.id), label: e.description })),
  };
}

export const score = (v) => (typeof v === 'number' ? v.toFixed(2) : '—');

export function taskColumns() {
  return [
    { key: 'started', label: 'Started', render: (r) => fmtTime(r.task && r.task.time_started) },
    { key: 'completed', label: 'Completed', render: (r) => fmtTime(r.task && r.task.time_completed) },
    { key: 'task', label: 'Task', render: (r) => html`<${TaskCell} task=${r.task} description=${r.description} />` },
  ];
}

/** Indices of a resource (Index objects) as names for the edit form. */
export function withIndexNames(r) {
  return { ...r, indices: (r.indices || []).map((i) => (typeof i === 'string' ? i : i.name)) };
}
