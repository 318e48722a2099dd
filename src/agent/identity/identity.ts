/**
 * Who a service process runs as (docs/security.md, "On hosts"):
 *
 *   - the agent is not root: as the agent's own user (there is nothing to drop); a `user:` naming
 *     anyone else is refused, since the agent could not honour it;
 *   - `user:` given: that user and group, looked up on the host (`getent`); uid 0 only where the
 *     agent config says `run_as_root: true`;
 *   - otherwise: the env's own uid from the host-wide registry (uid-registry.ts), no supplementary
 *     groups, HOME in the env's work dir.
 *
 * Commands run "in a service's context" (healthchecks, warm, env.exec, the verifier) take the
 * same identity as the service.
 */
import { DenvError } from '../../contracts/errors.js';
import { run } from '../../lib/exec.js';

export interface Identity {
  readonly uid: number;
  readonly gid: number;
  /** The account name when it has one: its supplementary groups are set with `--init-groups`. */
  readonly name: string | null;
}

/** `getent passwd NAME|UID` → uid, gid, name; null when unknown. */
async function passwdEntry(key: string): Promise<{ name: string; uid: number; gid: number } | null> {
  const out = await run(['getent', 'passwd', key], { timeoutMs: 10_000 });
  if (out.exitCode !== 0) return null;
  const [name, , uid, gid] = out.stdout.trim().split('\n')[0]!.split(':');
  return name && uid && gid ? { name, uid: Number(uid), gid: Number(gid) } : null;
}

async function groupId(key: string): Promise<number | null> {
  if (/^\d+$/.test(key)) return Number(key);
  const out = await run(['getent', 'group', key], { timeoutMs: 10_000 });
  if (out.exitCode !== 0) return null;
  const gid = out.stdout.trim().split('\n')[0]!.split(':')[2];
  return gid !== undefined ? Number(gid) : null;
}

/** Resolve Compose `user:` (`name`, `uid`, `name:group`, `uid:gid`) on this host. */
export async function resolveUser(user: string): Promise<Identity> {
  const [userPart, groupPart] = user.split(':') as [string, string | undefined];
  const entry = await passwdEntry(userPart);
  if (!entry && !/^\d+$/.test(userPart)) throw new DenvError('AGENT_ERROR', `user "${userPart}" does not exist on this host`);
  const uid = entry?.uid ?? Number(userPart);
  let gid = entry?.gid ?? uid;
  if (groupPart !== undefined) {
    const g = await groupId(groupPart);
    if (g === null) throw new DenvError('AGENT_ERROR', `group "${groupPart}" does not exist on this host`);
    gid = g;
  }
  return { uid, gid, name: entry && groupPart === undefined ? entry.name : null };
}

/** Whether this agent can run processes as other users at all. */
export function canSwitchUsers(): boolean {
  return typeof process.getuid === 'function' && process.getuid() === 0;
}
