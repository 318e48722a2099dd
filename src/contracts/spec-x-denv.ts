/**
 * The `x-denv` extensions (DESIGN §3): closed schemas, so a typo in denv's own keys is an error
 * rather than a silently ignored setting (other `x-*` keys are free-form, as Compose says).
 */
import { z } from 'zod';
import { EdgeError } from '../edge/edge-error.js';
import { normalizeHostname } from '../edge/names.js';
import { parseDuration } from './duration.js';
import { splitCommand } from './spec-command.js';
import type { Problems } from './spec-problems.js';
import { EDGE_TLS_MODES, type HealthSpec, type ServiceEdge, type Spec, type UpdateOrder } from './spec-types.js';
import { describeZodError } from './validation.js';

export const durationInput = z.union([z.string(), z.number()]).refine((v) => parseDuration(v) !== null, 'expected a duration such as 10s or 1m30s');
const commandInput = z.union([z.string().min(1), z.array(z.string()).min(1)]);

const MAX_EDGE_HOSTNAMES = 50;
const DEFAULT_DRAIN_MS = 10_000;
const MAX_DRAIN_MS = 600_000;

/** Per service `x-denv.edge`; the top-level `x-denv.edge` is the same object, written once for a one-service app. */
const edgeInput = z.strictObject({
  hostnames: z.array(z.string()).max(MAX_EDGE_HOSTNAMES).optional(),
  tls: z.enum(EDGE_TLS_MODES).optional(),
  port: z.number().int().min(1).max(65535).optional(),
  drain: durationInput.refine((v) => (parseDuration(v) ?? 0) <= MAX_DRAIN_MS, 'expected at most 10m').optional(),
});

const serviceXDenv = z.strictObject({
  health: z
    .strictObject({
      path: z.string().startsWith('/'),
      port: z.number().int().min(1).max(65535).optional(),
      timeout: durationInput.optional(),
    })
    .optional(),
  /** Overrides the default update order (stop-first for services that write a dataset). */
  update_order: z.enum(['start-first', 'stop-first']).optional(),
  edge: edgeInput.optional(),
  /** A process service's build, run in the source deploy's checkout before it starts (`["npm", "ci"]`). */
  build: commandInput.optional(),
});

const topXDenv = z.strictObject({
  warm: commandInput.optional(),
  edge: edgeInput.optional(),
  target: z.enum(['host', 'kubernetes', 'aws_ecs']).optional(),
  approval: z.enum(['auto', 'required']).optional(),
  agent: z.strictObject({ service: z.string(), paths: z.array(z.string()).optional() }).optional(),
  verifier: z.strictObject({ command: commandInput, timeout: durationInput.optional() }).optional(),
});

const DEFAULT_HTTP_TIMEOUT_MS = 30_000;

/**
 * Hostnames as every edge provider takes them (edge/names.ts): a name a provider would refuse is a
 * problem when the Compose file is loaded, not a failed route later. A name listed twice is refused too.
 */
function hostnamesOf(names: readonly string[], path: string, problems: Problems): string[] {
  const out: string[] = [];
  names.forEach((name, i) => {
    let host: string;
    try {
      host = normalizeHostname(name);
    } catch (err) {
      if (!(err instanceof EdgeError)) throw err;
      return problems.add(`${path}.${i}`, err.message);
    }
    if (out.includes(host)) problems.add(`${path}.${i}`, `"${host}" is listed twice`);
    else out.push(host);
  });
  return out;
}

/** A parsed `x-denv.edge` (at `path`) with its defaults. */
function edgeOf(input: z.output<typeof edgeInput>, path: string, problems: Problems): ServiceEdge {
  return {
    hostnames: hostnamesOf(input.hostnames ?? [], `${path}.hostnames`, problems),
    tls: input.tls ?? 'auto',
    port: input.port ?? null,
    drain_ms: input.drain !== undefined ? parseDuration(input.drain)! : DEFAULT_DRAIN_MS,
  };
}

export interface ServiceXDenv {
  readonly health: HealthSpec | null;
  readonly update_order: UpdateOrder | null;
  readonly edge: ServiceEdge | null;
  readonly build: string[] | null;
}

export function normalizeServiceXDenv(input: unknown, path: string, problems: Problems): ServiceXDenv {
  const none: ServiceXDenv = { health: null, update_order: null, edge: null, build: null };
  if (input === undefined) return none;
  const parsed = serviceXDenv.safeParse(input);
  if (!parsed.success) {
    problems.add('', describeZodError(parsed.error, `${path}.x-denv`));
    return none;
  }
  const { health: h, edge } = parsed.data;
  return {
    health: h ? { kind: 'http', path: h.path, port: h.port ?? null, timeout_ms: h.timeout !== undefined ? parseDuration(h.timeout)! : DEFAULT_HTTP_TIMEOUT_MS } : null,
    update_order: parsed.data.update_order ?? null,
    edge: edge ? edgeOf(edge, `${path}.x-denv.edge`, problems) : null,
    build: parsed.data.build !== undefined ? (problems.catch(() => splitCommand(parsed.data.build!, `${path}.x-denv.build`)) ?? null) : null,
  };
}

type TopSettings = Pick<Spec, 'warm' | 'target' | 'approval' | 'agent' | 'verifier'>;

export interface TopXDenv {
  /** What the top-level `x-denv` sets on the Spec itself. */
  readonly settings: TopSettings;
  /** The top-level `x-denv.edge`: not a Spec field, a shorthand spec-edge.ts moves onto the app's one long-running service. */
  readonly edge: ServiceEdge | null;
}

export function normalizeTopXDenv(input: unknown, problems: Problems, split: (v: string | readonly string[], path: string) => string[]): TopXDenv {
  const none: TopXDenv = { settings: { warm: null, target: 'host', approval: null, agent: null, verifier: null }, edge: null };
  if (input === undefined) return none;
  const parsed = topXDenv.safeParse(input);
  if (!parsed.success) {
    problems.add('', describeZodError(parsed.error, 'x-denv'));
    return none;
  }
  const x = parsed.data;
  return {
    settings: {
      warm: x.warm !== undefined ? (problems.catch(() => split(x.warm!, 'x-denv.warm')) ?? null) : null,
      target: x.target ?? 'host',
      approval: x.approval ?? null,
      agent: x.agent ? { service: x.agent.service, paths: x.agent.paths ?? [] } : null,
      verifier: x.verifier
        ? { command: problems.catch(() => split(x.verifier!.command, 'x-denv.verifier.command')) ?? [], timeout_ms: x.verifier.timeout !== undefined ? parseDuration(x.verifier.timeout)! : 600_000 }
        : null,
    },
    edge: x.edge ? edgeOf(x.edge, 'x-denv.edge', problems) : null,
  };
}
