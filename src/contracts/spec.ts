/**
 * From a loaded Compose model to denv's Spec (DESIGN §3, issue 9). The loader (compose/) has
 * already applied the Compose specification — interpolation, env_file, extends, include,
 * profiles, the official schema — so this module applies denv's own rules:
 *
 *   - every field is honoured, ignored (cosmetic, listed in `Spec.ignored`) or refused with a
 *     reason, by the table in compose-fields.ts;
 *   - honoured fields are normalised into the types of spec-types.ts;
 *   - every problem is collected and reported at once, each with its path
 *     (`services.web.ports.0: expected …`).
 *
 * Pure: no I/O. It accepts short and long Compose syntax alike (the API may receive either).
 */
import { parse as parseYaml } from 'yaml';
import { DEPLOY_FIELDS, SERVICE_FIELDS, TOP_LEVEL_FIELDS, type FieldPolicy } from './compose-fields.js';
import { DenvError } from './errors.js';
import { Problems, isMap } from './spec-problems.js';
import { placeEdges } from './spec-edge.js';
import { normalizeService, type ServiceContext } from './spec-service.js';
import type { PackedTree, ServiceSpec, Spec } from './spec-types.js';
import { normalizeTopXDenv } from './spec-x-denv.js';
import { splitCommand } from './spec-command.js';

export * from './spec-types.js';
export { splitCommand } from './spec-command.js';

/** Keys such as `x-denv.agent.service` (top level) or `x-denv.edge.hostnames` (in a service) written literally become nested. */
function nestDottedXDenv(doc: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const xdenv: Record<string, unknown> = { ...((isMap(doc['x-denv']) ? doc['x-denv'] : {}) as Record<string, unknown>) };
  let sawXDenv = doc['x-denv'] !== undefined;
  for (const [key, value] of Object.entries(doc)) {
    if (key === 'x-denv') continue;
    if (key.startsWith('x-denv.')) {
      sawXDenv = true;
      const parts = key.slice('x-denv.'.length).split('.');
      let node = xdenv;
      parts.forEach((part, i) => {
        if (i === parts.length - 1) node[part] = value;
        else node = (node[part] = { ...((isMap(node[part]) ? node[part] : {}) as Record<string, unknown>) }) as Record<string, unknown>;
      });
      continue;
    }
    out[key] = value;
  }
  if (sawXDenv) out['x-denv'] = doc['x-denv'] !== undefined && !isMap(doc['x-denv']) ? doc['x-denv'] : xdenv;
  return out;
}

/** Every string value (not key) with `$$` read as `$`. */
function unescapeStrings(value: unknown): unknown {
  if (typeof value === 'string') return value.includes('$$') ? value.replaceAll('$$', '$') : value;
  if (Array.isArray(value)) return value.map(unescapeStrings);
  if (isMap(value)) return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, unescapeStrings(v)]));
  return value;
}

/** Apply a field table to the keys of `node`: refused and unknown keys become problems, ignored ones are listed. */
export function checkFields(node: Record<string, unknown>, table: Readonly<Record<string, FieldPolicy>>, path: string, problems: Problems, ignored: string[]): void {
  for (const key of Object.keys(node)) {
    if (key.startsWith('x-') && key !== 'x-denv') continue; // extensions are free-form (Compose specification)
    const policy = table[key];
    if (!policy) problems.add(path, `unknown field "${key}"`);
    else if (policy.kind === 'refused') problems.add(`${path}.${key}`, `not supported by denv: ${policy.reason}`);
    else if (policy.kind === 'ignored') ignored.push(`${path}.${key}`);
  }
}

function parseYamlText(source: string): unknown {
  try {
    return parseYaml(source, { merge: true, maxAliasCount: 1000 });
  } catch (err) {
    throw new DenvError('INVALID_COMPOSE', `compose: not valid YAML: ${(err as Error).message.split('\n')[0]}`);
  }
}

const NAME = /^[a-zA-Z0-9][a-zA-Z0-9_.-]*$/;
/** A path inside a packed tree: relative, no empty, `.` or `..` segment. */
const PACKED_PATH = /^(?!\/)(?!.*(?:^|\/)\.{1,2}(?:\/|$))(?!.*\/\/).+$/;

