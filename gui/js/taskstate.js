// Task cell state (gui.md §7.1): what a task cell shows for a task object of
// conventions.md §8, and which statuses keep a page polling (§7.2).
// Pure: no DOM, unit-tested with node --test.

export const NON_TERMINAL = ['created', 'queued', 'running', 'updating'];
export const TERMINAL = ['completed', 'failed', 'cancelled'];

export function isTerminal(status) {
  return TERMINAL.includes(status);
}

export function needsPolling(task) {
  return !!task && NON_TERMINAL.includes(task.status);
}

/** Parses the JSON-encoded `errors` string of a task into a list of strings. */
export function parseTaskErrors(errors) {
  if (Array.isArray(errors)) return errors.map(String);
  if (typeof errors !== 'string' || errors.trim() === '') return [];
  try {
    const v = JSON.parse(errors);
    if (Array.isArray(v)) return v.map((x) => (typeof x === 'string' ? x : JSON.stringify(x)));
    return [String(v)];
  } catch {
    return [errors];
  }
}

/** "1 min 5 s", "3 s", "2 h 1 min", "0 s"; null for a missing or negative time. */
export function formatDuration(ms) {
  if (typeof ms !== 'number' || !Number.isFinite(ms) || ms < 0) return null;
  let s = Math.round(ms / 1000);
  const h = Math.floor(s / 3600);
  s -= h * 3600;
  const m = Math.floor(s / 60);
  s -= m * 60;
  if (h > 0) return `${h} h${m ? ` ${m} min` : ''}`;
  if (m > 0) return `${m} min${s ? ` ${s} s` : ''}`;
  return `${s} s`;
}

function duration(task) {
  if (!task.time_started || !task.time_completed) return null;
  const a = Date.parse(task.time_started);
  const b = Date.parse(task.time_completed);
  if (Number.isNaN(a) || Number.isNaN(b)) return null;
  return formatDuration(b - a);
}

/**
 * @param {object|null} task
 * @param {{nullLabel?:string}} [opts]
 * @returns {{status:string, label:string, tone:string, progress:number, indeterminate:boolean,
 *   percentText:(string|null), step:string, counts:(string|null), duration:(string|null),
 *   errors:string[], firstError:(string|null), terminal:boolean}}
 */
export function taskView(task, opts = {}) {
  const base = {
    status: 'none', label: opts.nullLabel || 'Not started', tone: 'idle', progress: 0,
    indeterminate: false, percentText: null, step: '', counts: null, duration: null,
    errors: [], firstError: null, terminal: true, showBar: false,
  };
  if (!task) return base;
  const status = String(task.status || 'created');
  const progress = Math.max(0, Math.min(100, Number(task.progress) || 0));
  const errors = parseTaskErrors(task.errors);
  const v = { ...base, status, errors, terminal: isTerminal(status), progress, showBar: true };
  switch (status) {
    case 'created':
    case 'queued':
      return { ...v, label: 'Waiting', tone: 'wait', indeterminate: true };
    case 'running':
    case 'updating': {
      const total = Number(task.total) || 0;
      return {
        ...v, label: status === 'updating' ? 'Updating' : 'Running', tone: 'run',
        indeterminate: progress === 0, percentText: `${Math.round(progress)} %`,
        step: task.step || '',
        counts: total > 0 ? `${Number(task.num_processed) || 0} / ${total}` : null,
      };
    }
    case 'completed':
      return { ...v, label: 'Completed', tone: 'ok', progress: 100, percentText: '100 %', duration: duration(task) };
    case 'failed': {
      const first = errors[0] ?? null;
      return {
        ...v, label: 'Failed', tone: 'bad', progress: 100,
        firstError: first && first.length > 80 ? first.slice(0, 79) + '…' : first,
        duration: duration(task),
      };
    }
    case 'cancelled':
      return { ...v, label: 'Cancelled', tone: 'idle', showBar: false };
    default:
      return { ...v, label: status, tone: 'idle', showBar: false };
  }
}
