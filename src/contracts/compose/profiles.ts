/**
 * Profiles (Compose specification, profiles.md): a service without `profiles` is always in the
 * model; one with `profiles` only when one of them is active. Other top-level elements are never
 * filtered. A dependency on a service left out is not pulled in: the spec makes it an error
 * (`required: false` dependencies are dropped with a warning instead, as Compose does).
 */
import { isMap, joinPath, type Problems } from './problems.js';

type Json = Record<string, unknown>;

export function isServiceActive(service: unknown, active: ReadonlySet<string>): boolean {
  if (!isMap(service) || !Array.isArray(service.profiles) || service.profiles.length === 0) return true;
  return active.has('*') || service.profiles.some((p) => active.has(String(p)));
}

/**
 * The services of `services` that the active profiles enable (`*` enables all). Problems name
 * each dependency on a service left out; `prefix` is put before the paths.
 */
export function applyProfiles(services: Json, activeProfiles: readonly string[], problems: Problems, warnings: string[], prefix = ''): Json {
  const active = new Set(activeProfiles);
  const kept: Json = {};
  for (const [name, s] of Object.entries(services)) if (isServiceActive(s, active)) kept[name] = s;
  for (const [name, s] of Object.entries(kept)) {
    if (!isMap(s) || !isMap(s.depends_on)) continue;
    const deps: Json = {};
    for (const [dep, d] of Object.entries(s.depends_on)) {
      if (dep in kept) {
        deps[dep] = d;
        continue;
      }
      const required = !isMap(d) || d.required !== false;
      const why = dep in services ? `is not enabled by the active profiles (${activeProfiles.length ? activeProfiles.join(', ') : 'none'})` : 'is not defined';
      if (required) problems.add(joinPath(`${prefix}services`, `${name}.depends_on.${dep}`), `service "${dep}" ${why}`);
      else warnings.push(`service "${name}" depends on "${dep}", which ${why}; the optional dependency is dropped`);
    }
    kept[name] = { ...s, depends_on: deps };
  }
  return kept;
}