/** Top-level `volumes`: each is a dataset. `external` volumes are not denv's to manage. */
function normalizeVolumes(input: unknown, problems: Problems): string[] {
  if (input === undefined || input === null) return [];
  if (!isMap(input)) {
    problems.add('volumes', 'expected a mapping of volume names');
    return [];
  }
  for (const [name, def] of Object.entries(input)) {
    const path = `volumes.${name}`;
    if (!NAME.test(name)) problems.add('volumes', `"${name}": volume names use letters, digits, _ . -`);
    if (def === null || def === undefined) continue;
    if (!isMap(def)) problems.add(path, 'expected a mapping or nothing');
    else {
      if (def.external) problems.add(`${path}.external`, 'not supported by denv: external volumes are not managed by denv; declare a named volume (a dataset) and fork or snapshot it');
      if (def.driver !== undefined && def.driver !== 'local') problems.add(`${path}.driver`, 'not supported by denv: datasets use the agent\'s driver (btrfs or copy)');
      if (def.driver_opts !== undefined) problems.add(`${path}.driver_opts`, 'not supported by denv: datasets use the agent\'s driver (btrfs or copy)');
    }
  }
  return Object.keys(input);
}

/** Top-level `networks`: every one maps to the env's single network; external ones are refused. */
function normalizeNetworks(input: unknown, problems: Problems, ignored: string[]): string[] {
  if (input === undefined || input === null) return [];
  if (!isMap(input)) {
    problems.add('networks', 'expected a mapping of network names');
    return [];
  }
  for (const [name, def] of Object.entries(input)) {
    if (!isMap(def)) continue;
    if (def.external) problems.add(`networks.${name}.external`, 'not supported by denv: each env has one network of its own');
    for (const key of ['driver', 'driver_opts', 'ipam', 'internal', 'attachable', 'enable_ipv6', 'labels', 'name']) {
      if (def[key] !== undefined) ignored.push(`networks.${name}.${key}`);
    }
  }
  return Object.keys(input);
}

/** Top-level `secrets` / `configs`: the content must travel with the version (`x-denv-packed`, filled by the CLI). */
function normalizeGrants(kind: 'secrets' | 'configs', input: unknown, packed: Readonly<Record<string, PackedTree>>, problems: Problems, files: Record<string, PackedTree>): string[] {
  if (input === undefined || input === null) return [];
  if (!isMap(input)) {
    problems.add(kind, 'expected a mapping of names');
    return [];
  }
  const singular = kind === 'secrets' ? 'secret' : 'config';
  for (const [name, def] of Object.entries(input)) {
    const path = `${kind}.${name}`;
    if (!NAME.test(name)) problems.add(kind, `"${name}": names use letters, digits, _ . - (they name files on the host)`);
    if (!isMap(def)) {
      problems.add(path, 'expected a mapping with file or content');
      continue;
    }
    if (def.external) {
      problems.add(`${path}.external`, `not supported by denv: ${kind} come from a file beside the Compose file`);
      continue;
    }
    if (typeof def.content === 'string') {
      files[`${singular}:${name}`] = { kind: 'file', entries: [{ path: '', mode: 0o400, content_b64: Buffer.from(def.content).toString('base64') }] };
    } else if (typeof def.file === 'string') {
      const tree = packed[def.file];
      if (!tree) problems.add(`${path}.file`, `${def.file} must be sent with the Compose file: deploy with the CLI (denv deploy -f), which packs it`);
      else files[`${singular}:${name}`] = tree;
    } else if (typeof def.environment === 'string') {
      // Read from the environment where the Compose file was loaded: the CLI packs it as `env:<VAR>`.
      const tree = packed[`env:${def.environment}`];
      if (!tree) problems.add(`${path}.environment`, `${def.environment} must be read where the Compose file is loaded: deploy with the CLI (denv deploy -f), which packs it`);
      else files[`${singular}:${name}`] = tree;
    } else problems.add(path, 'expected file or content');
  }
  return Object.keys(input);
}

