/** Data hooks: load once (and again on `deps`), poll every few seconds, follow an event stream. */
import { useEffect, useRef, useState } from 'preact/hooks';
import type { SseMessage } from '../../src/cli/sse.js';
import { follow } from './api.js';

export interface Loaded<T> {
  readonly data: T | undefined;
  readonly error: Error | undefined;
  reload(): void;
}

/** `load()` at once, on `deps` change, on `reload()`, and every `everyMs` when given. */
export function useLoad<T>(load: () => Promise<T>, deps: readonly unknown[], everyMs?: number): Loaded<T> {
  const [data, setData] = useState<T | undefined>(undefined);
  const [error, setError] = useState<Error | undefined>(undefined);
  const [tick, setTick] = useState(0);
  const loadRef = useRef(load);
  loadRef.current = load;
  useEffect(() => {
    let live = true;
    const run = () =>
      loadRef.current().then(
        (d) => live && (setData(d), setError(undefined)),
        (e: unknown) => live && setError(e instanceof Error ? e : new Error(String(e))),
      );
    void run();
    const timer = everyMs ? setInterval(() => void run(), everyMs) : null;
    return () => {
      live = false;
      if (timer) clearInterval(timer);
    };
  }, [...deps, tick]);
  return { data, error, reload: () => setTick((t) => t + 1) };
}

/** Follow `path` (server-sent events) while mounted; `onMessage` sees every event. */
export function useStream(path: string | null, onMessage: (m: SseMessage) => void, opts: { reopen?: boolean } = {}): void {
  const handler = useRef(onMessage);
  handler.current = onMessage;
  useEffect(() => {
    if (!path) return;
    const ac = new AbortController();
    void follow(path, (m) => handler.current(m), ac.signal, opts);
    return () => ac.abort();
  }, [path]);
}

/** The current time, re-rendered every `ms` (ages and running durations). */
export function useNow(ms = 1000): number {
  const [now, setNow] = useState(Date.now());
  useEffect(() => {
    const t = setInterval(() => setNow(Date.now()), ms);
    return () => clearInterval(t);
  }, [ms]);
  return now;
}
