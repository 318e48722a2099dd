/**
 * A real OpenSSH server (Debian's openssh-server) for tests, on a loopback port with a config of
 * its own: one host key, one authorized key, key logins only. Git repositories below it are
 * reached as ssh://root@127.0.0.1:<port>/<path>. Missing sshd fails the test (never skips it).
 *
 * With `netns`, it runs inside that network namespace (one the test made, whose veth address
 * reaches its 127.0.0.1: clouds/local/netns.ts), on port 22: a machine of its own, reached as
 * root@<address>, with everything it starts inside the namespace too.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runOrThrow } from '../../src/lib/exec.js';
import { stopProcess, waitUntilServing } from './daemon.js';
import { lateBoundPort } from './free-port.js';

export interface Sshd {
  readonly port: number;
  /** The client's private key (OpenSSH format), authorised to log in as root. */
  readonly clientKey: string;
  /** A known_hosts line for this server's host key. */
  readonly knownHosts: string;
  /** Start again on the same port with a new host key (a server that changed identity). */
  rekey(): Promise<void>;
  stop(): Promise<void>;
}

async function keypair(file: string): Promise<void> {
  await runOrThrow(['ssh-keygen', '-q', '-t', 'ed25519', '-N', '', '-C', 'denv-test', '-f', file]);
}

export async function startSshd(o: { readonly netns?: { readonly ns: string; readonly address: string } } = {}): Promise<Sshd> {
  const dir = mkdtempSync(join(tmpdir(), 'denv-sshd-'));
  mkdirSync('/run/sshd', { recursive: true, mode: 0o755 }); // sshd's privilege-separation directory
  await keypair(join(dir, 'client'));
  writeFileSync(join(dir, 'authorized_keys'), readFileSync(join(dir, 'client.pub')));
  // Bound again by rekey(): a port outside the kernel's ephemeral range stays ours meanwhile.
  const port = o.netns ? 22 : await lateBoundPort();
  const reachedAt = o.netns?.address ?? '127.0.0.1';
  let proc: ChildProcess | null = null;
  let output = '';
  let knownHosts = '';
  const start = async () => {
    rmSync(join(dir, 'host'), { force: true });
    rmSync(join(dir, 'host.pub'), { force: true });
    await keypair(join(dir, 'host'));
    knownHosts = `${port === 22 ? reachedAt : `[${reachedAt}]:${port}`} ${readFileSync(join(dir, 'host.pub'), 'utf8').split(' ').slice(0, 2).join(' ')}\n`;
    writeFileSync(
      join(dir, 'sshd_config'),
      [
        `Port ${port}`, 'ListenAddress 127.0.0.1', `HostKey ${join(dir, 'host')}`, `AuthorizedKeysFile ${join(dir, 'authorized_keys')}`,
        'PasswordAuthentication no', 'KbdInteractiveAuthentication no', 'PermitRootLogin prohibit-password', 'StrictModes no', 'UsePAM no',
        `PidFile ${join(dir, 'sshd.pid')}`, 'LogLevel ERROR', '',
      ].join('\n'),
    );
    output = '';
    const sshd = ['/usr/sbin/sshd', '-D', '-e', '-f', join(dir, 'sshd_config')];
    const argv = o.netns ? ['ip', 'netns', 'exec', o.netns.ns, ...sshd] : sshd;
    const p = spawn(argv[0]!, argv.slice(1), { stdio: ['ignore', 'pipe', 'pipe'] });
    p.stdout?.on('data', (c: Buffer) => (output += c.toString()));
    p.stderr?.on('data', (c: Buffer) => (output += c.toString()));
    await waitUntilServing(p, {
      what: 'sshd',
      missing: 'sshd is not installed: apt-get install openssh-server (.ci/run does)',
      output: () => output,
      // Up once it sends its banner.
      probe: () => new Promise<boolean>((resolve) => {
        const s = connect(port, reachedAt);
        s.once('data', (d) => { s.destroy(); resolve(d.toString().startsWith('SSH-')); });
        s.once('error', () => resolve(false));
      }),
    });
    proc = p;
  };
  await start();
  return {
    port,
    clientKey: readFileSync(join(dir, 'client'), 'utf8'),
    get knownHosts() {
      return knownHosts;
    },
    async rekey() {
      if (proc) await stopProcess(proc);
      await start();
    },
    async stop() {
      if (proc) await stopProcess(proc);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
