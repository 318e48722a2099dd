/**
 * Shutdown for the long-running roles (`dev`, `server`, `agent`): the first SIGINT, SIGTERM or
 * SIGHUP (the terminal closed) aborts `signal` and resolves `stopped`, so the command can close
 * what it started; a second one while closing exits at once (the user insisted).
 */
export interface Shutdown {
  readonly signal: AbortSignal;
  /** Resolves with the signal's name when the first one arrives. */
  readonly stopped: Promise<NodeJS.Signals>;
  /** Remove the handlers (after a clean close). */
  dispose(): void;
}

const SIGNALS: readonly NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];

export function onShutdown(): Shutdown {
  const controller = new AbortController();
  let resolveStopped: (s: NodeJS.Signals) => void = () => undefined;
  const stopped = new Promise<NodeJS.Signals>((resolve) => (resolveStopped = resolve));
  const handler = (sig: NodeJS.Signals): void => {
    if (controller.signal.aborted) {
      process.stderr.write(`\n${sig} again: exiting without waiting\n`);
      process.exit(130);
    }
    controller.abort(new Error(`received ${sig}`));
    resolveStopped(sig);
  };
  for (const s of SIGNALS) process.on(s, handler);
  return {
    signal: controller.signal,
    stopped,
    dispose: () => {
      for (const s of SIGNALS) process.off(s, handler);
    },
  };
}
