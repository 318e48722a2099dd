/**
 * A detached process keeps its starter's CPU priority (session-priority.ts): checked with real
 * processes, each starter a Node process run under `nice` or `chrt --idle` that starts `sleep`
 * through startDetached, as the agent starts a service. This machine's kernel groups sessions
 * (autogroup): the test fails if it does not, rather than passing on nothing. The test's own
 * process may be in no session group (`/proc/self/autogroup` empty: no process above it started a
 * session, as under CI's runner); a session started from it has one all the same.
 */
import { chmodSync, existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run } from './exec.js';
import { moduleExecArgv } from './module-worker.js';
import { LOWEST_NICE, parseAutogroup, sessionNiceOf } from './session-priority.js';

describe('sessionNiceOf', () => {
  it('is the greater of the starter’s nice and its group’s, and the lowest for SCHED_IDLE', () => {
    expect(sessionNiceOf({ nice: 0, policy: 0, groupNice: 0 })).toBe(0);
    expect(sessionNiceOf({ nice: 10, policy: 0, groupNice: 0 })).toBe(10);
    expect(sessionNiceOf({ nice: 0, policy: 0, groupNice: 5 })).toBe(5);
    expect(sessionNiceOf({ nice: 3, policy: 3, groupNice: 7 })).toBe(7); // SCHED_BATCH: as nice says
    expect(sessionNiceOf({ nice: 0, policy: 5, groupNice: 0 })).toBe(LOWEST_NICE);
    expect(sessionNiceOf({ nice: -5, policy: 0, groupNice: null })).toBe(-5);
  });

  it('reads /proc/<pid>/autogroup', () => {
    expect(parseAutogroup('/autogroup-274887 nice 0\n')).toBe(0);
    expect(parseAutogroup('/autogroup-12 nice -3\n')).toBe(-3);
    expect(parseAutogroup('')).toBeNull();
  });
});

describe('startDetached keeps the starter’s priority', () => {
  let dir: string;
  const started: number[] = [];
  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'denv-priority-'));
    chmodSync(dir, 0o777); // the starter without privileges writes its logs here
    expect(existsSync('/proc/self/autogroup'), 'this kernel groups sessions (autogroup)').toBe(true);
  });
  afterAll(async () => {
    for (const pid of started) {
      try {
        process.kill(-pid, 'SIGKILL');
      } catch {
        /* gone */
      }
    }
    await rm(dir, { recursive: true, force: true });
  });

  /** Start `count` × `sleep 60` detached at once from a Node process run under `wrapper`; their pids and startDetached's warnings. */
  let calls = 0;
  async function startManyUnder(wrapper: string[], count: number): Promise<{ pid: number; warning: string | null }[]> {
    const logs = path.join(dir, `logs-${++calls}-`);
    const exec = new URL('./exec.ts', import.meta.url).href;
    const script = `const { startDetached } = await import(${JSON.stringify(exec)});
      const start = async (i) => {
        const r = await startDetached(['sleep', '60'], { cwd: ${JSON.stringify(dir)}, env: { PATH: process.env.PATH }, logPath: ${JSON.stringify(logs)} + i });
        return r.ok ? { pid: r.pid, warning: await r.priority } : r;
      };
      console.log(JSON.stringify(await Promise.all(Array.from({ length: ${count} }, (_, i) => start(i)))));`;
    const r = await run([...wrapper, process.execPath, ...moduleExecArgv(import.meta.url), '--input-type=module', '-e', script], { env: { ...process.env, HOME: dir } });
    expect(r.exitCode, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout) as { pid: number; warning: string | null }[];
    started.push(...out.map((o) => o.pid));
    return out;
  }
  const startUnder = async (wrapper: string[]) => (await startManyUnder(wrapper, 1))[0]!;
  const groupNice = (pid: number) => parseAutogroup(readFileSync(`/proc/${pid}/autogroup`, 'utf8'));

  it('gives a new session the nice its starter runs at (its own nice is inherited anyway)', async () => {
    const { pid, warning } = await startUnder(['nice', '-n', '10']);
    expect(warning).toBeNull();
    expect(groupNice(pid)).toBe(10);
    expect(os.getPriority(pid)).toBe(10);
    // A session of its own: the group is not the starter's.
    expect(readFileSync(`/proc/${pid}/autogroup`, 'utf8')).not.toBe(readFileSync('/proc/self/autogroup', 'utf8'));
  });

  it('gives the lowest nice to a session started from SCHED_IDLE', async () => {
    const { pid, warning } = await startUnder(['chrt', '--idle', '0']);
    expect(warning).toBeNull();
    expect(groupNice(pid)).toBe(LOWEST_NICE);
  });

  it('sets sessions started at once by a starter without CAP_SYS_ADMIN one after the other, as the kernel allows', async () => {
    // Without CAP_SYS_ADMIN the kernel takes one change of a group's nice per 100 ms (EAGAIN).
    const sessions = await startManyUnder(['setpriv', '--reuid=nobody', '--regid=nogroup', '--clear-groups', 'nice', '-n', '10'], 3);
    expect(sessions.map((s) => s.warning)).toEqual([null, null, null]);
    expect(sessions.map((s) => groupNice(s.pid))).toEqual([10, 10, 10]);
  });

  it('leaves a session started at nice 0 at nice 0', async () => {
    const { pid, warning } = await startUnder([]);
    expect(warning).toBeNull();
    expect(groupNice(pid)).toBe(0);
  });
});
