/**
 * install.ts with real processes and denv's own supervisor (no systemd here: `systemd: false`):
 * the agent from bin/denv (built dist/) dials a loopback port where nothing listens, so it keeps
 * retrying. Installing writes the directory's files and starts the supervisor, which starts the
 * agent again when it is killed; installing again replaces the supervisor; removing stops every
 * process and deletes the directory; a directory denv did not make is never touched.
 *
 * The supervisor and the agent are not this process's to wait for, so their coming and going is
 * read from /proc, pgrep and agent.log in bounded polling loops.
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../../test/helpers/free-port.js';
import { run } from '../../lib/exec.js';
import { installService, removeService } from './install.js';

const DENV_BIN = fileURLToPath(new URL('../../../bin/denv', import.meta.url));
const KEY = 'denr_test-KEY_0123456789abcdef';
const MARKER_TEXT = 'made by denv: `denv agent-service remove` deletes this directory\n';

/** A process's state letter from /proc (R, S, Z …), null when there is no such process. */
function procState(pid: number): string | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.charAt(stat.lastIndexOf(')') + 2);
  } catch {
    return null;
  }
}
/** Running: it exists and is not a zombie waiting to be reaped. */
const running = (pid: number): boolean => {
  const state = procState(pid);
  return state !== null && state !== 'Z';
};
const cmdline = (pid: number): string[] => readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').slice(0, -1);

async function pgrep(args: readonly string[]): Promise<number[]> {
  const out = await run(['pgrep', ...args], { timeoutMs: 10_000 });
  return out.stdout.split('\n').filter(Boolean).map(Number).filter(running);
}

