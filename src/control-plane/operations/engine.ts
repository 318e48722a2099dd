/**
 * The phase engine: one runner for every kind. A deployment is claimed with a lease (`FOR UPDATE
 * SKIP LOCKED`, so several control planes can share one database), then advanced phase by phase;
 * every transition is committed before the next phase starts. After a crash the lease expires (or,
 * on the embedded store, is cleared at start) and the deployment resumes at its first unfinished
 * phase — it is never cancelled.
 *
 * Failure rule (seed 000): when a phase fails, every later phase except `verdict` becomes
 * `skipped`, `error` becomes `<phase>: <message>`, and `verdict` still runs to record the outcome.
 *
 * A phase that ran into a database outage (DATABASE_UNAVAILABLE) neither failed nor succeeded: it
 * stays `running` and is run again once the database answers (the control plane could not do the
 * work: an *error*, retried, never the deployment's failure). The run pauses before it returns —
 * OUTAGE_RETRY_MS, doubled for each outage in a row, the lease still renewed — so the sweep after it
 * does not re-run the phase in a tight loop while the outage lasts. A finished deployment's commands the
 * agent never answered are closed (store/commands.ts), so a reconnecting host is not sent them.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { Clouds } from '../clouds/clouds.js';
import type { EnvTarget, Phase } from '../../contracts/domain.js';
import { DenvError, isDenvError, messageOf } from '../../contracts/errors.js';
import { killPoint } from '../../lib/kill-point.js';
import { linkedSignal } from '../../lib/linked-abort.js';
import type { Bus } from '../bus.js';
import type { AgentGateway } from '../gateway/agent-gateway.js';
import type { Db } from '../store/db.js';
import { abandonOpenCommands } from '../store/commands.js';
import { appendDeploymentEvent } from '../store/events.js';
import type { DeploymentRow, EnvRow } from '../store/rows.js';
import { runnablePhases, TARGET_KIND_DEFS } from './kinds.js';
import { dispatchCondition } from '../lifecycle/dispatch.js';
import { PhaseFailed, type EngineConfig, type PhaseContext, type PhaseResult } from './phase.js';
import { onDeploymentFinished } from './env-status.js';
import type { AwsAccess } from '../targets/ecs/aws-access.js';

export interface EngineOptions {
  readonly db: Db;
  readonly bus: Bus;
  readonly agents: AgentGateway;
  readonly clouds: Clouds;
  readonly aws: AwsAccess;
  readonly config: EngineConfig;
  /** Lease length; a crashed owner's deployments are resumed by others after this. */
  readonly leaseMs: number;
  /** This control plane's id (holds the leases it takes). */
  readonly owner: string;
  readonly sweepMs: number;
  readonly log: (line: string) => void;
  /** The pause after a database outage (default OUTAGE_RETRY_MS; tests shorten it). */
  readonly outageRetryMs?: { readonly first: number; readonly max: number };
}

const nowIso = () => new Date().toISOString();

/** The pause after a phase stopped by a database outage: doubled per outage in a row, capped. */
export const OUTAGE_RETRY_MS = { first: 1000, max: 30_000 } as const;

export class Engine {
  readonly owner: string;
  private readonly running = new Map<string, { abort: AbortController; done: Promise<void> }>();
  private timer: NodeJS.Timeout | null = null;
  /** The sweep in progress: one at a time, and `stop` waits for it. */
  private sweeping: Promise<void> | null = null;
  /** A sweep was asked for while one ran: its claim may have read before what the ask was for
   *  (a new deployment, a freed lease) was committed, so one more claim follows it. */
  private sweepAgain = false;
  /** Outages in a row, per deployment (OUTAGE_RETRY_MS); dropped when a phase ends without one. */
  private readonly outages = new Map<string, number>();
  private stopped = false;
  private readonly kick = () => void this.sweep();

  constructor(private readonly opts: EngineOptions) {
    this.owner = opts.owner;
  }

  /** Start claiming work. `takeOverAll`: this process is the only one (embedded store), so leases
   *  left by a killed predecessor are taken at once instead of after they expire. */
  async start(takeOverAll: boolean): Promise<void> {
    if (takeOverAll) await this.opts.db.query("update deployments set lease_owner = null, lease_until = null where status in ('pending', 'running')");
    this.opts.bus.on('kick', this.kick);
    this.timer = setInterval(this.kick, this.opts.sweepMs);
    void this.sweep();
  }

