/**
 * GitMirror over SSH against a real OpenSSH server on a loopback port, with a deploy key: the
 * host key pinned on the first fetch (and a changed one refused after), or checked against the
 * known_hosts the project gave; the key never lands anywhere but a 0600 file removed after the fetch.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSshd, type Sshd } from '../../../test/helpers/sshd.js';
import { commit, git } from '../../../test/helpers/git-repos.js';
import { runOrThrow } from '../exec.js';
import { GitMirror } from './mirror.js';

describe('GitMirror over ssh://', () => {
  const root = mkdtempSync(join(tmpdir(), 'denv-git-ssh-test-'));
  const bare = join(root, 'app.git');
  let sshd: Sshd;
  let head: string;

  beforeAll(async () => {
    const work = join(root, 'work');
    await git(root, 'init', '-q', '-b', 'main', work);
    head = await commit(work, { 'compose.yaml': 'services: {web: {command: ["node", "s.js"]}}\n' }, 'first');
    await git(root, 'clone', '-q', '--bare', work, bare);
    sshd = await startSshd();
  });
  afterAll(async () => {
    await sshd?.stop();
    rmSync(root, { recursive: true, force: true });
  });

  const url = () => `ssh://root@127.0.0.1:${sshd.port}${bare}`;

  it('fetches with a deploy key, pins the host key on first use, and refuses the server once its key changed', async () => {
    const dir = join(root, 'mirror-pinned');
    const m = new GitMirror({ dir, url: url(), credentials: { kind: 'ssh_key', private_key: sshd.clientKey }, allowFile: false });
    const before = readdirSync(tmpdir()).filter((n) => n.startsWith('denv-git-'));
    await m.fetch();
    expect(await m.resolve('main')).toBe(head);
    expect(readdirSync(dir)).toContain('denv_known_hosts');
    // The key's directory is gone once the fetch ended.
    expect(readdirSync(tmpdir()).filter((n) => n.startsWith('denv-git-'))).toEqual(before);
    await m.fetch();
    await sshd.rekey();
    await expect(m.fetch()).rejects.toMatchObject({ code: 'REPO_UNAVAILABLE', message: expect.stringMatching(/host key .*(changed|verification failed)/i) });
  });

  it('checks the host key against the known_hosts given, and a key the server does not know is refused', async () => {
    const good = new GitMirror({ dir: join(root, 'mirror-known'), url: url(), credentials: { kind: 'ssh_key', private_key: sshd.clientKey, known_hosts: sshd.knownHosts }, allowFile: false });
    await good.fetch();
    expect(await good.resolve('main')).toBe(head);
    const strangerKey = join(mkdtempSync(join(root, 'stranger-')), 'key');
    await runOrThrow(['ssh-keygen', '-q', '-t', 'ed25519', '-N', '', '-f', strangerKey]);
    const stranger = new GitMirror({ dir: join(root, 'mirror-stranger'), url: url(), credentials: { kind: 'ssh_key', private_key: readFileSync(strangerKey, 'utf8'), known_hosts: sshd.knownHosts }, allowFile: false });
    await expect(stranger.fetch()).rejects.toMatchObject({ code: 'REPO_UNAVAILABLE', message: expect.stringMatching(/Permission denied/) });
    const wrongHost = new GitMirror({ dir: join(root, 'mirror-wrong-host'), url: url(), credentials: { kind: 'ssh_key', private_key: sshd.clientKey, known_hosts: `[127.0.0.1]:${sshd.port} ${sshd.knownHosts.split(' ')[1]} AAAAC3NzaC1lZDI1NTE5AAAAIGn0vXeGz8nQ0h4vN9mG1dQe1h2Gk6l6n8Yp8nV3bQ0u\n` }, allowFile: false });
    await expect(wrongHost.fetch()).rejects.toMatchObject({ code: 'REPO_UNAVAILABLE', message: expect.stringMatching(/host key/i) });
  });
});
