/**
 * The control plane's own metrics in Prometheus text format at `GET /metrics` (DESIGN §10, §11):
 *
 *   denv_deployments{kind,status}                 gauge: deployments in the store, by kind and status
 *   denv_deployments_started_total{kind}          counter: deployments this replica began running
 *   denv_deployments_finished_total{kind,status}  counter: … and saw end (succeeded, failed, rolled_back)
 *   denv_phase_duration_seconds{kind,phase,status} histogram of phase durations
 *   denv_hosts{status}, denv_connected_hosts      gauges from the store
 *   denv_sweep_lag_seconds{sweep}                 seconds since each sweep last completed a run
 *   denv_sweep_duration_seconds{sweep}            histogram of sweep run durations
 *   denv_api_request_duration_seconds{method,route,status} histogram of API latency
 *   plus prom-client's process metrics (denv_process_*, denv_nodejs_*).
 *
 * One registry per control plane (tests run several in one process). Store-backed gauges are
 * read at scrape time. `/metrics` is unauthenticated, like `/healthz`: it holds counts and
 * timings, never names, ids or secrets.
 */
import type { FastifyInstance } from 'fastify';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { Bus } from '../bus.js';
import type { Db } from '../store/db.js';
import { DeploymentObserver } from './deployment-observer.js';
import { SweepStats } from './sweep-stats.js';

const PHASE_BUCKETS = [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 900];
const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

export interface ControlPlaneMetrics {
  readonly registry: Registry;
  readonly sweeps: SweepStats;
  /** Time every API request (not event streams) by its route template. */
  instrument(app: FastifyInstance): void;
  close(): void;
}

export function createControlPlaneMetrics(db: Db, bus: Bus): ControlPlaneMetrics {
  const registry = new Registry();
  const registers = [registry];
  collectDefaultMetrics({ register: registry, prefix: 'denv_' });

  new Gauge({
    name: 'denv_deployments', help: 'Deployments in the store, by kind and status', labelNames: ['kind', 'status'] as const, registers,
    async collect() {
      const rows = await db.query<{ kind: string; status: string; n: unknown }>('select kind, status, count(*) as n from deployments group by kind, status');
      this.reset();
      for (const r of rows) this.set({ kind: r.kind, status: r.status }, Number(r.n));
    },
  });
  const started = new Counter({ name: 'denv_deployments_started_total', help: 'Deployments this control plane began running', labelNames: ['kind'] as const, registers });
  const finished = new Counter({ name: 'denv_deployments_finished_total', help: 'Deployments this control plane saw end, by outcome', labelNames: ['kind', 'status'] as const, registers });
  const phases = new Histogram({ name: 'denv_phase_duration_seconds', help: 'Phase durations', labelNames: ['kind', 'phase', 'status'] as const, buckets: PHASE_BUCKETS, registers });
  new Gauge({
    name: 'denv_hosts', help: 'Hosts by status', labelNames: ['status'] as const, registers,
    async collect() {
      const rows = await db.query<{ status: string; n: unknown }>('select status, count(*) as n from hosts group by status');
      this.reset();
      for (const r of rows) this.set({ status: r.status }, Number(r.n));
    },
  });
  new Gauge({
    name: 'denv_connected_hosts', help: 'Hosts connected now (a replica holds their socket)', registers,
    async collect() {
      const rows = await db.query<{ n: unknown }>("select count(*) as n from hosts where status = 'connected' and connected_to is not null");
      this.set(Number(rows[0]?.n ?? 0));
    },
  });
  const sweeps = new SweepStats();
  new Gauge({
    name: 'denv_sweep_lag_seconds', help: 'Seconds since each background sweep last completed a run', labelNames: ['sweep'] as const, registers,
    collect() {
      for (const [name, s] of sweeps.entries()) this.set({ sweep: name }, s.lastFinishedAt === null ? -1 : (Date.now() - s.lastFinishedAt) / 1000);
    },
  });
  const sweepDuration = new Histogram({ name: 'denv_sweep_duration_seconds', help: 'Duration of background sweep runs', labelNames: ['sweep'] as const, buckets: LATENCY_BUCKETS, registers });
  sweeps.onRun((name, ms) => sweepDuration.observe({ sweep: name }, ms / 1000));
  const latency = new Histogram({ name: 'denv_api_request_duration_seconds', help: 'API request latency by route template', labelNames: ['method', 'route', 'status'] as const, buckets: LATENCY_BUCKETS, registers });

  const observer = new DeploymentObserver(bus, {
    started: (kind) => started.inc({ kind }),
    finished: (kind, status) => finished.inc({ kind, status }),
    phase: (kind, phase, status, seconds) => phases.observe({ kind, phase, status }, seconds),
  });

  return {
    registry,
    sweeps,
    instrument(app) {
      app.addHook('onResponse', async (req, reply) => {
        const route = req.routeOptions.url ?? 'unmatched';
        if (route.endsWith('/stream') || route === '/agent/ws') return; // long-lived by design
        latency.observe({ method: req.method, route, status: String(reply.statusCode) }, reply.elapsedTime / 1000);
      });
      app.get('/metrics', async (_req, reply) => reply.header('content-type', registry.contentType).send(await registry.metrics()));
    },
    close() {
      observer.close();
    },
  };
}
