/**
 * Telemetry of image services (seed 002, DESIGN §10), the docker counterpart of what live-status.ts,
 * log-collector.ts and metrics-sampler.ts do for process services. A docker workload is one slot
 * of an env (scope = env id; `standalone` slots belong to no env and are not reported) that has a
 * last-good record (`SlotStore`); its container is the one Compose runs for the slot's project.
 *
 *   live status  `dockerLiveWorkloads`: desired 1 (0 when the slot was stopped: no container), ready
 *                from the recorded health check probed once now (`healthyNow`), image, container
 *                id and host pid, docker's restart count, the last exit (OOMKilled / exit code)
 *   logs         `DockerLogs`: per workload a ring of the last LOG_RING_LINES lines, read through the
 *                Engine API (`logs?timestamps=1&since=…&tail=200`); a line's `offset` is its docker
 *                timestamp in microseconds, stable across polls and agent restarts
 *   metrics      `DockerSamples`: CPU and memory from the container's cgroup (container-cgroup.ts),
 *                and the uptime probe of its HTTP health path
 *
 * Bounded: one ring of LOG_RING_LINES per workload, dropped `GONE_KEEP_MS` after its slot is gone;
 * one previous CPU reading per workload.
 */
import { LOG_RING_LINES, type LogLine, type MetricSample } from '../../contracts/telemetry.js';
import type { LiveWorkload } from '../../contracts/protocol.js';
import type { PipelineHost } from '../pipeline/pipeline-host.js';
import { healthyNow } from '../runtimes/docker/container-health.js';
import type { DeployedService, SlotRecord } from '../runtimes/docker/slot-store.js';
import type { ContainerState } from '../runtimes/docker/engine-api.js';
import { STANDALONE_SCOPE } from '../runtimes/docker/slot.js';
import { probeAvailability } from './availability.js';
import { containerUsage, cpuPercentFromNanos } from './container-cgroup.js';
import { containerExit, containerLogLines, inspectContainer, type ContainerInspect } from './docker-engine-reads.js';
import type { IncidentDetector } from './incident-detector.js';
import { RingBuffer } from './ring-buffer.js';

const GONE_KEEP_MS = 10 * 60_000;

/** A live-status workload of an image service: `LiveWorkload` plus the container's id (the wire schema keeps extra keys). */
export interface DockerLiveWorkload extends LiveWorkload {
  readonly container_id: string | null;
}

/** One slot of an env with what it runs now (`deploy`) and its container (null: none, e.g. stopped). */
export interface DockerSlotNow {
  readonly env: string;
  readonly service: string;
  readonly record: SlotRecord;
  readonly deploy: DeployedService;
  readonly container: ContainerInspect | null;
  /** The engine's summary of the same container (health status, for `healthyNow`). */
  readonly brief: ContainerState | null;
}

/** Envs (scopes) with at least one recorded image service, standalone excluded. */
export async function dockerEnvs(host: PipelineHost): Promise<string[]> {
  return [...new Set((await host.slots.list()).filter((r) => r.scope !== STANDALONE_SCOPE && r.current).map((r) => r.scope))];
}

/** The slots of `env` (every env when undefined) with their containers, inspected now. */
export async function dockerSlotsNow(host: PipelineHost, env?: string): Promise<DockerSlotNow[]> {
  const docker = host.docker;
  if (!docker) return [];
  const records = (await host.slots.list(env)).filter((r) => r.scope !== STANDALONE_SCOPE && r.current);
  return Promise.all(
    records.map(async (record) => {
      const c = await docker.container(record.project, record.service);
      const container = c ? await inspectContainer(docker.engine.socketPath, c.id) : null;
      return { env: record.scope, service: record.service, record, deploy: record.current!, container, brief: c };
    }),
  );
}

/** Live status of `env`'s image services (empty without a docker runtime). */
export async function dockerLiveWorkloads(host: PipelineHost, env: string): Promise<DockerLiveWorkload[]> {
  const out: DockerLiveWorkload[] = [];
  for (const s of await dockerSlotsNow(host, env)) {
    const c = s.container;
    const state = !c ? 'stopped' : c.paused ? 'paused' : c.restarting ? 'restarting' : c.running ? 'running' : 'exited';
    let probe = { ok: false, detail: c ? `container is ${c.status}` : 'no container (stopped)' };
    if (c && s.brief && state === 'running') probe = await healthyNow(s.deploy.health, { docker: host.docker!, project: s.record.project, service: s.service, port: s.deploy.port }, s.brief);
    const exit = c ? containerExit(c) : null;
    out.push({
      service: s.service,
      version: s.deploy.version ?? 'unknown',
      // A stopped env's slots keep their records with no container: scaled to zero, not failing.
      desired: c ? 1 : 0,
      ready: probe.ok ? 1 : 0,
      detail: probe.detail,
      runtime: 'docker',
      command: null,
      image: s.deploy.image,
      pid: c && c.pid > 0 ? c.pid : null,
      container_id: c?.id ?? null,
      port: s.deploy.port,
      restarts: c?.restartCount ?? 0,
      last_exit: exit?.reason ?? null,
      last_exit_at: exit?.at ?? null,
      state,
      started_at: c?.startedAt ?? null,
    });
  }
  return out;
}

