/** Real denv processes for integration tests: `bin/denv agent` and `bin/denv server` as children. */
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export const DENV_BIN = fileURLToPath(new URL('../../bin/denv', import.meta.url));

export interface Child {
  readonly proc: ChildProcess;
  /** Everything it printed so far. */
  output(): string;
  /** Resolves when a line matching `re` has been printed. */
  waitForOutput(re: RegExp, timeoutMs?: number): Promise<string>;
  kill(signal?: NodeJS.Signals): Promise<void>;
}

export function spawnDenv(args: readonly string[], env: Record<string, string> = {}): Child {
  const proc = spawn(process.execPath, [DENV_BIN, ...args], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  const listeners = new Set<() => void>();
  const onData = (d: Buffer) => {
    out += d.toString();
    for (const l of listeners) l();
  };
  proc.stdout!.on('data', onData);
  proc.stderr!.on('data', onData);
  const exited = new Promise<void>((r) => proc.once('exit', () => r()));
  return {
    proc,
    output: () => out,
    waitForOutput(re, timeoutMs = 30_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const m = re.exec(out);
          if (m) {
            listeners.delete(check);
            clearTimeout(timer);
            resolve(m[0]);
          }
        };
        const timer = setTimeout(() => {
          listeners.delete(check);
          reject(new Error(`timed out waiting for ${re} in output of denv ${args[0]}:\n${out}`));
        }, timeoutMs);
        listeners.add(check);
        check();
      });
    },
    async kill(signal = 'SIGTERM') {
      if (proc.exitCode !== null || proc.signalCode !== null) return;
      proc.kill(signal);
      await exited;
    },
  };
}

let portBlocks = 0;
/** A block of 100 host ports no other test agent uses: test files run in parallel workers, each
 *  with its own VITEST_POOL_ID, and several agents share this machine. */
export function testPortRange(): string {
  const worker = Number(process.env.VITEST_POOL_ID ?? 0) % 8;
  const block = portBlocks++ % 40;
  const min = 30000 + worker * 4000 + block * 100;
  return `${min}-${min + 99}`;
}

export function startAgentProcess(o: { control: string; enrollmentKey?: string; dataDir: string; name?: string; ports?: string; datasets?: string }): Child {
  const args = ['agent', '--control', o.control, '--data-dir', o.dataDir, '--ports', o.ports ?? testPortRange()];
  if (o.datasets) args.push('--datasets', o.datasets);
  if (o.enrollmentKey) args.push('--enrollment-key', o.enrollmentKey);
  if (o.name) args.push('--name', o.name);
  return spawnDenv(args);
}
