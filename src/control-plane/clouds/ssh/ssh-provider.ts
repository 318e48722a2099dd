/**
 * The `ssh` cloud (issue 14): machines the team already has, each named `user@host[:port]`, reached
 * with one private key. Provisioning takes the first of the cloud's machines no live machine
 * record holds, uploads this installation of denv to it (so it runs exactly the control plane's
 * version; the machine needs Node 20+ and tar), and installs the agent there as a service with a
 * fresh single-use enrollment key (denv agent-service install: systemd where it runs, else
 * denv's supervisor). Destroying it stops the agent and deletes its directory; the machine itself
 * stays the team's.
 */
import { DenvError } from '../../../contracts/errors.js';
import { parseSshTarget } from '../../../lib/ssh/ssh-client.js';
import { installationTarArgv, PACKAGE_ROOT, shippedPaths } from '../installation.js';
import type { CloudProvider, MachineOrder, MadeMachine } from '../provider.js';
import { claimArgv, installArgv, probeArgv, readProbe, removeArgv, unpackArgv } from './remote-steps.js';
import { openSshSession, type SshSession } from './ssh-session.js';

export interface SshCloudConfig {
  readonly machines: readonly string[];
  readonly private_key: string;
  /** Pinned host keys (known_hosts lines): given when the cloud was added, or each pinned at first use. */
  readonly known_hosts?: string;
  /** false when known_hosts was given: a machine whose key is not in it is refused (else its key is pinned at first use). */
  readonly pin_new_hosts?: boolean;
  /** The control plane's URL as the machines reach it. */
  readonly control_url: string;
  readonly install_dir: string;
  readonly allow_paths?: readonly string[];
}

export interface SshProviderDeps {
  readonly config: SshCloudConfig;
  /** Reserve the first of `targets` no other live machine of the cloud holds for `machine` (its own earlier reservation counts as free); null when all are taken. */
  readonly claim: (machine: string, targets: readonly string[]) => Promise<string | null>;
  /** Keep the known-hosts text a session ended with (host keys pinned on first use). */
  readonly savePinned: (knownHosts: string) => Promise<void>;
}

export function sshProvider(deps: SshProviderDeps): CloudProvider {
  const { config } = deps;
  const dir = config.install_dir;
  /** A session with the machine `ref`; its pinned keys are kept whatever happens in `work`. */
  const withSession = async <T>(ref: string, work: (s: SshSession, host: string) => Promise<T>): Promise<T> => {
    const target = parseSshTarget(ref);
    if (!target) throw new Error(`"${ref}" is not user@host[:port]`);
    const session = await openSshSession(target, ref, { privateKey: config.private_key, knownHosts: config.known_hosts ?? '', pinNewHosts: config.pin_new_hosts !== false });
    try {
      return await work(session, target.host);
    } finally {
      const known = await session.close();
      if (known !== (config.known_hosts ?? '')) await deps.savePinned(known);
    }
  };
  /** Stop and delete what an earlier install left in `dir`. */
  const clear = async (s: SshSession, ref: string) => {
    const probe = readProbe((await s.run(probeArgv(dir), { timeoutMs: 60_000 })).stdout, ref, dir);
    for (const argv of removeArgv(dir, probe)) await s.run(argv, { timeoutMs: 120_000 });
  };
  return {
    canProvision: true,
    async create(order: MachineOrder): Promise<MadeMachine> {
      const ref = await deps.claim(order.machine, config.machines);
      if (!ref) throw new DenvError('CONFLICT', `all ${config.machines.length} of its machines are in use (${config.machines.join(', ')}); add another or destroy an env on one`);
      return withSession(ref, async (s, host) => {
        await clear(s, ref);
        try {
          await s.run(claimArgv(dir));
          await s.pipe(installationTarArgv(PACKAGE_ROOT, shippedPaths(), 'app/'), PACKAGE_ROOT, unpackArgv(dir), 10 * 60_000);
          const out = await s.run(installArgv({ dir, control: config.control_url, name: order.name, address: host, allowPaths: config.allow_paths }), { input: order.enrollmentKey, timeoutMs: 120_000 });
          const installed = JSON.parse(out.stdout) as { kind?: string; pid?: number | null };
          return { ref, ip: host, detail: { target: ref, dir, service: installed.kind ?? null, pid: installed.pid ?? null } };
        } catch (err) {
          // Nothing half-installed stays running (under systemd it would retry a revoked key forever).
          await clear(s, ref).catch(() => {});
          throw err;
        }
      });
    },
    async destroy(machine) {
      await withSession(machine.ref, (s) => clear(s, machine.ref));
    },
  };
}