interface LogWorkload {
  readonly env: string;
  readonly service: string;
  readonly ring: RingBuffer<LogLine>;
  /** The container last read. */
  container: string | null;
  /** Offset (µs timestamp) of the newest line taken. */
  upTo: number;
  goneSince: number | null;
}

/**
 * Recent log lines of every image service. `poll()` (the log collector's fast timer) reads what
 * each container printed since the last poll, feeds it to the incident detector and returns it
 * per env, for the collector to push to watchers. Lines a container printed before this agent
 * started (the first poll's) fill the ring but are neither counted nor returned, as for processes.
 */
export class DockerLogs {
  private readonly workloads = new Map<string, LogWorkload>();
  private synced = false;

  constructor(
    private readonly host: PipelineHost,
    private readonly incidents: IncidentDetector,
  ) {}

  /** New lines per env since the last poll. */
  async poll(): Promise<Map<string, LogLine[]>> {
    const fresh = new Map<string, LogLine[]>();
    if (!this.host.docker) return fresh;
    const history = !this.synced;
    const now = Date.now();
    const seen = new Set<string>();
    for (const s of await dockerSlotsNow(this.host)) {
      const key = `${s.env}/${s.service}`;
      seen.add(key);
      let w = this.workloads.get(key);
      if (!w) this.workloads.set(key, (w = { env: s.env, service: s.service, ring: new RingBuffer(LOG_RING_LINES), container: null, upTo: -1, goneSince: null }));
      w.goneSince = null;
      const c = s.container;
      if (!c) continue;
      // A container replacing another (a deploy, a rollback) printed after it: `upTo` still holds.
      w.container = c.id;
      const since = w.upTo > 0 ? Math.floor(w.upTo / 1e6) : 0;
      const version = s.deploy.version ?? 'unknown';
      for (const l of await containerLogLines(this.host.docker.engine.socketPath, c.id, { tty: c.tty, sinceSec: since, tail: LOG_RING_LINES })) {
        if (l.micros <= w.upTo) continue;
        w.upTo = l.micros;
        const line: LogLine = { service: s.service, version, offset: l.micros, at: l.at, text: l.text };
        w.ring.push(line);
        if (history) continue;
        this.incidents.observe(s.env, s.service, l.text, l.at);
        const list = fresh.get(s.env) ?? [];
        list.push(line);
        fresh.set(s.env, list);
      }
    }
    this.synced = true;
    for (const [key, w] of this.workloads) {
      if (seen.has(key)) continue;
      w.goneSince ??= now;
      if (now - w.goneSince > GONE_KEEP_MS) this.workloads.delete(key);
    }
    for (const [env, lines] of fresh) fresh.set(env, lines.slice(-LOG_RING_LINES));
    return fresh;
  }

  /** The newest `lines` of each image service of `env`, oldest first per workload (call after `poll`). */
  snapshot(env: string, lines: number): LogLine[] {
    const out: LogLine[] = [];
    for (const w of this.workloads.values()) if (w.env === env) out.push(...w.ring.last(lines));
    return out;
  }

  /** Lines held for one workload (tests check the bound). */
  held(env: string, service: string): number {
    return this.workloads.get(`${env}/${service}`)?.ring.size ?? 0;
  }
}

/** CPU and memory samples of every running image service; keeps one previous CPU reading per workload. */
export class DockerSamples {
  private readonly prev = new Map<string, { container: string; nanos: number; at: number }>();

  constructor(private readonly host: PipelineHost) {}

  /** One sample per running container, with its env. */
  async sample(): Promise<{ env: string; sample: MetricSample }[]> {
    if (!this.host.docker) return [];
    const out: { env: string; sample: MetricSample }[] = [];
    const live = new Set<string>();
    for (const s of await dockerSlotsNow(this.host)) {
      const c = s.container;
      if (!c || !c.running || c.pid <= 0) continue;
      const key = `${s.env}/${s.service}`;
      live.add(key);
      const now = Date.now();
      const u = await containerUsage(c.pid);
      const p = this.prev.get(key);
      const cpu = u.cpuNanos !== null && p && p.container === c.id ? cpuPercentFromNanos(p.nanos, u.cpuNanos, now - p.at) : null;
      if (u.cpuNanos !== null) this.prev.set(key, { container: c.id, nanos: u.cpuNanos, at: now });
      // Availability: the HTTP health path on the slot's host port, judged only while running unpaused.
      const h = s.deploy.health;
      const probe = h.kind === 'http' && !c.paused ? await probeAvailability(h.port ?? s.deploy.port, h.path) : null;
      out.push({
        env: s.env,
        sample: {
          service: s.service,
          version: s.deploy.version ?? 'unknown',
          at: new Date(now).toISOString(),
          cpu_pct: cpu,
          mem_bytes: u.memBytes,
          mem_limit_bytes: u.memLimitBytes,
          up: probe ? probe.up : null,
          latency_ms: probe ? probe.latency_ms : null,
          detail: probe ? probe.detail : null,
        },
      });
    }
    for (const key of this.prev.keys()) if (!live.has(key)) this.prev.delete(key);
    return out;
  }
}
