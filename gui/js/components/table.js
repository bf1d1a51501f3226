// Resource table (gui.md §4.1) for one paginated collection: paging, sorting, description
// filter, row selection + bulk delete, row action menu (…, Edit, Delete), row expansion with
// every field, and task polling (§7.2) with finish/fail toasts.
import { html, useState, useEffect, useRef } from '../preact.js';
import { get, post, del } from '../api.js';
import { toast, pref, setPref, state } from '../state.js';
import { needsPolling, isTerminal } from '../taskstate.js';
import { errorText } from '../errors.js';
import { ConfirmDialog } from './dialog.js';
import { useDebounced } from './hooks.js';

export const POLL_MS = 2000;
export const BACKOFF_MS = 10000;

/** Poll interval: `?poll=500` in the hash query shortens it for tests. */
export function pollInterval() {
  const q = state.route && state.route.query && Number(state.route.query.poll);
  return q && q >= 100 ? q : POLL_MS;
}

/** Row action menu: a ⋮ button opening a list of action buttons. */
export function RowMenu({ label, actions }) {
  const [open, setOpen] = useState(false);
  const ref = useRef(null);
  useEffect(() => {
    if (!open) return undefined;
    const onDoc = (e) => { if (ref.current && !ref.current.contains(e.target)) setOpen(false); };
    const onKey = (e) => {
      if (e.key === 'Escape') {
        setOpen(false);
        const b = ref.current && ref.current.querySelector('button');
        if (b) b.focus();
      }
    };
    document.addEventListener('mousedown', onDoc);
    document.addEventListener('keydown', onKey);
    const first = ref.current && ref.current.querySelector('.row-menu-list button');
    if (first) first.focus();
    return () => { document.removeEventListener('mousedown', onDoc); document.removeEventListener('keydown', onKey); };
  }, [open]);
  return html`<div class="row-menu" ref=${ref}>
    <button type="button" class="icon" aria-label=${label} aria-haspopup="true" aria-expanded=${open ? 'true' : 'false'}
      onClick=${() => setOpen(!open)}>⋮</button>
    ${open ? html`<ul class="row-menu-list">
      ${actions.map((a) => html`<li key=${a.label}><button type="button" class=${a.danger ? 'danger' : 'secondary'}
        onClick=${() => {
          setOpen(false);
          // focus the ⋮ button first, so a dialog opened by the action returns focus there
          const b = ref.current && ref.current.querySelector('button');
          if (b) b.focus();
          a.run();
        }}>${a.label}</button></li>`)}
    </ul>` : null}
  </div>`;
}

function fmtValue(v) {
  if (v === null || v === undefined) return '—';
  if (typeof v === 'string') {
    const t = v.trim();
    if ((t.startsWith('{') || t.startsWith('[')) && t.length > 1) {
      try { return JSON.stringify(JSON.parse(t), null, 2); } catch { /* plain */ }
    }
    return v;
  }
  if (typeof v === 'object') return JSON.stringify(v, null, 2);
  return String(v);
}

/** Every field of a resource as a definition list. */
export function DetailList({ row }) {
  return html`<dl class="details">${Object.entries(row).map(([k, v]) => html`<div key=${k}>
    <dt>${k}</dt><dd><pre>${fmtValue(v)}</pre></dd></div>`)}</dl>`;
}

/** "1.5 s ago"-free timestamp: local date and time. */
export function fmtTime(s) {
  if (!s) return '—';
  const d = new Date(s);
  return Number.isNaN(d.getTime()) ? s : d.toLocaleString();
}

/**
 * @param {{path:string, resource:string, columns:Array, describe?:Function, rowActions?:Function,
 *   onEdit?:Function, reloadSignal?:number, pollWhen?:Function, finished?:Function, failedText?:Function,
 *   createButton?:any, deleteMessage?:Function, onData?:Function, unavailable?:any, noEdit?:boolean}} p
 */
