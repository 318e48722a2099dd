/**
 * `ports` in the long form `docker compose config` prints: one entry per container port,
 * `{mode, host_ip?, target, published?, protocol}` with `published` a string (it may be a range).
 *
 * Short syntax (Compose specification, services.ports): `[HOST:]CONTAINER[/PROTOCOL]` where HOST
 * is `[IP:](port | range)`, the IP may be IPv6 in brackets, and CONTAINER is a port or a range.
 * A container range expands to one entry per port, paired with the host range when there is one
 * (`9090-9091:8080-8081` → two entries); a host range in front of a single container port stays a
 * range (`8000-8010:80` → published "8000-8010").
 */
import { isMap, joinPath, type Problems } from './problems.js';

export interface PortConfig {
  readonly mode: string;
  readonly host_ip?: string;
  readonly target: number;
  readonly published?: string;
  readonly protocol: string;
  readonly [extra: string]: unknown;
}

/** Entries one short-syntax port may expand to; a bigger range is refused (it would cost memory, not serve a purpose). */
export const MAX_PORT_RANGE = 1024;

interface Range {
  readonly start: number;
  readonly end: number;
}

function parseRange(text: string, what: string): Range {
  const m = /^(\d+)(?:-(\d+))?$/.exec(text);
  if (!m) throw new Error(`${what} ${JSON.stringify(text)} is not a port or a range of ports`);
  const start = Number(m[1]);
  const end = m[2] === undefined ? start : Number(m[2]);
  if (start > 65535 || end > 65535) throw new Error(`${what} ${text} is above 65535`);
  if (end < start) throw new Error(`${what} range ${text} ends before it starts`);
  return { start, end };
}

/** One short-syntax port (`"127.0.0.1:8080:80/tcp"`) as long-form entries; throws with a reason. */
export function parsePortSpec(spec: string): PortConfig[] {
  let rest = spec.trim();
  let protocol = 'tcp';
  const slash = rest.lastIndexOf('/');
  if (slash >= 0) {
    protocol = rest.slice(slash + 1);
    rest = rest.slice(0, slash);
    if (!/^(tcp|udp|sctp)$/.test(protocol)) throw new Error(`protocol ${JSON.stringify(protocol)} is not tcp, udp or sctp`);
  }
  let hostIp: string | undefined;
  let host = '';
  let container: string;
  if (rest.startsWith('[')) {
    const close = rest.indexOf(']');
    if (close < 0 || rest[close + 1] !== ':') throw new Error(`${JSON.stringify(spec)}: an IPv6 address in brackets must be followed by ":"`);
    hostIp = rest.slice(1, close);
    const parts = rest.slice(close + 2).split(':');
    if (parts.length !== 2) throw new Error(`${JSON.stringify(spec)} is not [IP]:HOST:CONTAINER`);
    [host, container] = parts as [string, string];
  } else {
    const parts = rest.split(':');
    if (parts.length === 1) container = parts[0]!;
    else if (parts.length === 2) [host, container] = parts as [string, string];
    else {
      container = parts.pop()!;
      host = parts.pop()!;
      hostIp = parts.join(':');
    }
  }
  const target = parseRange(container, 'container port');
  const published = host === '' ? null : parseRange(host, 'published port');
  const count = target.end - target.start + 1;
  if (count > MAX_PORT_RANGE) throw new Error(`${JSON.stringify(spec)}: a range of more than ${MAX_PORT_RANGE} container ports is not supported`);
  const base = { mode: 'ingress', ...(hostIp ? { host_ip: hostIp } : {}) };
  if (count === 1) {
    const pub = published ? (published.start === published.end ? String(published.start) : `${published.start}-${published.end}`) : undefined;
    return [{ ...base, target: target.start, ...(pub !== undefined ? { published: pub } : {}), protocol }];
  }
  if (published && published.end - published.start + 1 !== count) {
    throw new Error(`${JSON.stringify(spec)}: the published range and the container range differ in size`);
  }
  const out: PortConfig[] = [];
  for (let k = 0; k < count; k++) {
    out.push({ ...base, target: target.start + k, ...(published ? { published: String(published.start + k) } : {}), protocol });
  }
  return out;
}

/** Every entry of a service's `ports` (short or long syntax) in long form; problems name the entry. */
export function normalizePorts(value: readonly unknown[], path: string, problems: Problems): PortConfig[] {
  const out: PortConfig[] = [];
  value.forEach((entry, i) => {
    const at = joinPath(path, i);
    if (typeof entry === 'number' || typeof entry === 'string') {
      try {
        out.push(...parsePortSpec(String(entry)));
      } catch (err) {
        problems.add(at, (err as Error).message);
      }
      return;
    }
    if (!isMap(entry)) return problems.add(at, 'expected a port string or a mapping');
    const { target, published, host_ip, protocol, mode, ...extra } = entry;
    const t = typeof target === 'string' && /^\d+$/.test(target) ? Number(target) : target;
    if (typeof t !== 'number' || !Number.isInteger(t) || t < 0 || t > 65535) return problems.add(joinPath(at, 'target'), 'expected a port number (0-65535)');
    out.push({
      mode: typeof mode === 'string' ? mode : 'ingress',
      ...(typeof host_ip === 'string' && host_ip !== '' ? { host_ip } : {}),
      target: t,
      ...(published !== undefined && published !== null && published !== '' ? { published: String(published) } : {}),
      protocol: typeof protocol === 'string' ? protocol : 'tcp',
      ...extra,
    });
  });
  return out;
}

/** The key the merge rules treat as unique for a port (Compose merge: `{ip, target, published, protocol}`). */
export function portKey(p: PortConfig): string {
  return `${p.host_ip ?? ''}|${p.target}|${p.published ?? ''}|${p.protocol}`;
}
