/**
 * A bare mirror of one linked repository, and what denv does with it: fetch every branch and tag,
 * resolve a ref (branch, tag or commit) to a commit, read one file at a commit (the Compose file),
 * and check a commit out into a clean directory (no `.git`, nothing left from another commit).
 *
 * Git runs through lib/exec (argv, no shell) with the environment git-env.ts builds. Credentials
 * are written for the length of one fetch into a 0700 directory of their own and removed after;
 * with an SSH key and no known-hosts given, the first host key seen is pinned in
 * `<mirror>/denv_known_hosts` and every later fetch must meet it.
 *
 * One caller at a time per mirror directory: callers serialise (git's own ref locks would make a
 * concurrent fetch fail, not wait).
 */
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { DenvError } from '../../contracts/errors.js';
import { ExecError, run, runOrThrow, type RunResult } from '../exec.js';
import type { GitCredentials } from '../../contracts/source.js';
import { gitEnv } from './git-env.js';

/** bin/denv-git-ssh, which git runs as `ssh`. */
const SSH_WRAPPER = fileURLToPath(new URL('../../../bin/denv-git-ssh', import.meta.url));
const FULL_SHA = /^[0-9a-f]{40}$/;
const SHORT_SHA = /^[0-9a-f]{7,39}$/;

export interface MirrorOptions {
  /** The bare repository's directory (made on first fetch). */
  readonly dir: string;
  readonly url: string;
  readonly credentials: GitCredentials | null;
  readonly allowFile: boolean;
  /** Per git run (default 5 minutes: a first fetch of a big repository is slow). */
  readonly timeoutMs?: number;
}