export function ResourceTable(p) {
  const describe = p.describe || ((r) => r.description || `#${r.id}`);
  const prefKey = `pagesize.${p.path.replace(/^projects\/\d+\//, '')}`;
  const [page, setPage] = useState(1);
  const [pageSize, setPageSize] = useState(Number(pref(prefKey, 25)) || 25);
  const [ordering, setOrdering] = useState('');
  const [filterText, setFilterText] = useState('');
  const filter = useDebounced(filterText, 300);
  const [data, setData] = useState(null);
  const [busy, setBusy] = useState(false);
  const [unavailable, setUnavailable] = useState(false);
  const [loadError, setLoadError] = useState(null);
  const [selected, setSelected] = useState(() => new Set());
  const [expanded, setExpanded] = useState(() => new Set());
  const [confirm, setConfirm] = useState(null);
  const [flash, setFlash] = useState(() => new Set());
  const inflight = useRef(false);
  const timer = useRef(null);
  const failures = useRef(0);
  const prevStatus = useRef(null);
  const alive = useRef(true);
  const params = useRef({});
  params.current = { page, pageSize, ordering, filter };
  const pollWhen = p.pollWhen || ((r) => needsPolling(r.task));

  const schedule = (rows) => {
    clearTimeout(timer.current);
    if (!alive.current) return;
    const need = rows && rows.some(pollWhen);
    if (!need && failures.current === 0) return;
    timer.current = setTimeout(() => load(true), failures.current >= 3 ? BACKOFF_MS : pollInterval());
  };

  const noteTransitions = (rows) => {
    const prev = prevStatus.current;
    const next = new Map();
    const flashed = [];
    for (const r of rows) {
      const st = p.statusOf ? p.statusOf(r) : (r.task ? r.task.status : null);
      next.set(r.id, st);
      if (prev && prev.has(r.id)) {
        const was = prev.get(r.id);
        if (was && !isTerminal(was) && st === 'completed') {
          toast(p.finished ? p.finished(r) : `${p.resource} ${describe(r)} finished`);
          flashed.push(r.id);
        } else if (was && !isTerminal(was) && st === 'failed') {
          toast(p.failedText ? p.failedText(r) : `${p.resource} ${describe(r)} failed`, 'error');
        }
      } else if (prev && !prev.has(r.id) && st === 'completed' && p.finishedOnFirstSight && p.finishedOnFirstSight(r)) {
        toast(p.finished ? p.finished(r) : `${p.resource} ${describe(r)} finished`);
      }
    }
    prevStatus.current = next;
    if (flashed.length) {
      setFlash(new Set(flashed));
      setTimeout(() => alive.current && setFlash(new Set()), 1500);
    }
  };

  const load = async (isPoll = false, pageOverride) => {
    if (inflight.current) {
      if (!isPoll) { clearTimeout(timer.current); timer.current = setTimeout(() => load(false, pageOverride), 100); }
      return;
    }
    if (isPoll && document.hidden) return;
    const { pageSize: ps, ordering: ord, filter: flt } = params.current;
    const pg = pageOverride || params.current.page;
    const q = new URLSearchParams({ page: String(pg), page_size: String(ps) });
    if (ord) q.set('ordering', ord);
    if (flt) q.set('description', flt);
    inflight.current = true;
    if (!isPoll) setBusy(true);
    try {
      const res = await get(`${p.path}?${q}`);
      if (!alive.current) return;
      failures.current = 0;
      setUnavailable(false);
      setLoadError(null);
      const rows = res.results || [];
      noteTransitions(rows);
      setData(res);
      if (pg === 'last') setPage(Math.max(1, Math.ceil((res.count || 0) / ps)));
      if (p.onData) p.onData(res);
      inflight.current = false;
      setBusy(false);
      schedule(rows);
    } catch (e) {
      inflight.current = false;
      if (!alive.current) return;
      setBusy(false);
      if (e.status === 404 && e.body && e.body.detail === 'Invalid page.') {
        load(false, 'last');
        return;
      }
      if (e.status === 404) { setUnavailable(true); return; }
      if (e.status === 403) { setLoadError(errorText(e.norm)); return; }
      if (isPoll) {
        failures.current++;
        if (failures.current === 3) toast('Lost contact with the server; retrying', 'error');
        schedule(data ? data.results : []);
      } else {
        setLoadError(errorText(e.norm));
      }
    }
  };

  useEffect(() => {
    alive.current = true;
    const onVis = () => { if (!document.hidden) load(true); };
    document.addEventListener('visibilitychange', onVis);
    return () => { alive.current = false; clearTimeout(timer.current); document.removeEventListener('visibilitychange', onVis); };
  }, []);
  useEffect(() => { load(false); }, [p.path, page, pageSize, ordering, filter, p.reloadSignal]);
  useEffect(() => { setPage(1); }, [filter]);

  const rows = data ? data.results || [] : [];
  const count = data ? data.count || 0 : 0;
  const pages = Math.max(1, Math.ceil(count / pageSize));

  const sortBy = (field) => {
    setOrdering(ordering === field ? `-${field}` : field);
  };
  const ariaSort = (field) => (ordering === field ? 'ascending' : ordering === `-${field}` ? 'descending' : null);

  const toggleSel = (id) => {
    const s = new Set(selected);
    if (s.has(id)) s.delete(id); else s.add(id);
    setSelected(s);
  };
  const allSel = rows.length > 0 && rows.every((r) => selected.has(r.id));
  const toggleAll = () => setSelected(allSel ? new Set() : new Set(rows.map((r) => r.id)));
  const toggleExp = (id) => {
    const s = new Set(expanded);
    if (s.has(id)) s.delete(id); else s.add(id);
    setExpanded(s);
  };

  const askDelete = (row) => setConfirm({
    title: `Delete ${p.resource.toLowerCase()}?`,
    message: p.deleteMessage ? p.deleteMessage(row) : `Delete "${describe(row)}"? This cannot be undone.`,
    run: async () => {
      await del(`${p.path}${row.id}/`);
      toast(`Deleted ${p.resource.toLowerCase()} ${describe(row)}.`);
      const s = new Set(selected); s.delete(row.id); setSelected(s);
      load(false);
    },
  });
  const askBulk = () => {
    const ids = [...selected];
    setConfirm({
      title: 'Delete selected?',
      message: `Delete ${ids.length} item${ids.length === 1 ? '' : 's'}?`,
      run: async () => {
        const res = await post(`${p.path}bulk_delete/`, { ids });
        toast(`Deleted ${res.num_deleted} items.`);
        setSelected(new Set());
        load(false);
      },
    });
  };

  if (unavailable) {
    return p.unavailable || html`<p class="coming-soon" role="status">Coming soon: this server does not offer ${p.resource.toLowerCase()}s yet.</p>`;
  }
  const ncols = p.columns.length + 3;
  return html`<section class="resource-table" aria-busy=${busy ? 'true' : 'false'}>
    <div class="table-tools">
      <input type="search" aria-label="Filter by description" placeholder="Filter by description"
        value=${filterText} onInput=${(e) => setFilterText(e.target.value)} />
      <button type="button" class="danger" disabled=${selected.size === 0} onClick=${askBulk}>Delete selected${selected.size ? ` (${selected.size})` : ''}</button>
      <span class="count" data-testid="table-count">${count} item${count === 1 ? '' : 's'}</span>
    </div>
    ${loadError ? html`<p class="form-summary" role="alert">${loadError}</p>` : null}
    ${data && count === 0 && !filter ? html`<div class="empty"><p>Nothing here yet.</p>${p.createButton || null}</div>` : null}
    ${data && (count > 0 || filter) ? html`<div class="table-scroll"><table>
      <thead><tr>
        <th scope="col" class="narrow"><input type="checkbox" aria-label="Select all rows" checked=${allSel} onChange=${toggleAll} /></th>
        <th scope="col" class="narrow"><span class="visually-hidden">Expand</span></th>
        ${p.columns.map((c) => (c.order
          ? html`<th scope="col" key=${c.key} aria-sort=${ariaSort(c.order)}><button type="button" class="sort"
              onClick=${() => sortBy(c.order)}>${c.label}${ariaSort(c.order) === 'ascending' ? ' ▲' : ariaSort(c.order) === 'descending' ? ' ▼' : ''}</button></th>`
          : html`<th scope="col" key=${c.key}>${c.label}</th>`))}
        <th scope="col" class="narrow">Actions</th>
      </tr></thead>
      <tbody>
        ${rows.map((r) => {
          const d = describe(r);
          const acts = [...(p.rowActions ? p.rowActions(r) : [])];
          if (!p.noEdit && p.onEdit) acts.push({ label: 'Edit', run: () => p.onEdit(r) });
          acts.push({ label: 'Delete', danger: true, run: () => askDelete(r) });
          return [
            html`<tr key=${r.id} data-testid=${'row-' + r.id} class=${flash.has(r.id) ? 'flash' : ''}>
              <td><input type="checkbox" aria-label=${'Select ' + d} checked=${selected.has(r.id)} onChange=${() => toggleSel(r.id)} /></td>
              <td><button type="button" class="icon" aria-label=${'Show details of ' + d} aria-expanded=${expanded.has(r.id) ? 'true' : 'false'}
                onClick=${() => toggleExp(r.id)}>${expanded.has(r.id) ? '▾' : '▸'}</button></td>
              ${p.columns.map((c) => html`<td key=${c.key} data-col=${c.key}>${c.render ? c.render(r) : fmtCell(r[c.key])}</td>`)}
              <td><${RowMenu} label=${'Actions for ' + d} actions=${acts} /></td>
            </tr>`,
            expanded.has(r.id) ? html`<tr key=${'x' + r.id} class="expanded"><td colspan=${ncols}><${DetailList} row=${r} /></td></tr>` : null,
          ];
        })}
      </tbody>
    </table></div>
    <nav class="pager" aria-label="Pages">
      <button type="button" class="secondary" disabled=${page <= 1} onClick=${() => setPage(page - 1)}>Previous</button>
      <span>Page ${page} of ${pages}</span>
      <button type="button" class="secondary" disabled=${page >= pages} onClick=${() => setPage(page + 1)}>Next</button>
      <label class="pagesize">Rows per page
        <select value=${String(pageSize)} onChange=${(e) => { const n = Number(e.target.value); setPref(prefKey, n); setPageSize(n); setPage(1); }}>
          ${[10, 25, 50, 100].map((n) => html`<option key=${n} value=${String(n)} selected=${n === pageSize}>${n}</option>`)}
        </select></label>
    </nav>` : null}
    ${confirm ? html`<${ConfirmDialog} title=${confirm.title} message=${confirm.message} onConfirm=${confirm.run}
      onClose=${() => setConfirm(null)} />` : null}
  </section>`;
}

function fmtCell(v) {
  if (v === null || v === undefined || v === '') return '—';
  if (typeof v === 'boolean') return v ? '✓' : '—';
  if (Array.isArray(v)) return v.map((x) => (typeof x === 'object' ? x.name || x.description || JSON.stringify(x) : x)).join(', ');
  if (typeof v === 'object') return JSON.stringify(v);
  return String(v);
}
