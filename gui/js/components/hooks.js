// Preact hooks shared by pages: app state subscription, async loading with stale-answer
// dropping, a debounced value, and the closed choices of a create form (OPTIONS metadata).
import { useState, useEffect, useLayoutEffect, useRef } from '../preact.js';
import { state, subscribe, stateVersion } from '../state.js';
import { api } from '../api.js';

/** Re-renders the caller whenever the app state changes; returns the state. */
export function useAppState() {
  const [seen, setSeen] = useState(stateVersion());
  useLayoutEffect(() => {
    const off = subscribe(() => setSeen(stateVersion()));
    if (stateVersion() !== seen) setSeen(stateVersion());
    return off;
  }, []);
  return state;
}

/** Runs an async loader when deps change; answers for stale deps are dropped. */
export function useAsync(loader, deps) {
  const [res, setRes] = useState({ loading: true, data: null, error: null });
  const seq = useRef(0);
  const reload = () => {
    const my = ++seq.current;
    setRes((r) => ({ ...r, loading: true }));
    Promise.resolve().then(loader).then(
      (data) => { if (my === seq.current) setRes({ loading: false, data, error: null }); },
      (error) => { if (my === seq.current) setRes({ loading: false, data: null, error }); },
    );
  };
  useEffect(() => { reload(); return () => { seq.current++; }; }, deps);
  return { ...res, reload };
}

/** The value, settled for `ms` milliseconds. */
export function useDebounced(value, ms) {
  const [v, setV] = useState(value);
  useEffect(() => {
    const t = setTimeout(() => setV(value), ms);
    return () => clearTimeout(t);
  }, [value, ms]);
  return v;
}

const metadata = new Map();

/**
 * The closed choices of a collection's create fields, `{field: [value, ...]}`, from its OPTIONS
 * metadata (DRF's `actions.POST.<field>.choices`, in the server's order), so a select offers
 * exactly what the API accepts. Fetched once per collection; `{}` until it answers.
 * @param {string} collection path relative to /api/v1/, e.g. `projects/1/taggers/`
 */
export function useChoices(collection) {
  const [choices, setChoices] = useState(metadata.get(collection) || {});
  useEffect(() => {
    if (metadata.has(collection)) return;
    let live = true;
    api('OPTIONS', collection).then((m) => {
      const fields = Object.entries((m && m.actions && m.actions.POST) || {}).filter(([, f]) => Array.isArray(f.choices));
      const found = Object.fromEntries(fields.map(([name, f]) => [name, f.choices.map((c) => c.value)]));
      metadata.set(collection, found);
      if (live) setChoices(found);
    }, () => {});
    return () => { live = false; };
  }, [collection]);
  return choices;
}
