/**
 * The network namespace a `local` cloud's machine lives in: its own network stack, joined to this
 * machine by a veth pair with a /30 of its own, so its agent and services behave as a separate
 * host with its own address. Builders here are pure (the exact commands are tested); `makeNamespace`
 * and `removeNamespace` run them.
 *
 * Inside the namespace every TCP connection arriving on its veth is sent to its 127.0.0.1 (DNAT,
 * with route_localnet): services that listen on 127.0.0.1, as process services do, answer on the
 * machine's address, as they would behind a reverse proxy. The rule lives in the namespace's own
 * netfilter tables; this machine's firewall is never touched.
 *
 * denv only ever removes namespaces it made: their names start with NAMESPACE_PREFIX and each is
 * recorded with its machine.
 */
import { run, runOrThrow } from '../../../lib/exec.js';

export const NAMESPACE_PREFIX = 'denv-';

export interface NamespacePlan {
  /** `denv-<machine id without its prefix>`. */
  readonly ns: string;
  /** The veth end on this machine, and the one in the namespace (interface names: 15 characters at most). */
  readonly hostIf: string;
  readonly nsIf: string;
  /** This machine's address on the link, and the machine's own (its agent's `--address`). */
  readonly hostIp: string;
  readonly ip: string;
}

/** The /30 numbered `index` in `subnet` (an IPv4 /8 to /28): its .1 is this machine, its .2 the namespace. */
export function namespacePlan(machine: string, index: number, subnet: string): NamespacePlan {
  const m = /^(\d+)\.(\d+)\.(\d+)\.(\d+)\/(\d+)$/.exec(subnet);
  const octets = m ? m.slice(1, 5).map(Number) : [];
  const bits = m ? Number(m[5]) : NaN;
  if (!m || octets.some((o) => o > 255) || !(bits >= 8 && bits <= 28)) throw new Error(`subnet must be an IPv4 network such as 10.231.0.0/16, got ${subnet}`);
  const slots = 2 ** (30 - bits);
  if (!Number.isInteger(index) || index < 0 || index >= slots) throw new Error(`subnet ${subnet} has room for ${slots} machines; all are taken`);
  const base = ((octets[0]! << 24) | (octets[1]! << 16) | (octets[2]! << 8) | octets[3]!) >>> 0;
  const network = (base & ~(2 ** (32 - bits) - 1)) >>> 0;
  const at = (n: number) => [24, 16, 8, 0].map((s) => ((n >>> s) & 255).toString()).join('.');
  const block = network + index * 4;
  const id = machine.replace(/^[a-z]+_/, '');
  return { ns: `${NAMESPACE_PREFIX}${id}`, hostIf: `dvh${id.slice(0, 12)}`, nsIf: `dvn${id.slice(0, 12)}`, hostIp: at(block + 1), ip: at(block + 2) };
}

/** The commands that make the namespace, in order (pure). */
export function makeNamespaceArgv(p: NamespacePlan): string[][] {
  return [
    ['ip', 'netns', 'add', p.ns],
    ['ip', 'link', 'add', p.hostIf, 'type', 'veth', 'peer', 'name', p.nsIf, 'netns', p.ns],
    ['ip', 'addr', 'add', `${p.hostIp}/30`, 'dev', p.hostIf],
    ['ip', 'link', 'set', p.hostIf, 'up'],
    ['ip', '-n', p.ns, 'addr', 'add', `${p.ip}/30`, 'dev', p.nsIf],
    ['ip', '-n', p.ns, 'link', 'set', p.nsIf, 'up'],
    ['ip', '-n', p.ns, 'link', 'set', 'lo', 'up'],
    ['ip', 'netns', 'exec', p.ns, 'sysctl', '-q', '-w', 'net.ipv4.conf.all.route_localnet=1'],
    ['ip', 'netns', 'exec', p.ns, 'iptables', '-t', 'nat', '-A', 'PREROUTING', '-i', p.nsIf, '-p', 'tcp', '-j', 'DNAT', '--to-destination', '127.0.0.1'],
  ];
}

/** Make the namespace; a failure part-way removes what was made and throws with the command's error. */
export async function makeNamespace(p: NamespacePlan): Promise<void> {
  try {
    for (const argv of makeNamespaceArgv(p)) await runOrThrow(argv, { timeoutMs: 30_000 });
  } catch (err) {
    await removeNamespace(p.ns);
    throw err;
  }
}

/** Whether namespace `ns` exists. */
export async function namespaceExists(ns: string): Promise<boolean> {
  const listed = await runOrThrow(['ip', 'netns', 'list'], { timeoutMs: 30_000 });
  return listed.stdout.split('\n').some((line) => line.split(' ')[0] === ns);
}

/**
 * Kill every process in namespace `ns` (its agent and every service the agent started) and delete
 * it; the veth pair goes with it. Only namespaces denv names; one that is gone already is fine.
 */
export async function removeNamespace(ns: string): Promise<void> {
  if (!ns.startsWith(NAMESPACE_PREFIX)) throw new Error(`refusing to remove namespace ${ns}: denv did not make it`);
  if (!(await namespaceExists(ns))) return;
  const pids = (await run(['ip', 'netns', 'pids', ns], { timeoutMs: 30_000 })).stdout.split('\n').map(Number).filter((n) => n > 1);
  for (const pid of pids) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // exited meanwhile
    }
  }
  await runOrThrow(['ip', 'netns', 'del', ns], { timeoutMs: 30_000 });
}

/** The IPv4 addresses this machine has on any interface (an allocation must not take one). */
export async function addressesInUse(): Promise<Set<string>> {
  const out = await runOrThrow(['ip', '-o', '-4', 'addr', 'show'], { timeoutMs: 30_000 });
  return new Set([...out.stdout.matchAll(/inet (\d+\.\d+\.\d+\.\d+)\//g)].map((m) => m[1]!));
}
