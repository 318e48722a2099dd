/**
 * Commands run on one machine over OpenSSH's client (lib/ssh/ssh-client.ts builds the argv): the
 * cloud's private key and its known-hosts text are written to a 0700 directory of their own for
 * the session's life and deleted after. A host key the known-hosts text lacks is pinned on first
 * use; one that differs from the pinned key fails the connection ("host key verification failed").
 * `close()` says what the known-hosts text became, for the caller to keep.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ExecError, runOrThrow, runPipedOrThrow, startProgram, type RunResult } from '../../../lib/exec.js';
import { sshCommand, sshMasterCommand, type SshIdentity, type SshTarget } from '../../../lib/ssh/ssh-client.js';

export interface SshSession {
  /** Run `remote` on the machine; throws naming the machine and the command's last stderr lines. */
  run(remote: readonly string[], opts?: { readonly input?: string; readonly timeoutMs?: number }): Promise<RunResult>;
  /** `local | ssh … remote`: stream a local program's output into a remote one. */
  pipe(local: readonly string[], localCwd: string, remote: readonly string[], timeoutMs: number): Promise<RunResult>;
  /** Delete the key; resolve with the known-hosts text as it is now (pinned keys added). */
  close(): Promise<string>;
}

export async function openSshSession(target: SshTarget, label: string, credentials: { readonly privateKey: string; readonly knownHosts: string; readonly pinNewHosts: boolean }): Promise<SshSession> {
  const dir = await mkdtemp(path.join(tmpdir(), 'denv-ssh-'));
  const id: SshIdentity = { keyFile: path.join(dir, 'key'), knownHostsFile: path.join(dir, 'known_hosts'), pinOnFirstUse: credentials.pinNewHosts };
  await writeFile(id.keyFile, credentials.privateKey.endsWith('\n') ? credentials.privateKey : `${credentials.privateKey}\n`, { mode: 0o600 });
  await writeFile(id.knownHostsFile, credentials.knownHosts, { mode: 0o600 });
  // One connection for the session's commands (each of its own costs a key exchange, ~0.5 s):
  // commands run before the master is up connect by themselves.
  const controlPath = path.join(dir, 'master');
  const master = startProgram(sshMasterCommand(id, target, controlPath));
  const explain = (err: unknown): never => {
    if (err instanceof ExecError && err.errno === 'ENOENT') throw new Error("ssh is not installed on the control plane's machine: apt-get install openssh-client");
    if (err instanceof ExecError) {
      const lines = err.stderr.split('\n').map((l) => l.trim()).filter((l) => l && !l.startsWith('Warning: Permanently added'));
      const why = lines.slice(-3).join(' | ') || (err.exitCode === null ? err.message : `exit code ${err.exitCode}`);
      throw new Error(`${label}: ${err.exitCode === 255 ? 'ssh: ' : ''}${why}`);
    }
    throw err;
  };
  return {
    run: (remote, opts = {}) => runOrThrow(sshCommand(id, target, remote, controlPath), { input: opts.input, timeoutMs: opts.timeoutMs ?? 120_000 }).catch(explain),
    pipe: (local, localCwd, remote, timeoutMs) => runPipedOrThrow(local, sshCommand(id, target, remote, controlPath), { producerCwd: localCwd, timeoutMs }).catch(explain),
    async close() {
      master.kill();
      await master.exited;
      const known = await readFile(id.knownHostsFile, 'utf8').catch(() => credentials.knownHosts);
      await rm(dir, { recursive: true, force: true });
      return known;
    },
  };
}
