/**
 * Runtime validation of command payloads. protocol.ts gives their TypeScript types; the agent
 * still checks what arrives on the wire, so a malformed command is answered `BAD_REQUEST` naming
 * the path instead of failing somewhere deep. Names that become path components (env, version,
 * service, volume, snapshot) are restricted to letters, digits, `_ . -`.
 * Unknown fields are dropped, not refused: a newer control plane may send more.
 */
import path from 'node:path';
import { z } from 'zod';
import { TRANSFER_ID, type Commands, type HostCommandKind } from '../../contracts/protocol.js';
import { sourceCheckoutSchema } from '../../contracts/source.js';
import { DEPENDS_CONDITIONS, RESTART_POLICIES, UPDATE_ORDERS } from '../../contracts/spec.js';
import { dnsSettings, proxySettings } from '../../contracts/edge-settings.js';
import { TLS_MODES } from '../../edge/proxy-provider.js';
import { SAFE_NAME } from '../files.js';

const name = z.string().regex(SAFE_NAME, 'expected letters, digits, _ . - (starting with a letter or digit)');
const ms = z.number().int().min(0);

const healthSpec = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('http'), path: z.string().startsWith('/'), port: z.number().int().min(1).max(65535).nullable(), timeout_ms: ms }),
  z.object({ kind: z.literal('command'), test: z.array(z.string()).min(1), interval_ms: ms, timeout_ms: ms.min(1), retries: z.number().int().min(0), start_period_ms: ms }),
  z.object({ kind: z.literal('alive'), for_ms: ms }),
]);

const fileGrant = z.object({ source: z.string().min(1), target: z.string().min(1), mode: z.number().int().min(0).max(0o777).nullable() });

const serviceSpec = z.object({
  image: z.string().nullable(),
  command: z.array(z.string()).min(1).nullable(),
  entrypoint: z.array(z.string()).nullable().default(null),
  environment: z.record(z.string(), z.string()).default({}),
  build_command: z.array(z.string()).min(1).max(256).nullable().optional(),
  // Relative only in a source deploy: inside the checkout (prepare-service.ts refuses it otherwise).
  working_dir: z.string().refine((p) => path.isAbsolute(p) || !p.split('/').includes('..'), 'expected an absolute path on the host, or one inside the checkout').nullable().default(null),
  ports: z.array(z.number().int()).default([]),
  volumes: z.array(z.object({ source: z.string(), target: z.string(), read_only: z.boolean() })).default([]),
  health: healthSpec,
  // Container settings (optional: older control planes do not send them).
  user: z.string().max(256).nullable().optional(),
  restart: z.enum(RESTART_POLICIES).nullable().optional(),
  stop_signal: z.string().max(32).nullable().optional(),
  stop_grace_ms: ms.nullable().optional(),
  limits: z.object({ memory_bytes: z.number().int().min(1).nullable(), cpus: z.number().positive().nullable(), pids: z.number().int().min(1).nullable() }).optional(),
  // Full Compose loading (issue 9); optional for the same reason.
  depends_on: z.record(name, z.object({ condition: z.enum(DEPENDS_CONDITIONS), required: z.boolean() })).optional(),
  update_order: z.enum(UPDATE_ORDERS).nullable().optional(),
  published: z.array(z.object({ target: z.number().int().min(1).max(65535), published: z.number().int().min(1).max(65535).nullable(), protocol: z.enum(['tcp', 'udp']) })).optional(),
  secrets: z.array(fileGrant).optional(),
  configs: z.array(fileGrant).optional(),
  binds: z.array(z.object({ source: z.string().min(1), target: z.string().min(1), read_only: z.boolean() })).optional(),
  build: z.object({ context: z.string(), dockerfile: z.string().nullable(), args: z.record(z.string(), z.string()), target: z.string().nullable() }).nullable().optional(),
  networks: z.array(z.string()).optional(),
  read_only: z.boolean().optional(),
  tmpfs: z.array(z.string().startsWith('/')).optional(),
  // The edge (issue 12): env.rollback drains for `drain_ms` after moving the env's relay routes.
  edge: z.object({ hostnames: z.array(z.string()), tls: z.enum(TLS_MODES), port: z.number().int().min(1).max(65535).nullable(), drain_ms: ms }).nullable().optional(),
});

