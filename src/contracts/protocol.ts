/**
 * The agent protocol over `/agent/ws` (DESIGN §6). JSON text frames, one message each.
 *
 *   agent → control plane: hello, heartbeat, result, live_status, logs, metrics, incident,
 *                          transfer_data, transfer_written
 *   control plane → agent: welcome, refused, command, ack, transfer_read, transfer_write, transfer_close
 *
 * Commands are persisted by the control plane and delivered at least once; the agent answers each
 * by `id` and applies a command id at most once (a duplicate gets the stored answer, or joins the
 * run still in flight). Results are delivered at least once too: the agent keeps each one until an
 * `ack` says the control plane stored it, and sends unacknowledged ones again after every welcome
 * and every few heartbeats; the control plane stores a result once and acknowledges every copy.
 * A `result` with `ok: false` is an *error* (the agent could not do the work); work that ran and
 * failed (a service failing health) is `ok: true` with an outcome that says so (STYLE "failed vs
 * error").
 *
 * Transfers (`env move`, DESIGN §8): an archive one agent made (`env.export`) reaches another
 * (`env.import`) in chunks the control plane relays over the two agents' connections. It pulls:
 * `transfer_read` asks the source for the bytes at an offset, `transfer_write` hands them to the
 * target, and it reads further only as the target confirms writes (operations/move/relay.ts keeps
 * a few chunks in flight), so neither side buffers more than that. The chunks themselves —
 * `transfer_data` answering a read, and `transfer_write` — are *binary* frames (binary-frame.ts:
 * a JSON header, then the bytes); everything else is text. Chunks are not persisted: a transfer
 * cut by a reconnect is started again by its phase, and every write lands at its own offset.
 */
import { z } from 'zod';
import type { HostFacts } from './domain.js';
import { clusterFacts } from './kubernetes.js';
import type { KubeCommandKind, KubeCommands } from './kube-commands.js';
import type { EnvEdgePayload, EnvEdgeResult } from './env-edge.js';
import type { Envelope, PipelineAnswer } from './envelope.js';
import type { PackedTree, ServiceSpec } from './spec.js';
import type { SourceCheckout } from './source.js';
import type { CollectLimits, CollectResult, VerifyRunResult } from './verify.js';
import { incidentReport, logLine, metricSample, type LogLine } from './telemetry.js';

export const PROTOCOL_VERSION = 1;

/** A transfer's id (`tr_<hex>`): it names the archive file on both agents, so nothing else fits. */
export const TRANSFER_ID = /^tr_[0-9a-f]{8,64}$/;
/** The most bytes one `transfer_read` may ask for (base64 in a JSON frame: well under the frame limits). */
export const TRANSFER_CHUNK_MAX = 1024 * 1024;
const transferId = z.string().regex(TRANSFER_ID);
const transferOffset = z.number().int().min(0).max(Number.MAX_SAFE_INTEGER);

const hostFacts = z.looseObject({
  hostname: z.string(),
  platform: z.string(),
  arch: z.string(),
  runtimes: z.array(z.string()),
  // 'none': a Kubernetes cluster agent (its envs' data lives in PersistentVolumeClaims).
  dataset_driver: z.enum(['btrfs', 'copy', 'none']),
  agent_version: z.string(),
  public_ip: z.array(z.string().max(64)).max(8).optional(),
  // An IP address or a DNS name (an ssh cloud's machine may be named by one): up to 253 characters.
  address: z.string().max(253).optional(),
  cpus: z.number().int().min(1).max(100_000).optional(),
  memory_bytes: z.number().int().min(0).optional(),
  /** The disk that holds the agent's datasets: its size and what is free (free is refreshed by each heartbeat). */
  disk_bytes: z.number().int().min(0).optional(),
  disk_free_bytes: z.number().int().min(0).optional(),
  /** A Kubernetes cluster agent's cluster (`runtimes: ['kubernetes']`). */
  cluster: clusterFacts.optional(),
});