/** Poll `probe` every 50 ms until it gives a truthy value; fail naming `what` after `ms`. */
async function until<T>(what: string, probe: () => Promise<T | null | undefined | false> | T | null | undefined | false, ms = 20_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** The agent the supervisor `sup` runs (its one child), once it has started: a child read between
 *  fork and exec still shows the supervisor's command line, so it counts once it runs `denv agent`. */
const agentOf = (sup: number, not?: number) =>
  until(`an agent started by supervisor ${sup}${not ? ` other than ${not}` : ''}`, async () =>
    (await pgrep(['-P', String(sup)])).find((pid) => pid !== not && (() => { try { return cmdline(pid)[2] === 'agent'; } catch { return false; } })()));

const log = (dir: string) => readFileSync(path.join(dir, 'agent.log'), 'utf8');

describe('installService / removeService with the supervisor', () => {
  const root = mkdtempSync(path.join(tmpdir(), 'denv-service-test-'));
  let control: string;

  /** SIGKILL every process whose command line mentions `pattern` (supervisors and agents under `root`), until none is left. */
  const killAll = (pattern: string) =>
    until(`no process mentioning ${pattern}`, async () => {
      const pids = await pgrep(['-f', pattern]);
      for (const pid of pids) {
        try {
          process.kill(pid, 'SIGKILL');
        } catch {
          // already gone
        }
      }
      return pids.length === 0;
    }, 10_000);

  beforeAll(async () => {
    // Nothing listens here: the agent is refused and keeps dialling.
    control = `http://127.0.0.1:${await freePort()}`;
  });
  afterEach(() => killAll(root));
  afterAll(async () => {
    await killAll(root);
    rmSync(root, { recursive: true, force: true });
  });

  const settings = (dir: string, name = 'svc-1') => ({ dir, control, name, address: '127.0.0.1', allowPaths: [path.join(root, 'apps')], enrollmentKey: KEY });
  const agentArgv = (dir: string, name = 'svc-1') => [
    process.execPath, DENV_BIN, 'agent', '--control', control, '--data-dir', path.join(dir, 'agent'), '--workloads', path.join(dir, 'workloads'), '--name', name, '--address', '127.0.0.1', '--allow-path', path.join(root, 'apps'),
  ];

  it("writes the directory's files and starts the supervisor, which runs the agent with agent.env's key", async () => {
    const dir = path.join(root, 'files');
    const installed = await installService(settings(dir), { denvBin: DENV_BIN, systemd: false });
    const argv = agentArgv(dir);
    expect(installed).toEqual({ kind: 'supervisor', pid: expect.any(Number), argv });
    const sup = installed.pid!;

    expect(statSync(dir).mode & 0o777).toBe(0o711);
    expect(readFileSync(path.join(dir, '.denv-machine'), 'utf8')).toBe(MARKER_TEXT);
    expect(readFileSync(path.join(dir, 'agent.env'), 'utf8')).toBe(`DENV_ENROLLMENT_KEY=${KEY}\n`);
    expect(statSync(path.join(dir, 'agent.env')).mode & 0o777).toBe(0o600);
    expect(readFileSync(path.join(dir, 'service.json'), 'utf8')).toBe(`${JSON.stringify({ kind: 'supervisor', argv }, null, 2)}\n`);
    expect(readFileSync(path.join(dir, 'supervisor.pid'), 'utf8')).toBe(`${sup}\n`);

    expect(running(sup)).toBe(true);
    expect(cmdline(sup)).toEqual([process.execPath, DENV_BIN, 'agent-service', 'supervise', '--dir', dir]);
    const agent = await agentOf(sup);
    expect(cmdline(agent)).toEqual(argv);

    // The agent dials, is refused, and carries on; it was given the key (agent.env, read by the supervisor).
    await until('the agent to be refused by the closed port', () => /ECONNREFUSED/.test(log(dir)));
    expect(log(dir)).not.toMatch(/no enrollment key/);
    expect(running(agent)).toBe(true);
  });

  it('starts the agent again when it is killed', async () => {
    const dir = path.join(root, 'restart');
    const { pid } = await installService(settings(dir), { denvBin: DENV_BIN, systemd: false });
    const sup = pid!;
    const first = await agentOf(sup);
    process.kill(first, 'SIGKILL');
    await until('the supervisor to say it starts the agent again', () => log(dir).includes('denv supervisor: the agent killed by SIGKILL; starting it again in 1 s\n'));
    const second = await agentOf(sup, first);
    expect(second).not.toBe(first);
    expect(running(first)).toBe(false);
    expect(cmdline(second)).toEqual(agentArgv(dir));
    expect(running(sup)).toBe(true);
  });

  it('installing again into the same directory replaces the supervisor and its agent', async () => {
    const dir = path.join(root, 'again');
    const one = await installService(settings(dir), { denvBin: DENV_BIN, systemd: false });
    const oldAgent = await agentOf(one.pid!);

    const two = await installService({ ...settings(dir, 'svc-2'), enrollmentKey: null }, { denvBin: DENV_BIN, systemd: false });
    expect(two).toEqual({ kind: 'supervisor', pid: expect.any(Number), argv: agentArgv(dir, 'svc-2') });
    expect(two.pid).not.toBe(one.pid);
    expect(running(one.pid!)).toBe(false);
    await until(`the old agent ${oldAgent} to exit`, () => !running(oldAgent));
    expect(running(two.pid!)).toBe(true);
    const newAgent = await agentOf(two.pid!);
    expect(cmdline(newAgent)).toEqual(agentArgv(dir, 'svc-2'));
    expect(readFileSync(path.join(dir, 'supervisor.pid'), 'utf8')).toBe(`${two.pid}\n`);
    expect(JSON.parse(readFileSync(path.join(dir, 'service.json'), 'utf8'))).toEqual({ kind: 'supervisor', argv: agentArgv(dir, 'svc-2') });
    // No key given this time: the one written before stays for the agent.
    expect(readFileSync(path.join(dir, 'agent.env'), 'utf8')).toBe(`DENV_ENROLLMENT_KEY=${KEY}\n`);
    // Only the new supervisor and its agent mention the directory.
    expect((await pgrep(['-f', dir])).sort()).toEqual([two.pid!, newAgent].sort());
  });

  it('removing stops the supervisor and the agent and deletes the directory; removing again finds nothing', async () => {
    const dir = path.join(root, 'remove');
    const { pid } = await installService(settings(dir), { denvBin: DENV_BIN, systemd: false });
    const sup = pid!;
    const agent = await agentOf(sup);

    expect(await removeService(dir)).toEqual({ removed: true });
    expect(existsSync(dir)).toBe(false);
    expect(await pgrep(['-f', dir])).toEqual([]);
    expect(running(sup)).toBe(false);
    expect(running(agent)).toBe(false);

    expect(await removeService(dir)).toEqual({ removed: false });
  });

  // The supervisor can die on its own (OOM killer, a stray kill); its agent, in the supervisor's
  // process group but not killed with it, then runs on as an orphan. Removing must still leave
  // no process of the directory behind (nor should installing again start a second agent).
  it('removing also stops an agent whose supervisor was killed', async () => {
    const dir = path.join(root, 'orphan');
    const { pid } = await installService(settings(dir), { denvBin: DENV_BIN, systemd: false });
    const sup = pid!;
    const agent = await agentOf(sup);
    process.kill(sup, 'SIGKILL');
    await until(`supervisor ${sup} to die`, () => !running(sup));

    expect(await removeService(dir)).toEqual({ removed: true });
    expect(existsSync(dir)).toBe(false);
    await until(`the orphaned agent ${agent} to exit`, () => !running(agent), 5_000);
    expect(await pgrep(['-f', dir])).toEqual([]);
  });

  it('refuses to install into or remove a directory denv did not make, leaving its files', async () => {
    const dir = path.join(root, 'theirs');
    mkdirSync(dir);
    writeFileSync(path.join(dir, 'data.db'), 'theirs');

    await expect(installService(settings(dir), { denvBin: DENV_BIN, systemd: false })).rejects.toThrow(new Error(`${dir} exists and was not made by denv: choose another install_dir`));
    await expect(removeService(dir)).rejects.toThrow(new Error(`${dir} was not made by denv (no .denv-machine in it): not removing it`));

    expect(readdirSync(dir)).toEqual(['data.db']);
    expect(readFileSync(path.join(dir, 'data.db'), 'utf8')).toBe('theirs');
    expect(await pgrep(['-f', dir])).toEqual([]);
  });
});
