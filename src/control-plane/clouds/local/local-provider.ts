/**
 * The `local` cloud: a machine is a new `denv agent` process on the control plane's own machine,
 * in a network namespace of its own with its own address (netns.ts), its own data dir and
 * workloads under `<machines>/<machine id>/`. The agent reaches the control plane through the
 * control plane's socket file (control-socket.ts), which crosses namespaces; nothing listens on a
 * new address of this machine. The agent runs detached: it outlives a control-plane restart and
 * reconnects, like an agent on another machine.
 */
import { mkdir, rm } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startDetached } from '../../../lib/exec.js';
import { readLogTail } from '../../../lib/log-tail.js';
import type { CloudProvider, MachineOrder, MadeMachine } from '../provider.js';
import { addressesInUse, makeNamespace, namespacePlan, removeNamespace, type NamespacePlan } from './netns.js';

/** `bin/denv` of this installation (dist/control-plane/clouds/local/ → the package root). */
const DENV_BIN = fileURLToPath(new URL('../../../../bin/denv', import.meta.url));

export const DEFAULT_LOCAL_SUBNET = '10.231.0.0/16';

export interface LocalProviderDeps {
  /** Where machines' files live (`<data dir>-machines`): traversable, so services' users reach their workloads. */
  readonly root: string;
  readonly subnet: string;
  /** Directories its process services may use as working_dir (the agents' `--allow-path`). */
  readonly allowPaths: readonly string[];
  /** The control plane's socket file (made on first use). */
  readonly controlSocket: () => Promise<string>;
  /** Run `choose` with the addresses machines already hold (any team's, any local cloud's), one
   *  provision at a time, and record the address of the plan it returns for `machine`: two machines
   *  made at once never get one address. */
  readonly reserveAddress: (machine: string, choose: (held: ReadonlySet<string>) => Promise<NamespacePlan>) => Promise<NamespacePlan>;
}

export function localProvider(deps: LocalProviderDeps): CloudProvider {
  return {
    canProvision: true,
    async create(order: MachineOrder): Promise<MadeMachine> {
      const plan = await deps.reserveAddress(order.machine, async (held) => {
        const taken = new Set([...held, ...(await addressesInUse())]);
        // The first /30 of the subnet with neither end taken (namespacePlan throws once none is left).
        let first = namespacePlan(order.machine, 0, deps.subnet);
        for (let index = 1; taken.has(first.ip) || taken.has(first.hostIp); index++) first = namespacePlan(order.machine, index, deps.subnet);
        return first;
      });
      const dir = path.join(deps.root, order.machine);
      // A crash part-way through an earlier call for this machine: start again from nothing.
      await removeNamespace(plan.ns);
      await rm(dir, { recursive: true, force: true });
      await mkdir(dir, { recursive: true, mode: 0o711 });
      await makeNamespace(plan);
      const socket = await deps.controlSocket();
      const argv = [
        'ip', 'netns', 'exec', plan.ns, process.execPath, DENV_BIN, 'agent',
        '--control', `unix:${socket}`, '--data-dir', path.join(dir, 'agent'), '--workloads', path.join(dir, 'workloads'),
        '--name', order.name, '--address', plan.ip,
        // Docker's engine is this machine's: it would publish on this machine's loopback, not the machine's address.
        '--no-docker',
        ...deps.allowPaths.flatMap((p) => ['--allow-path', p]),
      ];
      // The key goes in the environment, not argv (readable by every local user through ps).
      const started = await startDetached(argv, { cwd: dir, env: { ...(process.env as Record<string, string>), DENV_ENROLLMENT_KEY: order.enrollmentKey }, logPath: path.join(dir, 'agent.log') });
      if (!started.ok) {
        await removeNamespace(plan.ns);
        throw new Error(`cannot start the machine's agent: ${started.message}`);
      }
      const log = path.join(dir, 'agent.log');
      const ended = new Promise<string>((resolve) => {
        started.child.once('exit', (code, signal) => void readLogTail(log, 0, 3).then((lines) => lines.join(' | ').slice(-400)).then((tail) => resolve(`its agent ${signal ? `was killed by ${signal}` : `exited with code ${code}`}${tail ? `; agent.log ends: ${tail}` : ''}`)));
      });
      return { ref: plan.ns, ip: plan.ip, detail: { ns: plan.ns, host_if: plan.hostIf, host_ip: plan.hostIp, dir, pid: started.pid, log }, ended };
    },
    async destroy(machine) {
      await removeNamespace(machine.ref);
      const dir = machine.detail.dir;
      if (typeof dir === 'string' && path.dirname(dir) === deps.root) await rm(dir, { recursive: true, force: true });
    },
  };
}
