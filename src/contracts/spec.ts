/**
 * The app spec: a Compose file with `x-denv` extensions (DESIGN §3), parsed by a closed schema
 * into the normalised `Spec` every other module uses. Unknown fields are refused with their path;
 * other `x-*` extension keys are ignored, as the Compose specification says.
 */
import { parse as parseShellWords } from 'shell-quote';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';
import { parseDuration } from './duration.js';
import { DenvError } from './errors.js';
import { describeZodError } from './validation.js';

const duration = z.union([z.string(), z.number()]).refine((v) => parseDuration(v) !== null, 'expected a duration such as 10s or 1m30s');
const commandInput = z.union([z.string().min(1), z.array(z.string()).min(1)]);
const scalar = z.union([z.string(), z.number(), z.boolean(), z.null()]);

const httpHealthInput = z.strictObject({
  path: z.string().startsWith('/'),
  port: z.number().int().min(1).max(65535).optional(),
  timeout: duration.optional(),
});

const serviceXDenvInput = z.strictObject({ health: httpHealthInput.optional() });

const healthcheckInput = z.strictObject({
  test: z.union([z.string().min(1), z.array(z.string()).min(1)]).optional(),
  interval: duration.optional(),
  timeout: duration.optional(),
  retries: z.number().int().min(0).optional(),
  start_period: duration.optional(),
  start_interval: duration.optional(),
  disable: z.boolean().optional(),
});

const volumeMountInput = z.union([
  z.string(),
  z.strictObject({
    type: z.literal('volume').optional(),
    source: z.string(),
    target: z.string(),
    read_only: z.boolean().optional(),
  }),
]);

const portInput = z.union([
  z.number().int(),
  z.string(),
  z.strictObject({ target: z.number().int(), published: z.union([z.string(), z.number()]).optional(), protocol: z.string().optional() }),
]);

const serviceInput = z.strictObject({
  image: z.string().min(1).optional(),
  command: commandInput.optional(),
  entrypoint: commandInput.optional(),
  environment: z.union([z.array(z.string()), z.record(z.string(), scalar)]).optional(),
  working_dir: z.string().optional(),
  ports: z.array(portInput).optional(),
  volumes: z.array(volumeMountInput).optional(),
  healthcheck: healthcheckInput.optional(),
  depends_on: z.union([z.array(z.string()), z.record(z.string(), z.unknown())]).optional(),
  restart: z.string().optional(),
  labels: z.union([z.array(z.string()), z.record(z.string(), z.string())]).optional(),
  'x-denv': serviceXDenvInput.optional(),
});

const topXDenvInput = z.strictObject({
  warm: commandInput.optional(),
  edge: z.strictObject({ hostnames: z.array(z.string().min(1)).min(1) }).optional(),
  target: z.enum(['host', 'kubernetes', 'aws_ecs']).optional(),
  approval: z.enum(['auto', 'required']).optional(),
  agent: z.strictObject({ service: z.string(), paths: z.array(z.string()).optional() }).optional(),
  verifier: z.strictObject({ command: commandInput, timeout: duration.optional() }).optional(),
});

const composeInput = z.strictObject({
  version: z.union([z.string(), z.number()]).optional(),
  name: z.string().optional(),
  services: z.record(z.string().regex(/^[a-zA-Z0-9][a-zA-Z0-9_.-]*$/, 'service names use letters, digits, _ . -'), serviceInput),
  volumes: z.record(z.string().regex(/^[a-zA-Z0-9][a-zA-Z0-9_.-]*$/, 'volume names use letters, digits, _ . -'), z.union([z.null(), z.looseObject({})])).optional(),
  'x-denv': topXDenvInput.optional(),
});

/** How a service's health is judged (DESIGN "Contract details"). */
export type HealthSpec =
  | { readonly kind: 'http'; readonly path: string; readonly port: number | null; readonly timeout_ms: number }
  | { readonly kind: 'command'; readonly test: readonly string[]; readonly interval_ms: number; readonly timeout_ms: number; readonly retries: number; readonly start_period_ms: number }
  | { readonly kind: 'alive'; readonly for_ms: number };

export interface VolumeMount {
  readonly source: string;
  readonly target: string;
  readonly read_only: boolean;
}

export interface ServiceSpec {
  readonly image: string | null;
  /** argv; for a process service the program and its arguments, never a shell string. */
  readonly command: readonly string[] | null;
  readonly entrypoint: readonly string[] | null;
  readonly environment: Readonly<Record<string, string>>;
  readonly working_dir: string | null;
  readonly ports: readonly number[];
  readonly volumes: readonly VolumeMount[];
  readonly health: HealthSpec;
}

