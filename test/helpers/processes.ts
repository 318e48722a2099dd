import { inject } from 'vitest';
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
/** A block of 25 host ports no other test agent uses: test files run in parallel workers (each
 *  with its own VITEST_POOL_ID), several agents share this machine, and a developer may run two
 *  vitest processes at once (told apart by the parent pid). */
export function testPortRange(): string {
  const worker = Number(process.env.VITEST_POOL_ID ?? 0) % 8;
  const run = process.ppid % 4;
  const block = portBlocks++ % 12;
  // 10000–19599: below the kernel's ephemeral range and apart from the agent unit tests' 2xxxx.
  const min = 10000 + (run * 8 + worker) * 300 + block * 25;
  return `${min}-${min + 24}`;
}

export function startAgentProcess(o: { control: string; enrollmentKey?: string; dataDir: string; name?: string; ports?: string; datasets?: string; config?: string; env?: Record<string, string> }): Child {
  const args = ['agent', '--control', o.control, '--data-dir', o.dataDir, '--ports', o.ports ?? testPortRange()];
  if (o.datasets) args.push('--datasets', o.datasets);
  if (o.config) args.push('--config', o.config);
  if (o.enrollmentKey) args.push('--enrollment-key', o.enrollmentKey);
  if (o.name) args.push('--name', o.name);
  // Services run as users of their own: the tests' own directories may be their working dirs.
  args.push('--allow-path', inject('testDataRoot'));
  return spawnDenv(args, o.env);
}

/** `denv <args> --url … --token … --json` against a control plane: fails the test unless it exits 0; its parsed output. */
export async function denvJson(cp: { readonly url: string; readonly adminToken: string }, args: readonly string[], env: Record<string, string> = {}): Promise<any> {
  const child = spawnDenv([...args, '--url', cp.url, '--token', cp.adminToken, '--json'], env);
  const code = await new Promise<number | null>((resolve) => child.proc.once('close', resolve));
  if (code !== 0) throw new Error(`denv ${args.join(' ')} exited with ${code}: ${child.output()}`);
  return JSON.parse(child.output());
}
