/**
 * The agent's telemetry beside live status (DESIGN §10): log ring buffers and the incidents found
 * in them, metric samples with the uptime probe, and exit reasons. Owns two timers: a fast one
 * (`LOG_POLL_MS`) that reads new log lines and sends due incident reports, and the sampling one,
 * whose period the control plane sets in `welcome` (`metrics_ms`). What cannot be sent while the
 * link is down waits in the bounded buffers and goes with the next tick.
 */
import { randomUUID } from 'node:crypto';
import type { AgentMessage } from '../../contracts/protocol.js';
import type { PipelineHost } from '../pipeline/pipeline-host.js';
import type { ProcessRuntime } from '../runtimes/process/process-runtime.js';
import { DockerLogs, DockerSamples } from './docker-workloads.js';
import type { ExitReasons } from './exit-reasons.js';
import { IncidentDetector } from './incident-detector.js';
import { LogCollector } from './log-collector.js';
import { MetricsSampler } from './metrics-sampler.js';

export const DEFAULT_METRICS_MS = 5000;
const LOG_POLL_MS = 500;

export interface TelemetrySettings {
  readonly metricsMs?: number;
  readonly incidentThreshold?: number;
}

export class AgentTelemetry {
  readonly incidents = new IncidentDetector({ epoch: randomUUID() });
  readonly logs: LogCollector;
  readonly metrics: MetricsSampler;
  private fast: NodeJS.Timeout | null = null;
  private sampling: NodeJS.Timeout | null = null;

  /** `pipeline`: the image services' host; with it their logs and samples join the process services' (docker-workloads.ts). */
  constructor(runtime: ProcessRuntime, readonly exitReasons: ExitReasons, private readonly send: (msg: AgentMessage) => boolean, log: (line: string) => void, pipeline?: PipelineHost) {
    const docker = pipeline?.docker ? pipeline : null;
    this.logs = new LogCollector(runtime, this.incidents, (env, lines) => send({ type: 'logs', env, lines }), log, docker ? new DockerLogs(docker, this.incidents) : null);
    this.metrics = new MetricsSampler(runtime, exitReasons, (env, samples) => send({ type: 'metrics', env, samples }), log, docker ? new DockerSamples(docker) : null);
  }

  /** (Re)start with the control plane's settings (after each welcome). */
  start(settings: TelemetrySettings = {}): void {
    if (settings.incidentThreshold !== undefined) this.incidents.threshold = Math.max(1, settings.incidentThreshold);
    this.stopTimers();
    this.fast = setInterval(() => void this.fastTick(), LOG_POLL_MS);
    this.fast.unref();
    const every = Math.max(100, settings.metricsMs ?? DEFAULT_METRICS_MS);
    this.sampling = setInterval(() => void this.metrics.tick(), every);
    this.sampling.unref();
    void this.metrics.tick();
  }

  close(): void {
    this.stopTimers();
  }

  private async fastTick(): Promise<void> {
    await this.logs.poll();
    for (const report of this.incidents.due()) {
      if (!this.send({ type: 'incident', ...report })) this.incidents.unsent(report);
    }
  }

  private stopTimers(): void {
    if (this.fast) clearInterval(this.fast);
    if (this.sampling) clearInterval(this.sampling);
    this.fast = this.sampling = null;
  }
}
