/**
 * Cross-references in a loaded model that Compose refuses when broken: a service's named volumes,
 * networks, secrets and configs must be declared at the top level (`default` network excepted),
 * and `network_mode` excludes `networks`. Run once, on the final model (after include, extends
 * and profiles), so services pulled in from other files count.
 */
import { isMap, joinPath, type Problems } from './problems.js';

type Json = Record<string, unknown>;

function declared(model: Json, key: string): Set<string> {
  const v = model[key];
  return new Set(isMap(v) ? Object.keys(v) : []);
}

export function checkReferences(model: Json, problems: Problems): void {
  const services = isMap(model.services) ? model.services : {};
  const volumes = declared(model, 'volumes');
  const networks = declared(model, 'networks');
  const secrets = declared(model, 'secrets');
  const configs = declared(model, 'configs');
  for (const [name, s] of Object.entries(services)) {
    if (!isMap(s)) continue;
    const at = joinPath('services', name);
    if (Array.isArray(s.volumes)) {
      s.volumes.forEach((v, i) => {
        if (isMap(v) && v.type === 'volume' && typeof v.source === 'string' && !volumes.has(v.source)) {
          problems.add(joinPath(at, `volumes.${i}`), `volume "${v.source}" is not declared under the top-level "volumes"`);
        }
      });
    }
    if (isMap(s.networks)) {
      if (s.network_mode !== undefined) problems.add(joinPath(at, 'networks'), 'cannot be used together with network_mode');
      for (const n of Object.keys(s.networks)) {
        if (n !== 'default' && !networks.has(n)) problems.add(joinPath(at, `networks.${n}`), `network "${n}" is not declared under the top-level "networks"`);
      }
    }
    for (const [kind, names] of [['secrets', secrets], ['configs', configs]] as const) {
      const list = s[kind];
      if (!Array.isArray(list)) continue;
      list.forEach((e, i) => {
        const source = isMap(e) ? e.source : e;
        if (typeof source === 'string' && !names.has(source)) problems.add(joinPath(at, `${kind}.${i}`), `${kind.slice(0, -1)} "${source}" is not declared under the top-level "${kind}"`);
      });
    }
  }
}
