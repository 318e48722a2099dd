/**
 * What a phase is. A phase is one file exporting a `PhaseDef`; each kind lists its phases once,
 * in order (`kinds.ts`). The engine owns everything cross-cutting — ordering, timing, the timeout,
 * committing status and evidence, the failure rule, events — so a phase only does its work and
 * returns `{status, evidence}` or throws. Phases must be safe to re-run: after a crash the phase
 * that was `running` runs again (agent commands are idempotent per phase and key).
 */
import type { Clouds } from '../clouds/clouds.js';
import type { DeploymentStatus, Evidence } from '../../contracts/domain.js';
import type { Commands, CommandKind } from '../../contracts/protocol.js';
import type { Db } from '../store/db.js';
import type { DeploymentRow, EnvRow } from '../store/rows.js';
import type { AgentGateway } from '../gateway/agent-gateway.js';
import type { AwsAccess } from '../targets/ecs/aws-access.js';

export interface EngineConfig {
  /** Bound on every phase (default 15 min). */
  readonly commandTimeoutMs: number;
  /** How long a phase waits for a placed host to (re)connect before failing. */
  readonly agentWaitMs: number;
  /** file:// repositories may be linked (source deploys send it to the host with the checkout). */
  readonly allowFileRepos: boolean;
  /** How long `join` waits for a provisioned machine's agent to connect (seed 000: 6 minutes). */
  readonly joinTimeoutMs: number;
}

export interface PhaseContext {
  readonly deployment: DeploymentRow;
  readonly db: Db;
  readonly agents: AgentGateway;
  /** The team's clouds: provision makes a machine through one. */
  readonly clouds: Clouds;
  /** How the control plane acts in AWS accounts (aws_ecs envs). */
  readonly aws: AwsAccess;
  readonly config: EngineConfig;
  /** Aborted when the phase's time is up or the control plane stops. */
  readonly signal: AbortSignal;
  /** Resumable state shared by the phases of one deployment; committed with each phase. */
  readonly state: Record<string, unknown>;
  /** Set for `verdict` when an earlier phase failed. */
  readonly failure: { readonly phase: string; readonly message: string } | null;
  /** The deployment's env as it is now. */
  env(): Promise<EnvRow>;
  /** Send a command to the env's host (idempotent per phase and `key`) and wait for the answer. */
  call<K extends CommandKind>(host: string, kind: K, payload: Commands[K]['payload'], key?: string): Promise<Commands[K]['result']>;
}

export interface PhaseResult {
  readonly status: 'ok' | 'skipped' | 'failed';
  readonly evidence: Evidence;
  /** verdict only: the deployment's final status. */
  readonly outcome?: DeploymentStatus;
}

export interface PhaseDef {
  readonly name: string;
  run(ctx: PhaseContext): Promise<PhaseResult>;
}

/** A phase whose work ran and failed (as opposed to an unexpected error); carries evidence. */
export class PhaseFailed extends Error {
  constructor(message: string, readonly evidence: Evidence = null) {
    super(message);
    this.name = 'PhaseFailed';
  }
}

export const ok = (evidence: Evidence): PhaseResult => ({ status: 'ok', evidence });
export const skipped = (evidence: Evidence): PhaseResult => ({ status: 'skipped', evidence });

/** A phase with nothing to do on some target: always skipped, with the reason. */
export const skippedPhase = (name: string, reason: string): PhaseDef => ({ name, run: async () => skipped({ reason }) });
