/**
 * The local agent `denv dev` runs as a separate child process (`node bin/denv agent …`), so it
 * behaves exactly like an agent on another machine: its own process, data dir and WebSocket.
 *
 * The enrollment key is passed in the child's environment (DENV_ENROLLMENT_KEY), not on its
 * command line: argv is readable by every local user through `ps`, the environment is not.
 */
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';

export interface AgentChildOptions {
  /** The node executable and the `denv` script to run. */
  readonly node: string;
  readonly script: string;
  readonly control: string;
  readonly enrollmentKey: string;
  readonly dataDir: string;
  /** `--config` for the agent (agent.yaml: trusted keys, allowlists, listen …). */
  readonly config?: string;
  /** More flags for `denv agent` (`--workloads`, `--allow-path` …). */
  readonly extra?: readonly string[];
  /** Each line the child prints, already prefixed with `[agent] `. */
  readonly write: (line: string) => void;
}

export interface AgentChild {
  readonly pid: number | undefined;
  /** Resolves when the child has exited, with a short description (`code 1`, `signal SIGTERM`, or the spawn error). */
  readonly exited: Promise<string>;
  /** SIGTERM, then SIGKILL if it has not exited after `graceMs`. Idempotent. */
  stop(graceMs?: number): Promise<void>;
}

/** argv of the child after the node executable (pure, so its exact form is tested). */
export function agentArgv(script: string, control: string, dataDir: string, config?: string, extra: readonly string[] = []): string[] {
  return [script, 'agent', '--control', control, '--data-dir', dataDir, ...(config ? ['--config', config] : []), ...extra];
}

export function spawnAgentChild(opts: AgentChildOptions): AgentChild {
  const child = spawn(opts.node, agentArgv(opts.script, opts.control, opts.dataDir, opts.config, opts.extra), {
    env: { ...process.env, DENV_ENROLLMENT_KEY: opts.enrollmentKey },
    stdio: ['ignore', 'pipe', 'pipe'],
    // Its own process group: a Ctrl-C in the terminal reaches only `denv dev`, which then stops
    // the agent with exactly one SIGTERM (a second signal would make the agent skip its clean close).
    detached: true,
  });
  prefixLines(child.stdout, opts.write);
  prefixLines(child.stderr, opts.write);
  const exited = new Promise<string>((resolve) => {
    child.once('exit', (code, signal) => resolve(signal ? `signal ${signal}` : `code ${code}`));
    child.once('error', (err) => resolve(`could not start: ${err.message}`));
  });
  // Last resort if this process dies without running its shutdown: don't leave the agent behind.
  const killOnExit = (): void => {
    child.kill('SIGTERM');
  };
  process.once('exit', killOnExit);
  void exited.then(() => process.off('exit', killOnExit));

  let stopping: Promise<void> | null = null;
  return {
    pid: child.pid,
    exited,
    stop(graceMs = 10_000) {
      stopping ??= (async () => {
        if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) return;
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
        await exited;
        clearTimeout(timer);
      })();
      return stopping;
    },
  };
}

function prefixLines(stream: Readable, write: (line: string) => void): void {
  createInterface({ input: stream, crlfDelay: Infinity }).on('line', (line) => write(`[agent] ${line}`));
}