function readPacked(value: unknown, problems: Problems): Record<string, PackedTree> {
  if (value === undefined) return {};
  if (!isMap(value)) {
    problems.add('x-denv-packed', 'expected a mapping of packed files');
    return {};
  }
  const out: Record<string, PackedTree> = {};
  for (const [key, tree] of Object.entries(value)) {
    const t = tree as PackedTree;
    if (!isMap(tree) || (t.kind !== 'file' && t.kind !== 'dir') || !Array.isArray(t.entries)) problems.add(`x-denv-packed.${key}`, 'expected {kind, entries}');
    else if (t.entries.some((e) => !isMap(e) || typeof e.path !== 'string' || (t.kind === 'dir' && !PACKED_PATH.test(e.path)))) problems.add(`x-denv-packed.${key}`, 'entries need relative paths inside the tree (no "..", no leading "/")');
    else out[key] = { kind: t.kind, entries: t.entries.map((e) => ({ path: String(e.path), mode: Number(e.mode) & 0o777, content_b64: String(e.content_b64) })) };
  }
  return out;
}

/**
 * Parse a loaded Compose document (YAML text or an object) into a Spec, or throw
 * INVALID_COMPOSE whose message lists every problem (one per line), each with its path.
 */
export function parseSpec(source: string | Record<string, unknown>): Spec {
  const doc = typeof source === 'string' ? parseYamlText(source) : source;
  if (!isMap(doc)) throw new DenvError('INVALID_COMPOSE', 'compose: expected a mapping with "services"');
  const problems = new Problems();
  const ignored: string[] = [];
  // The loaded model writes a literal `$` as `$$` (Compose's escaped form); the Spec holds values
  // as the service sees them. `${DENV_…}` references stay: the host fills them in at start.
  const nested = nestDottedXDenv(unescapeStrings(doc) as Record<string, unknown>);
  const packed = readPacked(nested['x-denv-packed'], problems);
  const top = Object.fromEntries(Object.entries(nested).filter(([k]) => k !== 'x-denv-packed'));
  checkFields(top, TOP_LEVEL_FIELDS, 'compose', problems, ignored);
  // Unknown top-level keys read better without the `compose.` prefix.
  ignored.forEach((p, i) => (ignored[i] = p.replace(/^compose\./, '')));

  if (!isMap(top.services)) {
    problems.add('services', top.services === undefined ? 'required' : 'expected a mapping of service names');
    problems.throwIfAny();
  }
  const serviceInputs = top.services as Record<string, unknown>;
  if (Object.keys(serviceInputs).length === 0) problems.add('services', 'at least one service is required');

  const files: Record<string, PackedTree> = {};
  const volumes = normalizeVolumes(top.volumes, problems);
  const networks = normalizeNetworks(top.networks, problems, ignored);
  const secrets = normalizeGrants('secrets', top.secrets, packed, problems, files);
  const configs = normalizeGrants('configs', top.configs, packed, problems, files);
  const ctx: ServiceContext = { volumes, networks, secrets, configs, packed, files, problems, ignored, services: Object.keys(serviceInputs) };

  const services: Record<string, ServiceSpec> = {};
  for (const [name, written] of Object.entries(serviceInputs)) {
    const path = `services.${name}`;
    if (!NAME.test(name)) problems.add('services', `"${name}": service names use letters, digits, _ . -`);
    if (!isMap(written)) {
      problems.add(path, 'expected a mapping');
      continue;
    }
    const input = nestDottedXDenv(written);
    checkFields(input, SERVICE_FIELDS, path, problems, ignored);
    if (isMap(input.deploy)) checkFields(input.deploy, DEPLOY_FIELDS, `${path}.deploy`, problems, ignored);
    const spec = normalizeService(name, input, ctx);
    if (spec) services[name] = spec;
  }

  // Image services start before process services on a host: one cannot wait for the other yet.
  for (const [name, svc] of Object.entries(services)) {
    if (svc.image === null) continue;
    for (const dep of Object.keys(svc.depends_on ?? {})) {
      if (services[dep] && services[dep]!.image === null) problems.add(`services.${name}.depends_on.${dep}`, 'not supported by denv yet: an image service cannot wait for a process service (process services start after image services)');
    }
  }
  const x = normalizeTopXDenv(top['x-denv'], problems, splitCommand);
  if (x.settings.agent && serviceInputs[x.settings.agent.service] === undefined) problems.add('x-denv.agent.service', `no service named "${x.settings.agent.service}"`);
  const routed = placeEdges(services, x.edge, problems);
  problems.throwIfAny();
  return {
    services: routed,
    volumes,
    ...x.settings,
    ...(ignored.length > 0 ? { ignored } : {}),
    ...(Object.keys(files).length > 0 ? { files } : {}),
  };
}
