/**
 * How denv runs OpenSSH's client, wherever it does (git fetches over ssh, ssh clouds): no config
 * file of the user's, only the key it is given, batch mode (never a prompt), and host keys checked
 * against denv's own known-hosts file — pinned on first use (`accept-new`) when none was given.
 * Pure builders; callers run the argv with lib/exec.
 */
import { quote } from 'shell-quote';

export interface SshIdentity {
  readonly keyFile: string;
  readonly knownHostsFile: string;
  /** true: an unknown host key is written to `knownHostsFile` and trusted from then on. */
  readonly pinOnFirstUse: boolean;
}

/** The client options before the destination (`ssh <options> [-p port] user@host …`). */
export function sshClientOptions(id: SshIdentity): string[] {
  return [
    '-F', '/dev/null',
    '-i', id.keyFile,
    '-o', 'IdentitiesOnly=yes',
    '-o', 'BatchMode=yes',
    '-o', `UserKnownHostsFile=${id.knownHostsFile}`,
    '-o', 'GlobalKnownHostsFile=/dev/null',
    '-o', `StrictHostKeyChecking=${id.pinOnFirstUse ? 'accept-new' : 'yes'}`,
    '-o', 'ConnectTimeout=20',
    '-o', 'ServerAliveInterval=15',
  ];
}

/** A machine reached over ssh: `user@host[:port]` (an IPv6 host in brackets: `root@[2001:db8::5]:2222`). */
export interface SshTarget {
  readonly user: string;
  readonly host: string;
  readonly port: number;
}

// The host starts with a letter or digit: one starting with `-` would reach ssh as an option (`-V`, `-J<jump host>`).
const TARGET = /^([a-z_][a-z0-9_.-]{0,31})@(?:\[([0-9a-fA-F:.]+)\]|([A-Za-z0-9][A-Za-z0-9.-]*))(?::(\d{1,5}))?$/;

/** Parse `user@host[:port]`; null when it is not one. */
export function parseSshTarget(text: string): SshTarget | null {
  const m = TARGET.exec(text);
  if (!m) return null;
  const port = m[4] === undefined ? 22 : Number(m[4]);
  if (port < 1 || port > 65535) return null;
  return { user: m[1]!, host: m[2] ?? m[3]!, port };
}

/**
 * `ssh … user@host -- <command>` running `remote` on the machine. sshd hands the command to the
 * remote user's shell as one string, so each argument is quoted for it: the remote shell sees
 * exactly `remote` as argv, nothing in it is interpreted. With `controlPath`, the command goes
 * through the master connection listening there when there is one (sshMasterCommand), and
 * connects by itself when there is not (yet).
 */
export function sshCommand(id: SshIdentity, target: SshTarget, remote: readonly string[], controlPath?: string): string[] {
  return ['ssh', ...sshClientOptions(id), ...multiplexing(controlPath, 'no'), '-p', String(target.port), '-l', target.user, target.host, '--', quote([...remote])];
}

/** A master connection to `target` (no command) whose socket at `controlPath` later commands share: one key exchange for a session's many commands. */
export function sshMasterCommand(id: SshIdentity, target: SshTarget, controlPath: string): string[] {
  return ['ssh', ...sshClientOptions(id), ...multiplexing(controlPath, 'yes'), '-N', '-p', String(target.port), '-l', target.user, target.host];
}

const multiplexing = (controlPath: string | undefined, master: 'yes' | 'no'): string[] => (controlPath ? ['-o', `ControlMaster=${master}`, '-o', `ControlPath=${controlPath}`] : []);
