/**
 * The argv that starts a process service (pure; unit-tested on its exact output). Around the
 * service's own argv, with the tools util-linux ships on every Debian:
 *
 *   unshare --pid --fork --mount-proc --   a PID namespace of its own (services that write a
 *                                          dataset: a lock file naming a pid from the env it was
 *                                          forked from — PostgreSQL's postmaster.pid — names no
 *                                          live process here, so a fork starts);
 *   setpriv --reuid U --regid G …  --      the service's user, no new privileges;
 *   argv                                   the service.
 *
 * `unshare` stays in the host namespace as the payload's parent and exits with its status; the
 * payload is PID 1 of the new namespace, so stopping it ends every process of the namespace.
 * SIGTERM sent to `unshare` is ignored: signals go to the payload's host pid (payload-pid.ts).
 */
import type { Identity } from '../../identity/identity.js';

export interface LaunchOptions {
  readonly argv: readonly string[];
  /** null: run as the agent's own user. */
  readonly identity: Identity | null;
  readonly pidNamespace: boolean;
}

/** No supplementary groups, ever: a `user:` in `docker` or `disk` would otherwise be root by another name. */
export function setprivArgv(identity: Identity): string[] {
  return ['setpriv', `--reuid=${identity.uid}`, `--regid=${identity.gid}`, '--clear-groups', '--no-new-privs', '--'];
}

export function launchArgv(opts: LaunchOptions): string[] {
  const out: string[] = [];
  if (opts.pidNamespace) out.push('unshare', '--pid', '--fork', '--mount-proc', '--');
  if (opts.identity) out.push(...setprivArgv(opts.identity));
  out.push(...opts.argv);
  return out;
}

/** The argv of a command run in a service's context (healthcheck, warm, exec, verifier): its user, no namespace. */
export function contextArgv(argv: readonly string[], identity: Identity | null): string[] {
  return identity ? [...setprivArgv(identity), ...argv] : [...argv];
}