/** A live output message carries at most this many lines, each cut to this many characters. */
export const OUTPUT_LINES_MAX = 200;
export const OUTPUT_LINE_MAX = 2000;

export const agentMessage = z.discriminatedUnion('type', [
  z.object({
    type: z.literal('hello'),
    protocol: z.number().int(),
    name: z.string().min(1),
    facts: hostFacts,
    /** First connection: trade an enrollment key for a host credential. */
    enrollment_key: z.string().optional(),
    /** Later connections. */
    host_id: z.string().optional(),
    credential: z.string().optional(),
  }),
  /** `disk_free_bytes`: the datasets' disk now (placement reads it). */
  z.object({ type: z.literal('heartbeat'), disk_free_bytes: z.number().int().min(0).optional() }),
  z.object({
    type: z.literal('live_status'),
    env: z.string(),
    at: z.string(),
    workloads: z.array(z.looseObject({ service: z.string(), version: z.string(), desired: z.number(), ready: z.number() })),
  }),
  /** Telemetry (contracts/telemetry.ts): log lines of a watched env, metric samples, a recurring error. */
  z.object({ type: z.literal('logs'), env: z.string(), lines: z.array(logLine).max(2000) }),
  z.object({ type: z.literal('metrics'), env: z.string(), samples: z.array(metricSample).max(5000) }),
  incidentReport.extend({ type: z.literal('incident') }),
  /** Live output of a running command (a build's), best effort: the control plane keeps it with the command's deployment. */
  z.object({ type: z.literal('output'), id: z.string(), service: z.string().max(256), lines: z.array(z.string().max(OUTPUT_LINE_MAX)).max(OUTPUT_LINES_MAX) }),
  z.object({
    type: z.literal('result'),
    id: z.string(),
    ok: z.boolean(),
    result: z.unknown().optional(),
    error: z.object({ code: z.string(), message: z.string() }).optional(),
  }),
  /** Why the bytes of a transfer's archive at `offset` could not be read (the bytes come as a binary frame: transferDataHeader). */
  z.object({ type: z.literal('transfer_data'), transfer: transferId, offset: transferOffset, error: z.string().max(2000) }),
  /** `transfer_write` at `offset` is on disk, or why it is not. */
  z.object({ type: z.literal('transfer_written'), transfer: transferId, offset: transferOffset, error: z.string().max(2000).optional() }),
]);
export type AgentMessage = z.infer<typeof agentMessage>;

/** One workload of an env as the agent sees it now (seed 002 live_status). */
export interface LiveWorkload {
  readonly service: string;
  readonly version: string;
  readonly desired: number;
  readonly ready: number;
  /** The last probe's answer (e.g. `HTTP 500`, `not running`). */
  readonly detail: string;
  /** kubernetes: a cluster agent's Deployment (pid null, restarts summed over its pods); aws_ecs: an ECS service (its tasks). */
  readonly runtime: 'process' | 'docker' | 'kubernetes' | 'aws_ecs';
  readonly command: readonly string[] | null;
  readonly image: string | null;
  readonly pid: number | null;
  readonly port: number;
  readonly restarts: number;
  /** How the process last ended, e.g. `exit code 1`, `killed by SIGKILL`, `OOMKilled`. */
  readonly last_exit: string | null;
  /** When it last ended (absent: never, or an agent older than telemetry). */
  readonly last_exit_at?: string | null;
  /** Supervision state: `starting` (health not yet passed), `running`, `exited` (died while starting). */
  readonly state?: string;
  readonly started_at?: string | null;
  /** Bytes used by each dataset the service mounts (`truncated`: counting stopped at a bound). */
  readonly volumes?: readonly { readonly name: string; readonly bytes: number; readonly truncated: boolean }[];
}

export interface LiveStatus {
  readonly env: string;
  readonly at: string;
  readonly workloads: readonly LiveWorkload[];
}

