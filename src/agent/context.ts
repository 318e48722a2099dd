/**
 * What every command handler works with. Built once by `startAgent`; tests build their own with
 * real parts on a temp data dir.
 */
import type { DatasetDriver } from './datasets/dataset-driver.js';
import type { ServiceIdentities } from './identity/service-identities.js';
import type { KeyedMutex } from '../lib/mutex.js';
import type { PortRegistry } from './ports.js';
import type { ProcessRuntime } from './runtimes/process/process-runtime.js';
import type { ReleasedEnvs } from './released-envs.js';
import type { PipelineHost } from './pipeline/pipeline-host.js';
import type { AgentTelemetry } from './telemetry/agent-telemetry.js';

export interface AgentContext {
  readonly dataDir: string;
  /** The control plane's URL; env.create probes egress to it. */
  readonly control: string;
  /** The address other machines reach this host's services at (`--address`); env endpoints use it. Default 127.0.0.1. */
  readonly address?: string;
  readonly runtime: ProcessRuntime;
  /** Root of what services may reach (env work dirs, verify copies): traversable, unlike `dataDir` (0700). */
  readonly workloads: string;
  /** Who each process service runs as, under the host's policy (identity/). */
  readonly identities: ServiceIdentities;
  readonly ports: PortRegistry;
  readonly datasets: DatasetDriver;
  /** One lock per env: create, rollback, snapshot and destroy of an env never interleave. */
  readonly envLocks: KeyedMutex;
  /** Envs separated from denv: every command naming one is refused. */
  readonly released: ReleasedEnvs;
  /** The image-service deploy pipeline (seed 004): host config, docker runtime, stores. Absent in contexts built without one (tests of the process runtime). */
  readonly pipeline?: PipelineHost;
  /** Log ring buffers, metric samples, incidents (telemetry/). Absent in contexts built without one (tests). */
  readonly telemetry?: AgentTelemetry;
  readonly log: (line: string) => void;
  /** Within a command: send lines a service's build printed to the control plane as they come (command-output.ts). */
  readonly output?: (service: string, lines: readonly string[]) => void;
}
