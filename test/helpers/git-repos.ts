/**
 * Real git repositories for tests: a work tree to commit in (as a fixed author, reading no config
 * of the machine's) and the bare repository the tests serve.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { runOrThrow } from '../../src/lib/exec.js';

export const GIT_TEST_ENV = { GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@example.test', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@example.test', GIT_CONFIG_GLOBAL: '/dev/null', GIT_CONFIG_NOSYSTEM: '1', HOME: tmpdir() };

/** Run git in `cwd`; its trimmed stdout. */
export const git = async (cwd: string, ...args: string[]): Promise<string> => (await runOrThrow(['git', ...args], { cwd, env: { ...process.env, ...GIT_TEST_ENV } })).stdout.trim();

/** Commit `files` (path → text; null removes) on the work tree's current branch; the new commit id. */
export async function commit(work: string, files: Record<string, string | null>, message: string): Promise<string> {
  for (const [p, text] of Object.entries(files)) {
    if (text === null) await git(work, 'rm', '-q', p);
    else {
      mkdirSync(dirname(join(work, p)), { recursive: true });
      writeFileSync(join(work, p), text);
      await git(work, 'add', p);
    }
  }
  await git(work, 'commit', '-q', '-m', message);
  return git(work, 'rev-parse', 'HEAD');
}
