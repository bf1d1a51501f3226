// Preact hooks shared by pages: app state subscription, async loading with stale-answer
// dropping, and a debounced value.
import { useState, useEffect, useLayoutEffect, useRef } from '../preact.js';
import { state, subscribe, stateVersion } from '../state.js';

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