export interface Spec {
  readonly services: Readonly<Record<string, ServiceSpec>>;
  /** Dataset names (Compose named volumes). */
  readonly volumes: readonly string[];
  readonly warm: readonly string[] | null;
  readonly edge: { readonly hostnames: readonly string[] } | null;
  readonly target: 'host' | 'kubernetes' | 'aws_ecs';
  readonly approval: 'auto' | 'required' | null;
  readonly agent: { readonly service: string; readonly paths: readonly string[] } | null;
  readonly verifier: { readonly command: readonly string[]; readonly timeout_ms: number } | null;
}

const DEFAULT_HTTP_TIMEOUT_MS = 30_000;
const ALIVE_FOR_MS = 1000;

function invalid(path: string, message: string): never {
  throw new DenvError('INVALID_COMPOSE', `${path}: ${message}`);
}

/** Split a Compose command string into argv the way Compose does (no shell is involved). */
export function splitCommand(value: string | readonly string[], path: string): string[] {
  if (typeof value !== 'string') return [...value];
  // Variables stay literal: denv does not interpolate (shell-quote would expand them to '').
  const words = parseShellWords(value, (key) => `$${key}`);
  return words.map((word) => {
    if (typeof word !== 'string') invalid(path, 'shell operators (|, &&, >, globs …) are not allowed; denv runs commands as argv without a shell');
    return word;
  });
}

/** Keys such as `x-denv.agent.service` written literally at the top level become nested. */
function nestDottedXDenv(doc: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const xdenv: Record<string, unknown> = { ...((doc['x-denv'] as Record<string, unknown> | undefined) ?? {}) };
  let sawXDenv = doc['x-denv'] !== undefined;
  for (const [key, value] of Object.entries(doc)) {
    if (key === 'x-denv') continue;
    if (key.startsWith('x-denv.')) {
      sawXDenv = true;
      const parts = key.slice('x-denv.'.length).split('.');
      let node = xdenv;
      parts.forEach((part, i) => {
        if (i === parts.length - 1) node[part] = value;
        else node = (node[part] = { ...((node[part] as Record<string, unknown> | undefined) ?? {}) }) as Record<string, unknown>;
      });
      continue;
    }
    if (key.startsWith('x-')) continue;
    out[key] = value;
  }
  if (sawXDenv) out['x-denv'] = xdenv;
  return out;
}

function stripExtensions(service: unknown): unknown {
  if (!service || typeof service !== 'object' || Array.isArray(service)) return service;
  return Object.fromEntries(Object.entries(service).filter(([k]) => !k.startsWith('x-') || k === 'x-denv'));
}

function normalizeEnvironment(input: z.infer<typeof serviceInput>['environment'], path: string): Record<string, string> {
  if (!input) return {};
  if (Array.isArray(input)) {
    const env: Record<string, string> = {};
    input.forEach((entry, i) => {
      const eq = entry.indexOf('=');
      if (eq <= 0) invalid(`${path}.environment.${i}`, 'expected KEY=VALUE');
      env[entry.slice(0, eq)] = entry.slice(eq + 1);
    });
    return env;
  }
  return Object.fromEntries(Object.entries(input).map(([k, v]) => [k, v === null ? '' : String(v)]));
}

function normalizeHealth(service: z.infer<typeof serviceInput>, path: string): HealthSpec {
  const check = service.healthcheck;
  if (check && !check.disable && check.test !== undefined) {
    let test: string[];
    if (typeof check.test === 'string') test = splitCommand(check.test, `${path}.healthcheck.test`);
    else if (check.test[0] === 'CMD') test = check.test.slice(1);
    else if (check.test[0] === 'CMD-SHELL') {
      if (service.image) test = check.test.slice(); // run by Docker inside the container
      else invalid(`${path}.healthcheck.test`, 'CMD-SHELL needs a shell; a process service takes ["CMD", program, args…]');
    } else if (check.test[0] === 'NONE') test = [];
    else invalid(`${path}.healthcheck.test`, 'expected ["CMD", …], ["CMD-SHELL", …] or a command string');
    if (test.length > 0) {
      return {
        kind: 'command',
        test,
        interval_ms: parseDuration(check.interval ?? '1s')!,
        timeout_ms: parseDuration(check.timeout ?? '30s')!,
        retries: check.retries ?? 3,
        start_period_ms: parseDuration(check.start_period ?? '0s')!,
      };
    }
  }
  const http = service['x-denv']?.health;
  if (http) {
    return { kind: 'http', path: http.path, port: http.port ?? null, timeout_ms: http.timeout !== undefined ? parseDuration(http.timeout)! : DEFAULT_HTTP_TIMEOUT_MS };
  }
  return { kind: 'alive', for_ms: ALIVE_FOR_MS };
}

