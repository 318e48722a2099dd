/**
 * A signal for one piece of work: it aborts when any of its sources does (with that source's
 * reason) or once `timeoutMs` has passed (with a `TimeoutError`, as `AbortSignal.timeout`), and
 * `dispose()` lets go of both once the work is over.
 *
 * Why not `AbortSignal.any([...sources, AbortSignal.timeout(ms)])`: on Node 20 every signal that
 * `AbortSignal.any` makes is recorded in each source (a WeakRef in a set that is never pruned), and
 * a timeout signal with a listener stays in the heap until its timer fires. The engine made one
 * per phase from its stop signal with a 15-minute timeout: ~2.7 KB per phase stayed in the heap
 * for 15 minutes, and ~100 bytes for as long as the control plane ran (54 MB for 20,000 phases
 * in linked-abort.test.ts's measure); under 30 concurrent deploys that was the engine's largest
 * share of what the main thread promoted to its old generation, whose collections pause the API.
 */
export interface LinkedSignal {
  readonly signal: AbortSignal;
  /** It aborted because `timeoutMs` passed (not because a source aborted). */
  readonly timedOut: boolean;
  /** Detach from the sources and clear the timer; the signal keeps whatever state it had. */
  dispose(): void;
}

export function linkedSignal(sources: readonly AbortSignal[], timeoutMs?: number): LinkedSignal {
  const controller = new AbortController();
  let timedOut = false;
  let timer: NodeJS.Timeout | undefined;
  const onAbort = (event: Event) => {
    dispose();
    controller.abort((event.target as AbortSignal).reason);
  };
  const dispose = () => {
    clearTimeout(timer);
    for (const s of sources) s.removeEventListener('abort', onAbort);
  };
  const already = sources.find((s) => s.aborted);
  if (already) {
    controller.abort(already.reason);
  } else {
    for (const s of sources) s.addEventListener('abort', onAbort, { once: true });
    if (timeoutMs !== undefined) {
      timer = setTimeout(() => {
        timedOut = true;
        dispose();
        controller.abort(new DOMException('The operation was aborted due to timeout', 'TimeoutError'));
      }, timeoutMs);
      // As AbortSignal.timeout's: a pending timeout alone does not keep the process running.
      timer.unref();
    }
  }
  return {
    signal: controller.signal,
    get timedOut() {
      return timedOut;
    },
    dispose,
  };
}
