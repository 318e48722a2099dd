/**
 * The `x-denv` extensions (DESIGN §3): closed schemas, so a typo in denv's own keys is an error
 * rather than a silently ignored setting (other `x-*` keys are free-form, as Compose says).
 */
import { z } from 'zod';
import { parseDuration } from './duration.js';
import type { Problems } from './spec-problems.js';
import type { HealthSpec, Spec, UpdateOrder } from './spec-types.js';
import { describeZodError } from './validation.js';

export const durationInput = z.union([z.string(), z.number()]).refine((v) => parseDuration(v) !== null, 'expected a duration such as 10s or 1m30s');
const commandInput = z.union([z.string().min(1), z.array(z.string()).min(1)]);

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
});

const topXDenv = z.strictObject({
  warm: commandInput.optional(),
  edge: z.strictObject({ hostnames: z.array(z.string().min(1)).min(1) }).optional(),
  target: z.enum(['host', 'kubernetes', 'aws_ecs']).optional(),
  approval: z.enum(['auto', 'required']).optional(),
  agent: z.strictObject({ service: z.string(), paths: z.array(z.string()).optional() }).optional(),
  verifier: z.strictObject({ command: commandInput, timeout: durationInput.optional() }).optional(),
});

const DEFAULT_HTTP_TIMEOUT_MS = 30_000;

export interface ServiceXDenv {
  readonly health: HealthSpec | null;
  readonly update_order: UpdateOrder | null;
}

export function normalizeServiceXDenv(input: unknown, path: string, problems: Problems): ServiceXDenv {
  if (input === undefined) return { health: null, update_order: null };
  const parsed = serviceXDenv.safeParse(input);
  if (!parsed.success) {
    problems.add('', describeZodError(parsed.error, `${path}.x-denv`));
    return { health: null, update_order: null };
  }
  const h = parsed.data.health;
  return {
    health: h ? { kind: 'http', path: h.path, port: h.port ?? null, timeout_ms: h.timeout !== undefined ? parseDuration(h.timeout)! : DEFAULT_HTTP_TIMEOUT_MS } : null,
    update_order: parsed.data.update_order ?? null,
  };
}

type TopX = Pick<Spec, 'warm' | 'edge' | 'target' | 'approval' | 'agent' | 'verifier'>;

export function normalizeTopXDenv(input: unknown, problems: Problems, split: (v: string | readonly string[], path: string) => string[]): TopX {
  const none: TopX = { warm: null, edge: null, target: 'host', approval: null, agent: null, verifier: null };
  if (input === undefined) return none;
  const parsed = topXDenv.safeParse(input);
  if (!parsed.success) {
    problems.add('', describeZodError(parsed.error, 'x-denv'));
    return none;
  }
  const x = parsed.data;
  return {
    warm: x.warm !== undefined ? (problems.catch(() => split(x.warm!, 'x-denv.warm')) ?? null) : null,
    edge: x.edge ?? null,
    target: x.target ?? 'host',
    approval: x.approval ?? null,
    agent: x.agent ? { service: x.agent.service, paths: x.agent.paths ?? [] } : null,
    verifier: x.verifier
      ? { command: problems.catch(() => split(x.verifier!.command, 'x-denv.verifier.command')) ?? [], timeout_ms: x.verifier.timeout !== undefined ? parseDuration(x.verifier.timeout)! : 600_000 }
      : null,
  };
}