  /** Stop claiming, abort what runs here, and release its leases so a successor resumes at once. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    this.opts.bus.off('kick', this.kick);
    // A claim still in flight would commit leases after the release below, and nothing here
    // would run them: a successor would wait out the lease.
    await this.sweeping;
    for (const r of this.running.values()) r.abort.abort(new DenvError('INTERNAL', 'control plane stopping'));
    await Promise.allSettled([...this.running.values()].map((r) => r.done));
    await this.opts.db.query('update deployments set lease_owner = null, lease_until = null where lease_owner = $1', [this.owner]).catch(() => {});
  }

  /** Claim runnable deployments: pending (and, for lifecycle kinds, their env in the intent status
   *  that dispatches them) or running, lease free, and the oldest active one of their env, every
   *  phase of it one this control plane has for its kind on its env's target. One of an unknown
   *  kind or with an unknown phase (made by a version sharing the database, or left by one before a
   *  downgrade) waits, unleased, for a control plane that can run it: claimed, it would only throw
   *  in run() and, with the sweep after every run, be claimed again at once, holding the lease
   *  such a control plane needs. */
  async sweep(): Promise<void> {
    if (this.stopped) return;
    if (this.sweeping) {
      // Many asks during one claim make one more claim, not one each.
      this.sweepAgain = true;
      return this.sweeping;
    }
    this.sweeping = (async () => {
      try {
        do {
          this.sweepAgain = false;
          await this.claim();
        } while (this.sweepAgain && !this.stopped);
      } finally {
        // In the same step as the loop's last check: an ask arriving after it starts a new sweep.
        this.sweeping = null;
      }
    })();
    return this.sweeping;
  }

  private async claim(): Promise<void> {
    try {
      // One statement is its own transaction (its row locks last until it ends); wrapped in
      // begin/commit it held the embedded database's one connection for two more round trips.
      const claimed = await this.opts.db.query<{ id: string }>(
        `update deployments set lease_owner = $1, lease_until = now() + ($2 || ' milliseconds')::interval
           where id in (
             select d.id from deployments d join envs e on e.id = d.env
             where d.status in ('pending', 'running')
               -- Not the ones running here: their leases are renewed by their runs, and taking
               -- them again rewrote each row (its phases and evidence) at every claim and spent
               -- the limit on rows the loop below skips.
               and d.id <> all($4::text[])
               and (d.status = 'running' or ${dispatchCondition()})
               and (d.lease_until is null or d.lease_until < now() or d.lease_owner = $1)
               -- Every phase known here. The case guards jsonb_array_elements too: PostgreSQL may
               -- evaluate it before the typeof test, and a non-array would fail the whole claim.
               and jsonb_typeof(d.phases) = 'array'
               and not exists (
                 select 1 from jsonb_array_elements(case when jsonb_typeof(d.phases) = 'array' then d.phases else '[]' end) p
                 where (e.target || ':' || d.kind || ':' || (p->>'name') = any($3)) is not true)
               -- One active deployment per env: the first inserted (created_at ties within a
               -- transaction and a millisecond; seq does not).
               and not exists (select 1 from deployments older where older.env = d.env and older.status in ('pending', 'running') and older.seq < d.seq)
             order by d.seq
             limit 20
             for update of d skip locked)
           returning id`,
        [this.owner, String(this.opts.leaseMs), runnablePhases(), [...this.running.keys()]],
      );
      for (const { id } of claimed) {
        if (this.running.has(id) || this.stopped) continue;
        const abort = new AbortController();
        const done = this.run(id, abort.signal)
          .catch((err) => this.opts.log(`engine: deployment ${id}: ${messageOf(err)}`))
          .finally(() => {
            this.running.delete(id);
            if (!this.stopped) void this.sweep();
          });
        this.running.set(id, { abort, done });
      }
    } catch (err) {
      if (!this.stopped) this.opts.log(`engine: sweep: ${messageOf(err)}`);
    }
  }

  /** Wait until no deployment runs in this process (tests, shutdown). */
  async idle(): Promise<void> {
    while (this.running.size > 0) await Promise.allSettled([...this.running.values()].map((r) => r.done));
  }

  private async load(id: string): Promise<DeploymentRow> {
    const rows = await this.opts.db.query<DeploymentRow>('select * from deployments where id = $1', [id]);
    if (!rows[0]) throw new DenvError('NOT_FOUND', `deployment ${id} not found`);
    return rows[0];
  }

  /** Commit the deployment's phases, state and error, only while we still hold its lease. `begin`:
   *  the deployment starts here (pending → running, started_at set). */
  private async commit(dep: DeploymentRow, begin = false): Promise<void> {
    const status = begin ? 'running' : dep.status;
    const rows = await this.opts.db.query<{ id: string }>(
      `update deployments set phases = $3, state = $4, status = $5, error = $6,
         started_at = case when $7 then coalesce(started_at, now()) else started_at end,
         lease_until = now() + ($8 || ' milliseconds')::interval
       where id = $1 and lease_owner = $2 returning id`,
      [dep.id, this.owner, JSON.stringify(dep.phases), JSON.stringify(dep.state), status, dep.error, begin, String(this.opts.leaseMs)],
    );
    if (rows.length === 0) throw new DenvError('CONFLICT', `lost the lease on deployment ${dep.id}`);
    dep.status = status;
    this.announce(dep);
  }

