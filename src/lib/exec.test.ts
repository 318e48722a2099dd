import { mkdtemp, realpath, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ExecError, run, runOrThrow } from './exec.js';

const node = process.execPath;

describe('run', () => {
  it('captures stdout, stderr and the exit code of an argv (no shell)', async () => {
    const r = await run([node, '-e', 'process.stdout.write("out $HOME");process.stderr.write("err");process.exit(3)']);
    expect(r).toEqual({ exitCode: 3, signal: null, stdout: 'out $HOME', stderr: 'err', timedOut: false });
  });

  it('passes argv words verbatim, shell metacharacters included', async () => {
    const r = await run([node, '-e', 'console.log(JSON.stringify(process.argv.slice(1)))', 'a b', '$(id)', '; rm -rf /']);
    expect(JSON.parse(r.stdout)).toEqual(['a b', '$(id)', '; rm -rf /']);
  });

  it('uses cwd, the given environment only, and stdin input', async () => {
    const dir = await realpath(await mkdtemp(path.join(os.tmpdir(), 'denv-exec-')));
    const r = await run([node, '-e', 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>console.log(process.cwd(), process.env.ONLY, process.env.HOME ?? "-", s))'], {
      cwd: dir,
      env: { ONLY: 'yes', PATH: process.env.PATH },
      input: 'hello',
    });
    expect(r.stdout.trim()).toBe(`${dir} yes - hello`);
    await rm(dir, { recursive: true, force: true });
  });

  it('kills the process group on timeout and says so', async () => {
    const started = Date.now();
    const r = await run([node, '-e', 'setInterval(()=>{}, 1000)'], { timeoutMs: 200 });
    expect(r.timedOut).toBe(true);
    expect(r.signal).toBe('SIGKILL');
    expect(r.exitCode).toBeNull();
    expect(Date.now() - started).toBeLessThan(3000);
  });

  it('kills on abort', async () => {
    const ac = new AbortController();
    const p = run([node, '-e', 'setInterval(()=>{}, 1000)'], { signal: ac.signal });
    setTimeout(() => ac.abort(), 100);
    const r = await p;
    expect(r.signal).toBe('SIGKILL');
    expect(r.timedOut).toBe(false);
  });

  it('keeps the last maxOutputBytes of each stream', async () => {
    const r = await run([node, '-e', 'process.stdout.write("a".repeat(100000) + "TAIL")'], { maxOutputBytes: 10 });
    expect(r.stdout).toBe('aaaaaaTAIL');
  });

  it('rejects with ExecError when the program cannot start', async () => {
    const err = await run(['/nonexistent/program', 'x']).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ExecError);
    expect((err as ExecError).errno).toBe('ENOENT');
    expect((err as ExecError).argv).toEqual(['/nonexistent/program', 'x']);
  });
});

describe('runOrThrow', () => {
  it('returns the result on exit 0', async () => {
    expect((await runOrThrow([node, '-e', 'console.log("ok")'])).stdout).toBe('ok\n');
  });

  it('throws ExecError carrying argv, exit code and stderr', async () => {
    const err = await runOrThrow([node, '-e', 'console.error("boom");process.exit(2)']).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ExecError);
    const e = err as ExecError;
    expect(e.exitCode).toBe(2);
    expect(e.stderr).toBe('boom\n');
    expect(e.argv[0]).toBe(node);
    expect(e.message).toContain('exited with code 2: boom');
  });
});