export type ControlMessage =
  | { type: 'welcome'; host_id: string; credential?: string; heartbeat_ms: number; live_status_ms?: number; metrics_ms?: number; incident_threshold?: number }
  | { type: 'refused'; code: string; message: string }
  | { type: 'command'; id: string; kind: CommandKind; payload: unknown }
  /** The result of command `id` is stored (or no longer wanted): the agent may forget it. */
  | { type: 'ack'; id: string }
  /** Transfers (see the top of this file): read, write, and forget a transfer's archive. */
  | { type: 'transfer_read'; transfer: string; offset: number; length: number }
  | { type: 'transfer_write'; transfer: string; offset: number; data: Buffer }
  | { type: 'transfer_close'; transfer: string };

export const controlMessage = z.discriminatedUnion('type', [
  z.object({ type: z.literal('welcome'), host_id: z.string(), credential: z.string().optional(), heartbeat_ms: z.number(), live_status_ms: z.number().optional(), metrics_ms: z.number().optional(), incident_threshold: z.number().optional() }),
  z.object({ type: z.literal('refused'), code: z.string(), message: z.string() }),
  z.object({ type: z.literal('command'), id: z.string(), kind: z.string(), payload: z.unknown() }),
  z.object({ type: z.literal('ack'), id: z.string() }),
  z.object({ type: z.literal('transfer_read'), transfer: transferId, offset: transferOffset, length: z.number().int().min(1).max(TRANSFER_CHUNK_MAX) }),
  z.object({ type: z.literal('transfer_close'), transfer: transferId }),
]);

/** Headers of the binary frames (binary-frame.ts): the bytes of the archive at `offset`, read from
 *  the source (agent → control plane) or to be written on the target (control plane → agent). */
export const transferDataHeader = z.strictObject({ type: z.literal('transfer_data'), transfer: transferId, offset: transferOffset });
export const transferWriteHeader = z.strictObject({ type: z.literal('transfer_write'), transfer: transferId, offset: transferOffset });

/** Every command an agent understands, with its payload and its result: a host agent's below, a
 *  Kubernetes cluster agent's in kube-commands.ts. */