  /** Tell the bus a committed change of `dep`: its id to everyone, what was stored to the metrics. */
  private announce(dep: DeploymentRow): void {
    this.opts.bus.emit('progress', { id: dep.id, kind: dep.kind, status: dep.status, phases: dep.phases });
    this.opts.bus.emit('deployment', dep.id);
  }

  private setPhase(dep: DeploymentRow, index: number, patch: Partial<Phase>): void {
    const phases = [...dep.phases];
    phases[index] = { ...phases[index]!, ...patch };
    dep.phases = phases;
  }

  /**
   * Advance one claimed deployment as far as it goes here, its lease renewed throughout. A database
   * outage met anywhere in it (a phase's work or the engine's own statements) ends the run after a
   * pause — OUTAGE_RETRY_MS, doubled per outage in a row, ended early by stop() or a lost lease —
   * and the sweep that follows the run claims the deployment again (its lease is still ours).
   */
  private async run(id: string, stopSignal: AbortSignal): Promise<void> {
    const { db } = this.opts;
    // A renewal that finds another owner in the row (this process stalled past its lease and
    // another control plane took the deployment) stops the phase at once rather than at its next
    // commit, so the two do not work side by side until then.
    const leaseLost = new AbortController();
    const lease = setInterval(() => {
      void db
        .query("update deployments set lease_until = now() + ($3 || ' milliseconds')::interval where id = $1 and lease_owner = $2 returning id", [id, this.owner, String(this.opts.leaseMs)])
        .then((rows) => rows.length === 0 && leaseLost.abort(new DenvError('CONFLICT', `lost the lease on deployment ${id}`)))
        .catch(() => {});
    }, Math.max(250, this.opts.leaseMs / 3));
    try {
      await this.advance(id, stopSignal, leaseLost.signal);
      this.outages.delete(id);
    } catch (err) {
      if (!isDenvError(err) || err.code !== 'DATABASE_UNAVAILABLE' || stopSignal.aborted || leaseLost.signal.aborted) {
        this.outages.delete(id);
        throw err;
      }
      const inARow = (this.outages.get(id) ?? 0) + 1;
      this.outages.set(id, inARow);
      const retry = this.opts.outageRetryMs ?? OUTAGE_RETRY_MS;
      const pauseMs = Math.min(retry.first * 2 ** (inARow - 1), retry.max);
      this.opts.log(`engine: deployment ${id}: ${err.message}; it runs again in ${pauseMs / 1000} s`);
      // Ended early (rejecting with AbortError, ignored) by stop() or a lost lease.
      const pause = linkedSignal([stopSignal, leaseLost.signal]);
      await sleep(pauseMs, undefined, { signal: pause.signal }).catch(() => {});
      pause.dispose();
    } finally {
      clearInterval(lease);
    }
  }

