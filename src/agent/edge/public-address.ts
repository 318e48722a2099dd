/**
 * The address DNS names of this host's envs are published as (issue 12): the agent config's
 * `public_ip` when set, else detected from the host's interfaces — the first IPv4, preferring a
 * public address over a private one (10/8, 172.16/12, 192.168/16, 100.64/10), and the first
 * global IPv6; never a loopback or link-local one, and never a unique-local IPv6 (fc00::/7): an
 * AAAA record nobody outside can reach would break every client that tries IPv6 first (seen on a
 * machine with only fd00::2). A host behind NAT detects its private IPv4: set `public_ip` there.
 * Pure over the interface list, so it is tested as such.
 */
import { isIPv4 } from 'node:net';
import type os from 'node:os';

type Interfaces = ReturnType<typeof os.networkInterfaces>;

const PRIVATE_V4 = [/^10\./, /^172\.(1[6-9]|2\d|3[01])\./, /^192\.168\./, /^100\.(6[4-9]|[7-9]\d|1[01]\d|12[0-7])\./];
const LINK_LOCAL = [/^169\.254\./, /^fe[89ab][0-9a-f]:/i];

const isPrivateV4 = (a: string) => PRIVATE_V4.some((r) => r.test(a));
const isUniqueLocal = (a: string) => /^f[cd][0-9a-f]{2}:/i.test(a);

/** `[best IPv4, best IPv6]`, each when there is one; empty when the host has only loopback. */
export function detectPublicAddresses(interfaces: Interfaces): string[] {
  const candidates = Object.values(interfaces)
    .flatMap((list) => list ?? [])
    .filter((i) => !i.internal && !LINK_LOCAL.some((r) => r.test(i.address)))
    .map((i) => i.address);
  const v4 = candidates.filter((a) => isIPv4(a));
  const v6 = candidates.filter((a) => !isIPv4(a) && !isUniqueLocal(a));
  return [v4.find((a) => !isPrivateV4(a)) ?? v4[0], v6[0]].filter((a): a is string => a !== undefined);
}

/** What this host publishes: the configured addresses, else the detected ones. */
export function publicAddresses(configured: readonly string[] | null, interfaces: Interfaces): string[] {
  return configured ? [...configured] : detectPublicAddresses(interfaces);
}