/** Packed file contents (Spec.files): relative paths without `..`, base64 contents. */
const files = z.record(
  z.string().max(4096),
  z.object({
    kind: z.enum(['file', 'dir']),
    entries: z.array(z.object({ path: z.string().max(4096).refine((p) => !p.split('/').includes('..') && !p.startsWith('/'), 'expected a relative path inside the tree'), mode: z.number().int().min(0).max(0o777), content_b64: z.string() })).max(1000),
  }),
);

const services = z.record(name, serviceSpec).refine((s) => Object.keys(s).length > 0, 'at least one service is required');

export const PAYLOADS = {
  // The envelope passes through unvalidated (and is not stripped of unknown fields): the pipeline's admit judges it with its closed schema.
  'env.create': z.object({
    env: name,
    version: name,
    services,
    volumes: z.array(name),
    retire_others: z.boolean(),
    envelope: z.custom<Commands['env.create']['payload']['envelope']>(() => true).optional(),
    envelopes: z.array(z.custom<NonNullable<Commands['env.create']['payload']['envelopes']>[number]>(() => true)).max(100).optional(),
    project: z.string().max(200).optional(),
    env_name: z.string().max(200).optional(),
    files: files.optional(),
    source: sourceCheckoutSchema.optional(),
  }),
  'env.rollback': z.object({ env: name, version: name, services, volumes: z.array(name), snapshot: name.nullable(), restore_data: z.boolean(), files: files.optional(), source: sourceCheckoutSchema.optional() }),
  'env.snapshot': z.object({ env: name, name, volumes: z.array(name) }),
  'env.exec': z.object({ env: name, service: name, command: z.array(z.string()).min(1), timeout_ms: ms.min(1) }),
  'env.destroy': z.object({ env: name }),
  'env.fork': z.object({ from_env: name, snapshot: name, env: name, version: name, services, volumes: z.array(name), files: files.optional(), source: sourceCheckoutSchema.optional() }),
  'env.resume': z.object({ env: name, service: name.nullable() }),
  'verify.collect': z.object({
    env: name,
    service: name,
    paths: z.array(z.string().min(1)),
    capture: name,
    limits: z.object({ max_files: z.number().int().min(0), max_bytes: z.number().int().min(0), max_depth: z.number().int().min(0) }),
  }),
  'verify.run': z.object({ env: name, service: name, command: z.array(z.string()).min(1), timeout_ms: ms.min(1), collected: z.object({ env: name, capture: name }) }),
  'env.stop': z.object({ env: name }),
  'env.release': z.object({ env: name }),
  'logs.request': z.object({ env: name, lines: z.number().int().min(0).max(200), follow_ms: ms.max(10 * 60_000) }),
  'status.refresh': z.object({ env: name }),
  'env.prune_snapshots': z.object({ env: name, keep: z.array(name), remove: z.array(name) }),
  'env.snapshots': z.object({ env: name }),
  'env.edge': z.object({
    env: name,
    proxy: proxySettings,
    dns: dnsSettings,
    routes: z.array(z.object({ id: z.string().max(100), service: name, hostnames: z.array(z.string().max(253)).min(1).max(50), tls: z.enum(TLS_MODES), port: z.number().int().min(1).max(65535) })).max(200),
    remove_routes: z.array(z.string().max(100)).max(200),
    remove_names: z.array(z.string().max(253)).max(1000),
    generation: z.number().int().min(0).optional(),
  }),
  'env.export': z.object({ env: name, snapshot: name, volumes: z.array(name), format: z.enum(['btrfs', 'tar']), transfer: z.string().regex(TRANSFER_ID) }),
  'env.import': z.object({ env: name, snapshot: name, transfer: z.string().regex(TRANSFER_ID), format: z.enum(['btrfs', 'tar']), bytes: z.number().int().min(0), sha256: z.string().regex(/^[0-9a-f]{64}$/) }),
} as const satisfies { readonly [K in HostCommandKind]: z.ZodType<Commands[K]['payload']> };