  /** The phases of `id` from its first unfinished one, each committed before the next (see the file's comment). */
  private async advance(id: string, stopSignal: AbortSignal, leaseLost: AbortSignal): Promise<void> {
    const { db, agents, config } = this.opts;
    const dep = await this.load(id);
    if (dep.status !== 'pending' && dep.status !== 'running') return;
    const target = (await db.query<{ target: EnvTarget }>('select target from envs where id = $1', [dep.env]))[0]?.target ?? 'host';
    const defs = TARGET_KIND_DEFS[target][dep.kind];
    if (!defs) throw new DenvError('INTERNAL', `no phases registered for kind ${dep.kind} on target ${target}`);
    if (dep.status === 'pending') {
      await this.commit(dep, true);
      await appendDeploymentEvent(db, dep, 'deployment.started', { kind: dep.kind, control_plane: this.owner });
    }
    const envOf = async () => (await db.query<EnvRow>('select * from envs where id = $1', [dep.env]))[0]!;
    for (let i = 0; i < dep.phases.length; i++) {
      const phase = dep.phases[i]!;
      if (phase.status === 'ok' || phase.status === 'skipped' || phase.status === 'failed') continue;
      if (stopSignal.aborted) return;
      const def = defs.find((d) => d.name === phase.name);
      if (!def) throw new DenvError('INTERNAL', `phase ${phase.name} of ${dep.kind} is not registered`);
      const failedPhase = dep.phases.find((p) => p.status === 'failed');
      if (failedPhase && phase.name !== 'verdict') {
        // Stored with verdict's start (verdict always comes last and always runs).
        this.setPhase(dep, i, { status: 'skipped', evidence: { reason: `${failedPhase.name} failed` } });
        continue;
      }
      // One write stores this phase's start and what the phases before it ended with (their
      // ends are kept in memory until now): nothing has run between the two, and a crash before
      // it re-runs the previous phase, whose commands the agents answer from their records.
      this.setPhase(dep, i, { status: 'running', started_at: phase.started_at ?? nowIso(), finished_at: null });
      await this.commit(dep);
      killPoint(`${dep.kind}.${phase.name}:start`);

      const phaseSignal = linkedSignal([stopSignal, leaseLost], config.commandTimeoutMs);
      const { signal } = phaseSignal;
      const ctx: PhaseContext = {
        deployment: dep,
        db,
        agents,
        clouds: this.opts.clouds,
        aws: this.opts.aws,
        config,
        signal,
        state: dep.state,
        failure: failedPhase ? { phase: failedPhase.name, message: dep.error?.slice(failedPhase.name.length + 2) ?? 'failed' } : null,
        env: envOf,
        call: (host, kind, payload, key = 'main') =>
          agents.call(host, kind, payload, { deployment: dep.id, key: `${phase.name}:${key}`, signal }),
      };
      let result: PhaseResult;
      try {
        result = await raceAbort(() => def.run(ctx), signal, () =>
          phaseSignal.timedOut ? new PhaseFailed(`timed out after ${config.commandTimeoutMs} ms`) : stopSignal.aborted ? stopSignal.reason : leaseLost.reason,
        );
        killPoint(`${dep.kind}.${phase.name}:end`);
      } catch (err) {
        if (stopSignal.aborted) return; // shutting down: the phase stays `running` and resumes later
        if (leaseLost.aborted) throw leaseLost.reason; // the deployment is another's now
        if (isDenvError(err) && err.code === 'DATABASE_UNAVAILABLE') {
          // Neither failed nor done: the phase stays `running` and runs again (run() pauses first).
          throw new DenvError('DATABASE_UNAVAILABLE', `${phase.name} stopped by a database outage`);
        }
        const message = messageOf(err);
        const evidence = err instanceof PhaseFailed ? { ...err.evidence, error: message } : { error: message, code: err instanceof DenvError ? err.code : 'INTERNAL' };
        this.setPhase(dep, i, { status: 'failed', evidence, finished_at: nowIso() });
        dep.error ??= `${phase.name}: ${message}`;
        if (phase.name === 'verdict') await this.finish(dep, 'failed');
        continue;
      } finally {
        phaseSignal.dispose();
      }
      this.outages.delete(id); // progress: a later outage counts from one again
      if (stopSignal.aborted) return;
      this.setPhase(dep, i, { status: result.status, evidence: result.evidence, finished_at: nowIso() });
      if (result.status === 'failed' && !dep.error) dep.error = `${phase.name}: ${String((result.evidence as { error?: string } | null)?.error ?? 'failed')}`;
      if (phase.name === 'verdict') await this.finish(dep, result.outcome ?? (dep.error ? 'failed' : 'succeeded'));
    }
  }

  /** The deployment's final status, its env's outcome status and the finished events, in one
   *  transaction: whoever reads the deployment as finished reads its env's outcome too. */
  private async finish(dep: DeploymentRow, status: DeploymentRow['status']): Promise<void> {
    await this.opts.db.tx(async (tx) => {
      // took_ms on the database's clock alone: started_at is its now(), so this process's clock
      // (which may differ) has no part in it.
      // Sent together (one round trip; the API's reads wait behind a transaction on the embedded
      // store): a lease found lost rolls the commands' update back with the rest.
      const [rows] = await Promise.all([
        tx.query<{ took_ms: number }>(
          `update deployments set status = $3, phases = $4, state = $5, error = $6, finished_at = now(), lease_owner = null, lease_until = null
           where id = $1 and lease_owner = $2
           returning round(extract(epoch from finished_at - started_at) * 1000)::float8 as took_ms`,
          [dep.id, this.owner, status, JSON.stringify(dep.phases), JSON.stringify(dep.state), dep.error],
        ),
        abandonOpenCommands(tx, dep.id, status),
      ]);
      if (!rows[0]) throw new DenvError('CONFLICT', `lost the lease on deployment ${dep.id}`);
      dep.status = status;
      // Sent together too: the env's outcome (and its event) before deployment.finished.
      await Promise.all([onDeploymentFinished(tx, dep), appendDeploymentEvent(tx, dep, 'deployment.finished', { status, took_ms: rows[0].took_ms, error: dep.error })]);
    });
    this.announce(dep);
  }
}

/** Start the work and resolve with it, or reject with `reason()` as soon as `signal` aborts (the
 *  work's own later rejection is then ignored). */
function raceAbort<T>(start: () => Promise<T>, signal: AbortSignal, reason: () => unknown): Promise<T> {
  if (signal.aborted) return Promise.reject(reason());
  const work = start();
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(reason());
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}