export interface Commands extends KubeCommands {
  /** Prepare datasets, start the version's services on fresh ports, wait for health, probe egress.
   *  Services of other versions of the env keep running (the phase engine stops them on success
   *  through env.rollback / a later env.create with `retire_others`). On start or health failure the
   *  agent stops what this command started and reports the outcome; nothing else changes. */
  'env.create': {
    /** `envelope`: a signed deploy relayed as received (DESIGN §7); image services run seed 004's pipeline, and the one it names is checked against it.
     *  `envelopes`: one per image service (each pipeline takes the one naming its service). `project`/`env_name`: the names an envelope's `scope` binds to. */
    payload: {
      env: string;
      version: string;
      services: Record<string, ServiceSpec>;
      volumes: string[];
      retire_others: boolean;
      envelope?: Envelope | null;
      envelopes?: Envelope[];
      project?: string;
      env_name?: string;
      /** Secret, config and bind-mounted file contents of the version (Spec.files). */
      files?: Record<string, PackedTree>;
      /** A source deploy: the commit its process services run from (contracts/source.ts). */
      source?: SourceCheckout;
    };
    result: EnvCreateResult;
  };
  /** Make `version` the one running: start its services if not running (adopting live ones),
   *  stop every other version of the env. `restore_data` also restores datasets from the snapshot. */
  'env.rollback': {
    payload: { env: string; version: string; services: Record<string, ServiceSpec>; volumes: string[]; snapshot: string | null; restore_data: boolean; files?: Record<string, PackedTree>; source?: SourceCheckout };
    result: EnvCreateResult & { restored: string | null };
  };
  /** Pause every service of the env, snapshot every dataset as `name`, resume. */
  'env.snapshot': {
    payload: { env: string; name: string; volumes: string[] };
    result: { snapshot: string; datasets: string[]; frozen_for: number; consistent: boolean };
  };
  /** Run argv in a service's context (its env, working dir, PORT, datasets). */
  'env.exec': {
    payload: { env: string; service: string; command: string[]; timeout_ms: number };
    result: { exit: number | null; stdout: string; stderr: string; timed_out: boolean };
  };
  /** Fork (issue 3): `env`'s datasets become writable copies of `from_env`'s snapshot `snapshot`
   *  (btrfs: O(1) snapshots), then `version`'s services start on fresh ports as in env.create.
   *  `forked_in_ms` is the dataset fork alone. Datasets are not forked again once `env` has services. */
  'env.fork': {
    payload: { from_env: string; snapshot: string; env: string; version: string; services: Record<string, ServiceSpec>; volumes: string[]; files?: Record<string, PackedTree>; source?: SourceCheckout };
    result: EnvCreateResult & { forked_in_ms: number; from: string };
  };
  /** Let services held paused by verify.collect run again: `service`'s, or every one of the env. */
  'env.resume': {
    payload: { env: string; service: string | null };
    result: { resumed: number };
  };
  /** verify's capture: pause `service` and keep it paused, then copy its declared `paths` (relative to
   *  its working dir) into the agent's own directory for `capture`, refusing anything that is not a
   *  regular file or directory inside the service root (contracts/verify.ts). */
  'verify.collect': {
    payload: { env: string; service: string; paths: string[]; capture: string; limits: CollectLimits };
    result: CollectResult;
  };
  /** Run the verifier argv in `service`'s context in (grader) env `env`, with DENV_COLLECTED pointing
   *  at what verify.collect copied for `collected`, and read its reward (contracts/verify.ts). */
  'verify.run': {
    payload: { env: string; service: string; command: string[]; timeout_ms: number; collected: { env: string; capture: string } };
    result: VerifyRunResult;
  };
  /** Stop every process of the env and delete its datasets, snapshots and ports. */
  /** Scale to zero: stop every process of the env; datasets, snapshots and state of versions stay. */
  'env.stop': {
    payload: { env: string };
    result: { stopped: number; ports: number };
  };
  /** Separate: stop managing the env (processes keep running, unsupervised); later commands for it are refused. */
  'env.release': {
    payload: { env: string };
    result: { released: true; left_running: number[] };
  };
  'env.destroy': {
    payload: { env: string };
    result: { removed: { processes: number; datasets: number; snapshots: number; ports: number } };
  };
  /** The workload logs the agent holds (ring buffers, at most 200 lines per workload), the last
   *  `lines` of each. With `follow_ms` > 0 the agent also pushes `logs` frames with every new line
   *  of the env until `follow_ms` from now (the control plane renews it while someone watches). */
  'logs.request': {
    payload: { env: string; lines: number; follow_ms: number };
    result: { env: string; lines: LogLine[] };
  };
  /** Probe the env's workloads now; the answer is the live status (also pushed as `live_status`). */
  'status.refresh': {
    payload: { env: string };
    result: LiveStatus;
  };
  /** Snapshot retention (issue 9): delete the env's snapshots named in `remove`, never one named in
   *  `keep` (keep wins), and leave any other alone (a snapshot made after the control plane decided
   *  is never in `remove`). Idempotent: a missing snapshot is skipped. `kept`: the snapshots left on
   *  the host; `freed_bytes`: the bytes the removed ones held (file sizes; on btrfs, data shared
   *  with other subvolumes is counted too). */
  'env.prune_snapshots': {
    payload: { env: string; keep: string[]; remove: string[] };
    result: { removed: string[]; kept: string[]; freed_bytes: number };
  };
  /** The env's snapshots on the host, with the bytes each dataset holds (a bounded walk: `truncated`
   *  when it stopped counting). */
  'env.snapshots': {
    payload: { env: string };
    result: { snapshots: SnapshotUsage[] };
  };
  /** Move, on the source host: write snapshot `snapshot` of the env's datasets `volumes` as one
   *  archive for transfer `transfer` (`btrfs`: a `btrfs send` stream; `tar`: a tar of the snapshot's
   *  trees, owners kept as numbers). Idempotent: an archive already made is described again. */
  'env.export': {
    payload: { env: string; snapshot: string; volumes: string[]; format: ArchiveFormat; transfer: string };
    result: TransferArchive;
  };
  /** Move, on the target host: check the archive written for `transfer` (its size and sha256), unpack
   *  it as the env's snapshot `snapshot`, make the env's live datasets from it, and give files the
   *  source's env uid owned to this host's uid of the env. Once the env has services here, nothing is
   *  imported again (a re-delivery must not replace data they wrote). */
  'env.import': {
    payload: { env: string; snapshot: string; transfer: string; format: ArchiveFormat; bytes: number; sha256: string };
    result: { datasets: string[]; imported_in_ms: number; reowned: number; already: boolean };
  };
  /** Apply the env's routes and DNS names through the team's providers, from this host (env-edge.ts).
   *  Provider failures are in the result, per provider; the command fails only on a bad payload. */
  'env.edge': {
    payload: EnvEdgePayload;
    result: EnvEdgeResult;
  };
}

