import { getEventListeners, once } from 'node:events';
import { readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { shippedFiles } from '../../test/helpers/shipped-files.js';
import { linkedSignal } from './linked-abort.js';

describe('linkedSignal', () => {
  it('aborts with the reason of the source that aborted', async () => {
    const stop = new AbortController();
    const lease = new AbortController();
    const linked = linkedSignal([stop.signal, lease.signal], 60_000);
    const aborted = once(linked.signal, 'abort');
    lease.abort(new Error('lease lost'));
    await aborted;
    expect(linked.signal.reason).toEqual(new Error('lease lost'));
    expect(linked.timedOut).toBe(false);
    expect(getEventListeners(stop.signal, 'abort')).toHaveLength(0);
  });

  it('aborts with a TimeoutError once the time has passed, and says so', async () => {
    const stop = new AbortController();
    const linked = linkedSignal([stop.signal], 20);
    await once(linked.signal, 'abort');
    expect(linked.timedOut).toBe(true);
    expect((linked.signal.reason as DOMException).name).toBe('TimeoutError');
    expect(getEventListeners(stop.signal, 'abort')).toHaveLength(0);
  });

  it('is aborted at once when a source already is', () => {
    const stop = new AbortController();
    stop.abort('stopping');
    const linked = linkedSignal([stop.signal], 60_000);
    expect(linked.signal.aborted).toBe(true);
    expect(linked.signal.reason).toBe('stopping');
    expect(linked.timedOut).toBe(false);
  });

  it('dispose() leaves no listener on the sources and stops the timer; the signal stays as it was', async () => {
    const stop = new AbortController();
    const disposed = linkedSignal([stop.signal], 20);
    expect(getEventListeners(stop.signal, 'abort')).toHaveLength(1);
    disposed.dispose();
    expect(getEventListeners(stop.signal, 'abort')).toHaveLength(0);
    // A later timer's abort: by then the disposed one's would have fired.
    await once(linkedSignal([], 40).signal, 'abort');
    stop.abort();
    expect(disposed.signal.aborted).toBe(false);
    expect(disposed.timedOut).toBe(false);
  });

  it("keeps nothing in the heap once disposed: the engine's per-phase signals from one long-lived stop signal", () => {
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    const stop = new AbortController();
    const lease = new AbortController();
    const phases = () => {
      for (let i = 0; i < 20_000; i++) {
        const phase = linkedSignal([stop.signal, lease.signal], 15 * 60_000);
        phase.signal.addEventListener('abort', () => {}, { once: true });
        phase.dispose();
      }
    };
    phases(); // warm-up: code and maps
    gc();
    const before = process.memoryUsage().heapUsed;
    phases();
    gc();
    // AbortSignal.any + AbortSignal.timeout kept ~2.7 KB of each (54 MB here) until its timer fired.
    expect(process.memoryUsage().heapUsed - before).toBeLessThan(2 * 1024 * 1024);
  });
});

describe('combined signals', () => {
  it('src/ combines abort signals only through linkedSignal (AbortSignal.any keeps what it makes in its sources)', () => {
    const root = fileURLToPath(new URL('../..', import.meta.url));
    const users = shippedFiles(join(root, 'src'))
      .filter((f) => !f.endsWith(join('lib', 'linked-abort.ts')) && /AbortSignal\.any\(/.test(readFileSync(f, 'utf8')))
      .map((f) => relative(root, f));
    expect(users).toEqual([]);
  });
});