function normalizeVolumes(service: z.infer<typeof serviceInput>, declared: readonly string[], path: string): VolumeMount[] {
  return (service.volumes ?? []).map((mount, i) => {
    let source: string;
    let target: string;
    let readOnly = false;
    if (typeof mount === 'string') {
      const parts = mount.split(':');
      if (parts.length < 2 || parts.length > 3) invalid(`${path}.volumes.${i}`, 'expected NAME:/path[:ro]');
      [source, target] = [parts[0]!, parts[1]!];
      readOnly = parts[2] === 'ro';
    } else {
      ({ source, target } = mount);
      readOnly = mount.read_only ?? false;
    }
    if (source.startsWith('.') || source.startsWith('/') || source.startsWith('~')) {
      invalid(`${path}.volumes.${i}`, 'bind mounts are not supported; declare a named volume (a dataset) instead');
    }
    if (!declared.includes(source)) invalid(`${path}.volumes.${i}`, `volume "${source}" is not declared under top-level volumes`);
    return { source, target, read_only: readOnly };
  });
}

function normalizePorts(service: z.infer<typeof serviceInput>, path: string): number[] {
  return (service.ports ?? []).map((port, i) => {
    if (typeof port === 'number') return port;
    if (typeof port === 'object') return port.target;
    const last = port.split(':').pop()!.split('/')[0]!;
    const n = Number(last);
    if (!Number.isInteger(n) || n < 1 || n > 65535) invalid(`${path}.ports.${i}`, 'expected a port number such as 8080 or "8080:80"');
    return n;
  });
}

/** Parse a Compose document (YAML text or an already-parsed object) into a Spec, or throw INVALID_COMPOSE with the path. */
export function parseSpec(source: string | Record<string, unknown>): Spec {
  let doc: unknown = source;
  if (typeof source === 'string') {
    try {
      doc = parseYaml(source);
    } catch (err) {
      throw new DenvError('INVALID_COMPOSE', `compose: not valid YAML: ${(err as Error).message.split('\n')[0]}`);
    }
  }
  if (!doc || typeof doc !== 'object' || Array.isArray(doc)) throw new DenvError('INVALID_COMPOSE', 'compose: expected a mapping with "services"');
  const nested = nestDottedXDenv(doc as Record<string, unknown>);
  if (nested.services && typeof nested.services === 'object' && !Array.isArray(nested.services)) {
    nested.services = Object.fromEntries(Object.entries(nested.services).map(([k, v]) => [k, stripExtensions(v)]));
  }
  const parsed = composeInput.safeParse(nested);
  if (!parsed.success) throw new DenvError('INVALID_COMPOSE', describeZodError(parsed.error));
  const input = parsed.data;
  const names = Object.keys(input.services);
  if (names.length === 0) invalid('services', 'at least one service is required');
  const volumes = Object.keys(input.volumes ?? {});
  const services: Record<string, ServiceSpec> = {};
  for (const name of names) {
    const svc = input.services[name]!;
    const path = `services.${name}`;
    if (!svc.image && !svc.command) invalid(path, 'needs an image or a command (no image and no command to run)');
    services[name] = {
      image: svc.image ?? null,
      command: svc.command !== undefined ? splitCommand(svc.command, `${path}.command`) : null,
      entrypoint: svc.entrypoint !== undefined ? splitCommand(svc.entrypoint, `${path}.entrypoint`) : null,
      environment: normalizeEnvironment(svc.environment, path),
      working_dir: svc.working_dir ?? null,
      ports: normalizePorts(svc, path),
      volumes: normalizeVolumes(svc, volumes, path),
      health: normalizeHealth(svc, path),
    };
  }
  const x = input['x-denv'] ?? {};
  if (x.agent && !services[x.agent.service]) invalid('x-denv.agent.service', `no service named "${x.agent.service}"`);
  return {
    services,
    volumes,
    warm: x.warm !== undefined ? splitCommand(x.warm, 'x-denv.warm') : null,
    edge: x.edge ?? null,
    target: x.target ?? 'host',
    approval: x.approval ?? null,
    agent: x.agent ? { service: x.agent.service, paths: x.agent.paths ?? [] } : null,
    verifier: x.verifier
      ? { command: splitCommand(x.verifier.command, 'x-denv.verifier.command'), timeout_ms: x.verifier.timeout !== undefined ? parseDuration(x.verifier.timeout)! : 600_000 }
      : null,
  };
}
