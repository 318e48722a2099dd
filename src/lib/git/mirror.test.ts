/**
 * GitMirror against real repositories: a bare repository on disk reached as file:// and served by
 * a real `git daemon` on 127.0.0.1 (git://). Branches, tags, commit ids, a force-pushed branch, the
 * Compose file at a commit, and a checkout that holds exactly that commit's tree.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freeLoopbackPort as freePort } from '../../../test/helpers/free-port.js';
import { commit, git, GIT_TEST_ENV } from '../../../test/helpers/git-repos.js';
import { runOrThrow } from '../exec.js';
import { checkRef, checkRepoPath, GitMirror } from './mirror.js';

describe('GitMirror', () => {
  const root = mkdtempSync(join(tmpdir(), 'denv-git-test-'));
  const work = join(root, 'work');
  const bare = join(root, 'served', 'app.git');
  let daemon: ChildProcess;
  let port: number;
  const ids: Record<string, string> = {};

  beforeAll(async () => {
    await git(root, 'init', '-q', '-b', 'main', work);
    ids.first = await commit(work, { 'compose.yaml': 'services: {web: {command: ["node", "v1.js"]}}\n', 'v1.js': 'one\n' }, 'first');
    await git(work, 'tag', 'v1');
    ids.second = await commit(work, { 'compose.yaml': 'services: {web: {command: ["node", "v2.js"]}}\n', 'v2.js': 'two\n', 'v1.js': null }, 'second');
    await git(work, 'checkout', '-q', '-b', 'feature');
    ids.feature = await commit(work, { 'feature.txt': 'f\n' }, 'feature');
    await git(work, 'checkout', '-q', 'main');
    await git(root, 'clone', '-q', '--bare', work, bare);
    port = await freePort();
    daemon = spawn('git', ['daemon', '--reuseaddr', '--listen=127.0.0.1', `--port=${port}`, `--base-path=${join(root, 'served')}`, '--export-all', join(root, 'served')], { stdio: 'ignore' });
    // Ready once it accepts a connection and answers ls-remote.
    for (let i = 0; ; i++) {
      const out = await runOrThrow(['git', 'ls-remote', `git://127.0.0.1:${port}/app.git`], { env: { ...process.env, ...GIT_TEST_ENV }, timeoutMs: 5000 }).catch(() => null);
      if (out) break;
      if (i > 100) throw new Error('git daemon did not answer');
      await new Promise((r) => setTimeout(r, 50));
    }
  });
  afterAll(() => {
    daemon?.kill('SIGKILL');
    rmSync(root, { recursive: true, force: true });
  });

  for (const transport of ['file', 'git'] as const) {
    it(`over ${transport}://: resolves branches, tags and commit ids, reads the Compose file at a commit, checks out exactly that tree`, async () => {
      const url = transport === 'file' ? `file://${bare}` : `git://127.0.0.1:${port}/app.git`;
      const m = new GitMirror({ dir: join(root, `mirror-${transport}`), url, credentials: null, allowFile: transport === 'file' });
      await m.fetch();
      expect(await m.resolve('main')).toBe(ids.second);
      expect(await m.resolve('feature')).toBe(ids.feature);
      expect(await m.resolve('v1')).toBe(ids.first);
      expect(await m.resolve(ids.first!)).toBe(ids.first);
      expect(await m.resolve(ids.feature!.slice(0, 10))).toBe(ids.feature);
      await expect(m.resolve('nope')).rejects.toThrow(/ref "nope" is not a branch, tag or commit/);
      expect(await m.readFile(ids.first!, 'compose.yaml')).toContain('v1.js');
      expect(await m.readFile(ids.second!, 'compose.yaml')).toContain('v2.js');
      expect(await m.readFile(ids.second!, 'missing.yaml')).toBeNull();

      const dest = join(root, `checkout-${transport}`);
      await m.checkout(ids.first!, dest);
      expect(readdirSync(dest).sort()).toEqual(['compose.yaml', 'v1.js']);
      expect(readFileSync(join(dest, 'v1.js'), 'utf8')).toBe('one\n');
      const dest2 = join(root, `checkout2-${transport}`);
      await m.checkout(ids.second!, dest2);
      expect(readdirSync(dest2).sort()).toEqual(['compose.yaml', 'v2.js']);
      expect(existsSync(join(dest2, '.git'))).toBe(false);
    });
  }

  it('follows a force-pushed branch and sees new tags on the next fetch', async () => {
    const m = new GitMirror({ dir: join(root, 'mirror-force'), url: `file://${bare}`, credentials: null, allowFile: true });
    await m.fetch();
    expect(await m.resolve('feature')).toBe(ids.feature);
    await git(work, 'checkout', '-q', 'feature');
    await git(work, 'reset', '-q', '--hard', ids.second!);
    const rewritten = await commit(work, { 'other.txt': 'o\n' }, 'rewritten');
    await git(work, 'tag', 'v3');
    await git(work, 'checkout', '-q', 'main');
    await git(work, 'push', '-q', '--force', bare, 'feature', 'v3');
    await m.fetch();
    expect(await m.resolve('feature')).toBe(rewritten);
    expect(await m.resolve('v3')).toBe(rewritten);
  });

  it('an unreachable repository fails with REPO_UNAVAILABLE and git\'s reason; file:// is refused unless allowed', async () => {
    const closed = await freePort();
    const m = new GitMirror({ dir: join(root, 'mirror-down'), url: `git://127.0.0.1:${closed}/app.git`, credentials: null, allowFile: false });
    await expect(m.fetch()).rejects.toMatchObject({ code: 'REPO_UNAVAILABLE', message: expect.stringMatching(/cannot fetch git:\/\/127\.0\.0\.1:\d+\/app\.git: .*(refused|unable to connect)/i) });
    const noFile = new GitMirror({ dir: join(root, 'mirror-nofile'), url: `file://${bare}`, credentials: null, allowFile: false });
    await expect(noFile.fetch()).rejects.toMatchObject({ code: 'REPO_UNAVAILABLE', message: expect.stringMatching(/transport 'file' not allowed/) });
  });

  it('refuses refs and paths git would read as options, ranges or escapes', () => {
    for (const ok of ['main', 'release/1.2', 'v1.0.0', 'a'.repeat(40)]) expect(checkRef(ok), ok).toBeNull();
    for (const bad of ['', '-u', '--upload-pack=x', 'a..b', 'a b', 'HEAD~1', 'x^', 'a:b', '@{1}', '/abs', 'trail/', 'x.lock']) expect(checkRef(bad), bad).not.toBeNull();
    for (const ok of ['compose.yaml', 'deploy/compose.yml']) expect(checkRepoPath(ok), ok).toBeNull();
    for (const bad of ['', '/etc/passwd', '../x', 'a/../../b', 'a//b']) expect(checkRepoPath(bad), bad).not.toBeNull();
  });
});
