/**
 * What an image service's pipeline stage works on (seed 004; STYLE 2–3). A stage is one file
 * exporting a `Stage`; the ordered lists live in `stages/index.ts`. The runners (run-pipeline.ts:
 * the lock; stage-runner.ts: timing, the report, turning a throw into a failure, what a failure
 * means, the rollback, the terminal state) own everything cross-cutting, so a stage only does its
 * work and returns an outcome.
 */
import type { RunnerStage } from './stage-runner.js';
import type { DecodedEnvelope } from '../../contracts/envelope.js';
import type { HealthSpec, ServiceSpec } from '../../contracts/spec.js';
import type { DeployedService, EdgeState, SlotRecord } from '../runtimes/docker/slot-store.js';
import type { Slot } from '../runtimes/docker/slot.js';
import type { RunSettings } from './run-binding.js';
import type { FileMount } from '../envs/packed-files.js';
import type { PipelineHost } from './pipeline-host.js';

export interface PipelineRequest {
  readonly mode: 'deploy' | 'preflight';
  readonly slot: Slot;
  /** The envelope as received (unvalidated), or null when none was sent. */
  readonly envelope: unknown;
  /** Deploys from the control plane: the service as its Compose file says. Null for standalone deploys (the envelope is the whole request). */
  readonly spec: ServiceSpec | null;
  /** Dataset name → host path, for the spec's volume mounts. */
  readonly datasets: Readonly<Record<string, string>>;
  /** The env version a control-plane deploy belongs to. */
  readonly version: string | null;
  /**
   * Control-plane deploys: the siblings' `DENV_<S>_HOST/PORT` as this service sees them
   * (siblings.ts). They reach the container as agent-owned variables and fill the `${DENV_…}`
   * references of its environment.
   */
  readonly siblings?: Readonly<Record<string, string>>;
  /** Control-plane deploys: the service's binds, secrets and configs as host paths to mount read-only (packed-files.ts). */
  readonly fileMounts?: readonly FileMount[];
  /** Control-plane deploys: the project and env names an envelope's `scope` must match. */
  readonly names?: { readonly project?: string; readonly env?: string };
  /** A source deploy's image built on this host from the checkout (envs/image-build.ts): run instead of pulling. */
  readonly built?: BuiltImage;
}

/** An image `docker build` made on this host from a source deploy's checkout. */
export interface BuiltImage {
  /** `denv-build/<service>:<key>` */
  readonly tag: string;
  /** The image id (`sha256:…`, the digest of its config): what the container is created from. */
  readonly image_id: string;
  readonly commit: string;
  readonly key: string;
  readonly cached: boolean;
  readonly took_ms: number;
  /** On a host that requires signatures: the envelope its build key signed for it (envs/sign-built.ts). */
  readonly envelope?: unknown;
}

/** What admit settled: the image and everything the container will get. Holds secrets (`env`): never logged. */
export interface Target {
  readonly repository: string;
  /** null only for an unsigned deploy of a tag (hosts with require_signature off); pull resolves it. */
  digest: string | null;
  /** What `docker pull` is given: `repo@sha256:…`, or `repo:tag` when unsigned. */
  readonly ref: string;
  readonly env: Readonly<Record<string, string>>;
  readonly health: HealthSpec;
  readonly hostnames: readonly string[];
  readonly signed: boolean;
  /** What runs in the container (run-binding.ts): the envelope's `run` for signed deploys, else the Compose file's. */
  readonly run: RunSettings;
  /** Built on this host (source deploys): `digest` is its image id, and nothing is pulled. */
  readonly built?: BuiltImage;
}

/** The image reference a container is created from: `repository@digest`, or a built image's id. */
export function containerImageOf(target: Pick<Target, 'repository' | 'built'> & { readonly digest: string }): string {
  return target.built ? target.built.image_id : `${target.repository}@${target.digest}`;
}

/** Filled in by the stages as they run; the runner and the rollback read it. */
export interface RunState {
  /** The slot's last-good record when the pipeline started (read under the lock). */
  record: SlotRecord | null;
  decoded: DecodedEnvelope | null;
  target: Target | null;
  envHash: string | null;
  configHash: string | null;
  envFile: string | null;
  port: number | null;
  /** Set by recreate just before Compose runs: from here on a failure must roll back. */
  changed: boolean;
  deployed: DeployedService | null;
  edge: EdgeState;
  endpoint: string | null;
  /** Set when health fails: the container's last lines, for the caller's failure report. */
  logTail: string[] | null;
}

export interface StageContext {
  readonly host: PipelineHost;
  readonly req: PipelineRequest;
  readonly state: RunState;
}

export type { FailureMode, StageOutcome } from './stage-runner.js';
export { failed, ok, skipped } from './stage-runner.js';

/** An image service's stage: what it works on is the slot's pipeline context. */
export type Stage = RunnerStage<StageContext>;