/** How a moved env's datasets travel: `btrfs` send/receive when both hosts have btrfs, else a tar archive. */
export type ArchiveFormat = 'btrfs' | 'tar';

/** An archive `env.export` wrote: its transfer id, size, sha256 and the datasets it holds. */
export interface TransferArchive {
  readonly transfer: string;
  readonly format: ArchiveFormat;
  readonly bytes: number;
  readonly sha256: string;
  readonly datasets: readonly string[];
  readonly exported_in_ms: number;
}

export interface SnapshotUsage {
  readonly name: string;
  readonly bytes: number;
  readonly truncated: boolean;
  readonly datasets: readonly { readonly name: string; readonly bytes: number; readonly truncated: boolean }[];
}
export type CommandKind = keyof Commands;
/** The commands of a host agent (everything but a cluster agent's `kube.*`). */
export type HostCommandKind = Exclude<CommandKind, KubeCommandKind>;
export const COMMAND_KINDS = ['env.create', 'env.rollback', 'env.snapshot', 'env.exec', 'env.destroy', 'env.fork', 'env.resume', 'verify.collect', 'verify.run', 'env.stop', 'env.release', 'logs.request', 'status.refresh', 'env.prune_snapshots', 'env.snapshots', 'env.edge', 'env.export', 'env.import'] as const satisfies readonly HostCommandKind[];

export interface ServiceEndpoint {
  readonly service: string;
  readonly url: string;
  readonly port: number;
}

export interface EnvCreateResult {
  /** `healthy`: all services up and healthy. `start_failed`: a process would not start or exited at once.
   *  `unhealthy`: started but failed its health check. */
  readonly outcome: 'healthy' | 'start_failed' | 'unhealthy';
  readonly message: string | null;
  readonly started_in_ms: number;
  readonly healthy_in_ms: number | null;
  readonly endpoints: readonly ServiceEndpoint[];
  readonly datasets: readonly string[];
  readonly egress: { readonly ok: boolean; readonly target: string; readonly detail: string };
  /** Per service: pid, port, and for failures the last lines it printed. */
  readonly services: Readonly<Record<string, { pid: number | null; port: number; log_tail?: string[] }>>;
  /** Per service updated stop-first (it writes a dataset): how long it was down, from the old copy's stop to the new one's health. */
  readonly updates?: Readonly<Record<string, { readonly order: 'stop-first'; readonly down_ms: number }>>;
  /** Per image service: the deploy pipeline's terminal state and every stage's status (seed 004). */
  readonly pipelines?: Readonly<Record<string, PipelineAnswer>>;
  /** Per image service a source deploy built (Compose `build:`, agent envs/image-build.ts): the image, or why the build failed. */
  readonly builds?: Readonly<Record<string, ImageBuildReport>>;
}

/** One `docker build` of a source deploy: `failed` with docker's last lines, or the image it made (`cached`: an earlier identical build's). */
export type ImageBuildReport =
  | { readonly failed: false; readonly tag: string; readonly image_id: string; readonly commit: string; readonly cached: boolean; readonly took_ms: number }
  | { readonly failed: true; readonly commit: string; readonly message: string };

export type { HostFacts };