/** A ref a user may name: no option-like or control characters, nothing git reads as a range or path. */
export function checkRef(ref: string): string | null {
  if (ref.length === 0 || ref.length > 255) return 'expected a branch, tag or commit of 1 to 255 characters';
  if (ref.startsWith('-') || /[\0-\x20\x7f~^:?*[\\]|\.\.|@\{|\/\/|^\/|\/$|\.lock$|\.$/.test(ref)) return `"${ref}" is not a branch, tag or commit name`;
  return null;
}

/** A path inside the repository (the Compose file's): relative, no `..`, no NUL. */
export function checkRepoPath(p: string): string | null {
  if (p.length === 0 || p.length > 1024 || p.includes('\0') || path.posix.isAbsolute(p)) return 'expected a relative path inside the repository';
  if (p.split('/').some((part) => part === '..' || part === '')) return `"${p}" must stay inside the repository (no "..", no empty parts)`;
  return null;
}

export class GitMirror {
  constructor(private readonly o: MirrorOptions) {}

  private git(args: readonly string[], env: Record<string, string>, extra: { cwd?: string } = {}): Promise<RunResult> {
    return runOrThrow(['git', `--git-dir=${this.o.dir}`, ...args], { env, timeoutMs: this.o.timeoutMs ?? 300_000, ...extra });
  }

  private baseEnv(): Record<string, string> {
    return gitEnv({ home: this.o.dir, allowFile: this.o.allowFile });
  }

  /** Fetch every branch and tag from the repository (force: a rewritten branch is followed), and
   *  GitHub's pull request heads (`refs/pull/<n>/head`: a fork's commits are only there). */
  async fetch(): Promise<void> {
    if (!existsSync(path.join(this.o.dir, 'HEAD'))) {
      await mkdir(this.o.dir, { recursive: true, mode: 0o700 });
      await runOrThrow(['git', 'init', '--bare', '--quiet', this.o.dir], { env: this.baseEnv(), timeoutMs: 30_000 });
    }
    const secrets = await mkdtemp(path.join(tmpdir(), 'denv-git-'));
    try {
      const env = await this.fetchEnv(secrets);
      await this.git(['fetch', '--quiet', '--prune', '--force', '--no-tags', '--', this.o.url, '+refs/heads/*:refs/heads/*', '+refs/tags/*:refs/tags/*', '+refs/pull/*/head:refs/pull/*/head'], env).catch((err: unknown) => {
        throw new DenvError('REPO_UNAVAILABLE', `cannot fetch ${this.o.url}: ${redact(gitReason(err), this.o.credentials)}`);
      });
    } finally {
      await rm(secrets, { recursive: true, force: true });
    }
  }

  private async fetchEnv(secrets: string): Promise<Record<string, string>> {
    const c = this.o.credentials;
    if (c?.kind === 'token') return gitEnv({ home: this.o.dir, allowFile: this.o.allowFile, token: { username: c.username ?? 'x-access-token', token: c.token } });
    if (c?.kind === 'ssh_key') {
      const keyFile = path.join(secrets, 'key');
      await writeFile(keyFile, c.private_key.endsWith('\n') ? c.private_key : `${c.private_key}\n`, { mode: 0o600 });
      let knownHostsFile = path.join(this.o.dir, 'denv_known_hosts');
      if (c.known_hosts) {
        knownHostsFile = path.join(secrets, 'known_hosts');
        await writeFile(knownHostsFile, c.known_hosts, { mode: 0o600 });
      }
      return gitEnv({ home: this.o.dir, allowFile: this.o.allowFile, ssh: { wrapper: SSH_WRAPPER, keyFile, knownHostsFile, pinOnFirstUse: !c.known_hosts } });
    }
    return this.baseEnv();
  }

  /** Whether the mirror already holds `commit` (false before the first fetch). */
  async hasCommit(commit: string): Promise<boolean> {
    if (!FULL_SHA.test(commit) || !existsSync(path.join(this.o.dir, 'HEAD'))) return false;
    const out = await run(['git', `--git-dir=${this.o.dir}`, 'cat-file', '-e', `${commit}^{commit}`], { env: this.baseEnv(), timeoutMs: 30_000 });
    return out.exitCode === 0;
  }

  /** The commit `ref` names, from what was last fetched: a full commit id, a branch, a tag, then an abbreviated id. */
  async resolve(ref: string): Promise<string> {
    return (await this.resolveRef(ref)).commit;
  }

  /** `resolve`, also saying what `ref` named. */
  async resolveRef(ref: string): Promise<{ readonly commit: string; readonly kind: 'commit' | 'branch' | 'tag' }> {
    const bad = checkRef(ref);
    if (bad) throw new DenvError('BAD_REQUEST', `ref: ${bad}`);
    const candidates: [string, 'commit' | 'branch' | 'tag'][] = FULL_SHA.test(ref)
      ? [[ref, 'commit']]
      : [[`refs/heads/${ref}`, 'branch'], [`refs/tags/${ref}`, 'tag'], ...(SHORT_SHA.test(ref) ? [[ref, 'commit'] as [string, 'commit']] : [])];
    for (const [c, kind] of candidates) {
      const out = await run(['git', `--git-dir=${this.o.dir}`, 'rev-parse', '--quiet', '--verify', '--end-of-options', `${c}^{commit}`], { env: this.baseEnv(), timeoutMs: 30_000 });
      if (out.exitCode === 0) return { commit: out.stdout.trim(), kind };
    }
    throw new DenvError('NOT_FOUND', `ref "${ref}" is not a branch, tag or commit of ${this.o.url}`);
  }

  /** The text of `file` at `commit`; null when the commit has no such file. */
  async readFile(commit: string, file: string): Promise<string | null> {
    const bad = checkRepoPath(file);
    if (bad) throw new DenvError('BAD_REQUEST', `compose_path: ${bad}`);
    const out = await run(['git', `--git-dir=${this.o.dir}`, 'cat-file', 'blob', `${commit}:${file}`], { env: this.baseEnv(), timeoutMs: 30_000, maxOutputBytes: 8 * 1024 * 1024 });
    return out.exitCode === 0 ? out.stdout : null;
  }

  /** Write the tree of `commit` into `dest` (made if missing; must be empty): a clean checkout without `.git`. */
  async checkout(commit: string, dest: string): Promise<void> {
    await mkdir(dest, { recursive: true });
    const scratch = await mkdtemp(path.join(tmpdir(), 'denv-git-index-'));
    try {
      // An index of its own: the mirror is bare and several checkouts may be made from it.
      const env = { ...this.baseEnv(), GIT_INDEX_FILE: path.join(scratch, 'index') };
      await this.git([`--work-tree=${dest}`, 'checkout', '--quiet', '--force', commit, '--', '.'], env);
    } finally {
      await rm(scratch, { recursive: true, force: true });
    }
  }
}

/** What git said went wrong, without its generic advice; the run's own message when it said nothing. */
function gitReason(err: unknown): string {
  if (!(err instanceof ExecError)) return (err as Error).message;
  if (err.exitCode === null) return err.message;
  const lines = err.stderr
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '' && !/^(Please make sure you have the correct access rights|and the repository exists\.)$/.test(l) && !l.startsWith('Warning: Permanently added') && !l.startsWith('@@@') && !l.startsWith('IT IS POSSIBLE'));
  return lines.length > 0 ? lines.slice(0, 6).join(' | ') : `git exited with code ${err.exitCode}`;
}

/** `message` without the credential's secret parts (git may echo a header or a key path). */
function redact(message: string, c: GitCredentials | null): string {
  if (c?.kind !== 'token') return message;
  const basic = Buffer.from(`${c.username ?? 'x-access-token'}:${c.token}`).toString('base64');
  return message.split(c.token).join('***').split(basic).join('***');
}
