/**
 * The order services of one version start in (Compose `depends_on`), pure: a service starts once
 * each dependency meets its condition — `service_started` (spawned), `service_healthy` (passed
 * its health check), `service_completed_successfully` (ran and exited 0: a one-shot such as a
 * migration or an initdb). A dependency that fails stops its dependents from starting unless it
 * is `required: false`.
 */
import type { Dependency, ServiceSpec } from '../../contracts/spec.js';
import { canonicalJson } from '../../lib/canonical-json.js';

/** Services some other service waits on to *complete*: they run once and count as healthy when they exit 0. */
export function oneShots(services: Readonly<Record<string, ServiceSpec>>): Set<string> {
  const out = new Set<string>();
  for (const spec of Object.values(services)) {
    for (const [dep, d] of Object.entries(spec.depends_on ?? {})) if (d.condition === 'service_completed_successfully') out.add(dep);
  }
  return out;
}

/** Dependencies of `name` within `services` (those of other versions or unknown are dropped). */
export function dependenciesOf(services: Readonly<Record<string, ServiceSpec>>, name: string): [string, Dependency][] {
  return Object.entries(services[name]?.depends_on ?? {}).filter(([dep]) => dep in services && dep !== name);
}

/** The first cycle found in the dependency graph, as a path (`a → b → a`), or null. */
export function findCycle(services: Readonly<Record<string, ServiceSpec>>): string | null {
  const state = new Map<string, 'visiting' | 'done'>();
  const stack: string[] = [];
  const visit = (name: string): string | null => {
    if (state.get(name) === 'done') return null;
    if (state.get(name) === 'visiting') return [...stack.slice(stack.indexOf(name)), name].join(' → ');
    state.set(name, 'visiting');
    stack.push(name);
    for (const [dep] of dependenciesOf(services, name)) {
      const cycle = visit(dep);
      if (cycle) return cycle;
    }
    stack.pop();
    state.set(name, 'done');
    return null;
  };
  for (const name of Object.keys(services)) {
    const cycle = visit(name);
    if (cycle) return cycle;
  }
  return null;
}

/** Whether `spec` writes a dataset: such a service is updated stop-first unless it says otherwise. */
export function writesDataset(spec: ServiceSpec): boolean {
  return spec.volumes.some((v) => !v.read_only);
}

/** Compose `deploy.update_config.order`, defaulting to stop-first for services that write a dataset (two copies must not share live data). */
export function updateOrder(spec: ServiceSpec): 'start-first' | 'stop-first' {
  return spec.update_order ?? (writesDataset(spec) ? 'stop-first' : 'start-first');
}

/** Canonical JSON (sorted keys): two specs stored through different paths compare equal when they mean the same. */
export function sameSpec(a: unknown, b: unknown): boolean {
  return canonicalJson(a) === canonicalJson(b);
}
