/**
 * Which routes and DNS names an env should have (issue 12). Pure: the executor (env-edge-sync.ts)
 * sends the answer to the env's host as `env.edge`.
 *
 *   production   a service's `x-denv.edge.hostnames` as written; with none listed and a base
 *                domain, the automatic name below
 *   other stages never the spec's hostnames (a fork of production carries them, and must not take
 *                production's traffic): the automatic name, when the team has a base domain
 *   automatic    `<env>.<project>.<base>` when one service of the spec has `x-denv.edge`,
 *                `<service>.<env>.<project>.<base>` for each when several do
 *
 * A route goes to the service's host port (its endpoint); `x-denv.edge.port` picks another port:
 * for an image service the host port published for that container port, for a process service
 * that port itself (the process listens on the host). Route ids are `<env id>.<service>`, the same
 * for every version, so a new version's route replaces the old upstream in one provider write.
 */
import { edgeRouteId, type EdgeRouteWant } from '../../contracts/env-edge.js';
import type { EnvStage } from '../../contracts/domain.js';
import type { ServiceSpec } from '../../contracts/spec.js';
import { normalizeHostname } from '../../edge/names.js';

export interface EdgeInputs {
  readonly env: { readonly id: string; readonly name: string; readonly stage: EnvStage };
  readonly project: string;
  readonly baseDomain: string | null;
  readonly services: Readonly<Record<string, ServiceSpec>>;
  /** Host port of each started service (the env.create / env.rollback result). */
  readonly ports: Readonly<Record<string, number>>;
}

export interface DesiredEdge {
  readonly routes: readonly (EdgeRouteWant & { readonly drain_ms: number })[];
  /** Every hostname of every route, sorted. */
  readonly names: readonly string[];
  /** Services with `x-denv.edge` that get no route, and why. */
  readonly skipped: readonly { readonly service: string; readonly reason: string }[];
}

/** A name as one DNS label: lower case, runs of other characters → `-`, at most 63. Null if nothing is left. */
export function dnsLabel(name: string): string | null {
  const label = name.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 63).replace(/-+$/, '');
  return label.length > 0 ? label : null;
}


function automaticName(i: EdgeInputs, service: string, several: boolean): string | { reason: string } {
  if (!i.baseDomain) return { reason: `no base domain is set for the project or the team (denv edge set-base-domain … [--project …]), and a ${i.env.stage} env never uses the spec's hostnames` };
  const labels = [several ? dnsLabel(service) : '', dnsLabel(i.env.name), dnsLabel(i.project)];
  if (labels.some((l) => l === null)) return { reason: `no DNS label can be made of the service, env or project name` };
  try {
    return normalizeHostname([...labels.filter((l) => l !== ''), i.baseDomain].join('.'));
  } catch {
    return { reason: `the automatic name for ${service} is not a valid hostname (too long?)` };
  }
}

function upstreamPort(spec: ServiceSpec, edgePort: number | null, port: number | undefined): number | { reason: string } {
  if (edgePort === null) return port ?? { reason: 'the service has no port on the host' };
  if (spec.image === null) return edgePort;
  const published = spec.published?.find((p) => p.target === edgePort && p.published !== null)?.published;
  return published ?? { reason: `x-denv.edge.port ${edgePort} is not published on the host (Compose ports: "H:${edgePort}")` };
}

export function desiredEdge(i: EdgeInputs): DesiredEdge {
  const withEdge = Object.entries(i.services).filter(([, s]) => s.edge);
  const several = withEdge.length > 1;
  const routes: (EdgeRouteWant & { drain_ms: number })[] = [];
  const skipped: { service: string; reason: string }[] = [];
  for (const [service, spec] of withEdge) {
    const edge = spec.edge!;
    let hostnames: string[];
    if (i.env.stage === 'production' && edge.hostnames.length > 0) hostnames = [...edge.hostnames];
    else {
      const auto = automaticName(i, service, several);
      if (typeof auto !== 'string') {
        skipped.push({ service, reason: auto.reason });
        continue;
      }
      hostnames = [auto];
    }
    const port = upstreamPort(spec, edge.port, i.ports[service]);
    if (typeof port !== 'number') {
      skipped.push({ service, reason: port.reason });
      continue;
    }
    routes.push({ id: edgeRouteId(i.env.id, service), service, hostnames, tls: edge.tls, port, drain_ms: edge.drain_ms });
  }
  return { routes, names: [...new Set(routes.flatMap((r) => r.hostnames))].sort(), skipped };
}

/** `https://name` for TLS auto/internal, `http://name` for off; the proxy's default ports. */
export function publicUrls(desired: DesiredEdge, service: string): string[] {
  const route = desired.routes.find((r) => r.service === service);
  return route ? route.hostnames.map((h) => `${route.tls === 'off' ? 'http' : 'https'}://${h}`) : [];
}

/** Endpoints as the env shows them: `url` on the host, `public` when the service has hostnames. */
export function withPublic(endpoints: readonly { readonly service: string; readonly url: string }[], desired: DesiredEdge | null) {
  return endpoints.map((e) => {
    const pub = desired ? publicUrls(desired, e.service) : [];
    return pub.length > 0 ? { service: e.service, url: e.url, public: pub } : { service: e.service, url: e.url };
  });
}
