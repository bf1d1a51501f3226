// Per-project caches for the pickers (gui.md §4.3): index names and fields, fetched once per
// project and dropped when the project changes or an import completes.
import { get } from './api.js';

const cache = new Map(); // key `${pid}:indices` / `${pid}:fields` → Promise

function cached(key, loader) {
  if (!cache.has(key)) {
    const p = loader().catch((e) => { cache.delete(key); throw e; });
    cache.set(key, p);
  }
  return cache.get(key);
}

/** Index names of the project. */
export function getIndices(pid) {
  return cached(`${pid}:indices`, async () => (await get(`projects/${pid}/get_indices/`)).indices || []);
}

/** [{index, fields: [{path, type}]}] of the project. */
export function getFields(pid) {
  return cached(`${pid}:fields`, async () => (await get(`projects/${pid}/get_fields/`)) || []);
}

export function invalidateProject(pid) {
  cache.delete(`${pid}:indices`);
  cache.delete(`${pid}:fields`);
}

/** Distinct text-typed field paths of the given indices (all when none chosen). */
export function textFields(fieldGroups, indices = []) {
  const out = [];
  for (const g of fieldGroups || []) {
    if (indices.length && !indices.includes(g.index)) continue;
    for (const f of g.fields || []) if (f.type === 'text' && !out.includes(f.path)) out.push(f.path);
  }
  return out;
}

/** Distinct field paths of the given indices (all when none chosen), facts' inner paths left out. */
export function fieldPaths(fieldGroups, indices = []) {
  const out = [];
  for (const g of fieldGroups || []) {
    if (indices.length && !indices.includes(g.index)) continue;
    for (const f of g.fields || []) {
      if (!f.path.startsWith('texta_facts.') && !out.includes(f.path)) out.push(f.path);
    }
  }
  return out;
}
