/**
 * The `x-denv.edge` rules that span services (DESIGN "Edge"), applied once every service is read:
 *
 *   - the top-level `x-denv.edge` is a shorthand for an app with one long-running service: it
 *     lands on that service, as if written under `services.<name>.x-denv.edge`;
 *   - a hostname routes to one service: two services naming the same one are refused.
 *
 * Pure; problems are collected with their paths like the rest of spec.ts.
 */
import type { Problems } from './spec-problems.js';
import type { ServiceEdge, ServiceSpec } from './spec-types.js';

/**
 * Services another service waits on to *complete* (`service_completed_successfully`): they run
 * once and serve nothing. The agent tells them apart by the same rule (`oneShots` in
 * agent/envs/start-order.ts).
 */
function oneShots(services: Readonly<Record<string, ServiceSpec>>): Set<string> {
  const out = new Set<string>();
  for (const spec of Object.values(services)) {
    for (const [dep, d] of Object.entries(spec.depends_on ?? {})) if (d.condition === 'service_completed_successfully') out.add(dep);
  }
  return out;
}

/** The service the shorthand belongs to, or null (with a problem when there is no single one). */
function shorthandOwner(services: Readonly<Record<string, ServiceSpec>>, problems: Problems): string | null {
  const names = Object.keys(services);
  if (names.length === 0) return null; // already refused: at least one service is required
  const shots = oneShots(services);
  const candidates = names.filter((name) => !shots.has(name));
  if (candidates.length === 0) {
    problems.add('x-denv.edge', 'every service is a one-shot (another service waits for it to complete): there is no service to route to');
    return null;
  }
  if (candidates.length > 1) {
    problems.add('x-denv.edge', `the top-level edge is a shorthand for an app with one long-running service, and this one has ${candidates.length} (${candidates.join(', ')}): put it under services.<name>.x-denv.edge`);
    return null;
  }
  const owner = candidates[0]!;
  if (services[owner]!.edge) {
    problems.add('x-denv.edge', `services.${owner}.x-denv.edge is set too: write the edge once, under services.${owner}.x-denv.edge`);
    return null;
  }
  return owner;
}

/** `services` with the top-level shorthand moved onto its service; every shared hostname is a problem. */
export function placeEdges(services: Readonly<Record<string, ServiceSpec>>, shorthand: ServiceEdge | null, problems: Problems): Record<string, ServiceSpec> {
  const out = { ...services };
  const owner = shorthand ? shorthandOwner(services, problems) : null;
  if (owner !== null) out[owner] = { ...out[owner]!, edge: shorthand };
  const writtenAt = (name: string) => (name === owner ? 'x-denv.edge' : `services.${name}.x-denv.edge`);

  const routedBy = new Map<string, string>();
  for (const [name, spec] of Object.entries(out)) {
    for (const host of spec.edge?.hostnames ?? []) {
      const first = routedBy.get(host);
      if (first === undefined) routedBy.set(host, name);
      else problems.add(`${writtenAt(name)}.hostnames`, `"${host}" is also a hostname of service "${first}": a hostname routes to one service`);
    }
  }
  return out;
}
