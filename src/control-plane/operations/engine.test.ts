/**
 * The phase engine on its own, in this process: the real Engine, Bus and AgentGateway on a real
 * store (embedded PGlite and the PostgreSQL server), running phases this file registers under
 * kinds of its own (TARGET_KIND_DEFS is the engine's only registry), so each test decides what a
 * phase does and when it ends. What is asserted is what the engine leaves behind: the deployment
 * rows (status, phases, error, lease), the deployment's events and the engine's log lines —
 * around shutdown, take-over, lease renewal and loss, database outages, failures and timeouts.
 *
 * An engine here sweeps on its own only once a minute, so every sweep is one the test caused
 * (start, sweep(), or the sweep that follows a finished run): what is claimed when is decided by
 * the test, not by a timer. Each test gets a fresh store: start(true) takes over every
 * unfinished deployment in the database.
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Phase } from '../../contracts/domain.js';
import { DenvError } from '../../contracts/errors.js';
import { createBus, type Bus } from '../bus.js';
import { Clouds } from '../clouds/clouds.js';
import { AgentGateway } from '../gateway/agent-gateway.js';
import { localNotifier } from '../store/notifier.js';
import { openStore, type OpenedStore } from '../store/open-store.js';
import { AwsAccess } from '../targets/ecs/aws-access.js';
import { Engine } from './engine.js';
import { TARGET_KIND_DEFS } from './kinds.js';
import { ok, PhaseFailed, type PhaseContext, type PhaseDef, type PhaseResult } from './phase.js';
import { waitFor } from '../../../test/helpers/api.js';
import { freshDataDir, storeOptions, STORES } from '../../../test/helpers/stores.js';

/** A phase of a test kind, with the context of each of its runs, in order. */
interface TestPhase {
  readonly def: PhaseDef;
  readonly runs: PhaseContext[];
}

/** A phase that answers what `answer` says (by default ok, no evidence); `run` counts from 1. */
function phase(name: string, answer: (run: number, ctx: PhaseContext) => Promise<PhaseResult> | PhaseResult = () => ok(null)): TestPhase {
  const runs: PhaseContext[] = [];
  return {
    runs,
    def: {
      name,
      run: async (ctx) => {
        runs.push(ctx);
        return answer(runs.length, ctx);
      },
    },
  };
}

/** Resolves once `p` has started its `n`-th run. */
const started = (p: TestPhase, n = 1) => waitFor(() => p.runs.length >= n, 20_000, `${p.def.name} to start run ${n}`);

/** What a held phase waits for: `opened` resolves when the test calls `open()`. */
function gate(): { opened: Promise<void>; open: () => void } {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { opened, open };
}

/** The test kinds, on the host target; removed when the file ends. */
const HOST_DEFS = TARGET_KIND_DEFS.host as Record<string, readonly PhaseDef[]>;
let kinds = 0;
function testKind(phases: readonly TestPhase[]): string {
  const kind = `test-kind-${++kinds}`;
  HOST_DEFS[kind] = phases.map((p) => p.def);
  return kind;
}
afterAll(() => {
  for (const kind of Object.keys(HOST_DEFS)) if (kind.startsWith('test-kind-')) delete HOST_DEFS[kind];
});

interface Row {
  readonly status: string;
  readonly error: string | null;
  readonly phases: Phase[];
  readonly lease_owner: string | null;
  readonly lease_until: unknown;
  readonly started_at: unknown;
  readonly finished_at: unknown;
}
const ms = (t: unknown) => new Date(t as string).getTime();
const statuses = (r: Row) => r.phases.map((p) => [p.name, p.status]);
const outcomes = (r: Row) => r.phases.map((p) => [p.name, p.status, p.evidence]);

describe.each(STORES)('phase engine on %s', (storeKind) => {
  let store: OpenedStore;
  let dataDir: string;
  let engines: Engine[] = [];
  let deployments = 0;

  // One store per store kind (opening one costs ~0.7 s on PGlite), emptied after each test: what a
  // test leaves pending or running would otherwise be claimed by the next test's engines.
  beforeAll(async () => {
    dataDir = freshDataDir();
    store = await openStore(await storeOptions(storeKind, dataDir));
  });
  afterAll(async () => {
    await store?.close();
  });
  beforeEach(async () => {
    await store.db.query("insert into teams (id, name) values ('team_e', 'e')");
    await store.db.query("insert into projects (id, team, name) values ('prj_e', 'team_e', 'shop')");
  });
  afterEach(async () => {
    for (const e of engines) await e.stop();
    engines = [];
    const tables = await store.db.query<{ name: string }>("select table_name as name from information_schema.tables where table_schema = 'public' and table_type = 'BASE TABLE' and table_name <> 'schema_migrations'");
    await store.db.exec(`truncate ${tables.map((t) => `"${t.name}"`).join(', ')} cascade`);
  });

  /** An engine of its own (owner, bus, gateway) on the test's store; `logs` gets its log lines. */
  /** The outage pause these tests wait through: 0.1 s, 0.2 s, then 0.3 s at most (OUTAGE_RETRY_MS is 1 s to 30 s). */
  const OUTAGE_PAUSE = { first: 100, max: 300 };

  function engine(o: { leaseMs?: number; commandTimeoutMs?: number; outageRetryMs?: { first: number; max: number } } = {}): { engine: Engine; bus: Bus; logs: string[] } {
    const { db } = store;
    const logs: string[] = [];
    const log = (line: string) => void logs.push(line);
    const bus = createBus();
    const owner = `cp_test${engines.length + 1}`;
    const agents = new AgentGateway({ db, bus, notifier: localNotifier(bus), replica: owner, heartbeatMs: 30_000, liveStatusMs: 10_000, resendAfterMs: 600_000, log });
    const noServer = () => {
      throw new Error('no HTTP server in this test');
    };
    const clouds = new Clouds({ db, dataDir, log, http: noServer, hostChanged: async () => {} });
    const e = new Engine({
      db, bus, agents, clouds, log, owner,
      aws: new AwsAccess(null),
      config: { commandTimeoutMs: o.commandTimeoutMs ?? 60_000, agentWaitMs: 1000, allowFileRepos: false, joinTimeoutMs: 1000 },
      leaseMs: o.leaseMs ?? 30_000,
      sweepMs: 60_000,
      outageRetryMs: o.outageRetryMs ?? OUTAGE_PAUSE,
    });
    engines.push(e);
    return { engine: e, bus, logs };
  }

  /** A pending deployment of `kind`, alone in an env of its own. `leftRunningBy`: instead, one that
   *  owner was running (its first phase `running`) when it went away, its lease 10 minutes from expiring. */
  async function deployment(kind: string, o: { leftRunningBy?: string } = {}): Promise<string> {
    const n = ++deployments;
    const [env, id] = [`env_${n}`, `dep_${n}`];
    await store.db.query("insert into envs (id, team, project, name, stage, status) values ($1, 'team_e', 'prj_e', $2, 'preview', 'running')", [env, `e${n}`]);
    const phases = HOST_DEFS[kind]!.map((d, i) => ({
      name: d.name,
      status: o.leftRunningBy && i === 0 ? 'running' : 'pending',
      evidence: null,
      started_at: o.leftRunningBy && i === 0 ? new Date().toISOString() : null,
      finished_at: null,
    }));
    await store.db.query("insert into deployments (id, team, env, kind, status, phases) values ($1, 'team_e', $2, $3, 'pending', $4)", [id, env, kind, JSON.stringify(phases)]);
    if (o.leftRunningBy) {
      await store.db.query("update deployments set status = 'running', started_at = now(), lease_owner = $2, lease_until = now() + interval '10 minutes' where id = $1", [id, o.leftRunningBy]);
    }
    return id;
  }

  const row = async (id: string): Promise<Row> =>
    (await store.db.query<Row>('select status, error, phases, lease_owner, lease_until, started_at, finished_at from deployments where id = $1', [id]))[0]!;
  const events = async (id: string) =>
    (await store.db.query<{ type: string; data: Record<string, unknown> }>('select type, data from events where subject = $1 order by id', [`dep:${id}`])).map((e) => ({ type: e.type, data: e.data }));
  const finished = (id: string) =>
    waitFor(async () => {
      const r = await row(id);
      return ['succeeded', 'failed', 'rolled_back'].includes(r.status) ? r : undefined;
    }, 20_000, `deployment ${id} to finish`);

  it('stop() aborts what runs and leaves its phase running, releases the lease so a successor resumes at once, and claims nothing more', async () => {
    const release = gate();
    const work = phase('work');
    // Held in verdict: a verdict that fails ends the deployment at once, so an abort taken for a
    // failure would show in the row.
    const verdict = phase('verdict', async () => {
      await release.opened;
      return ok(null);
    });
    const kind = testKind([work, verdict]);
    const id = await deployment(kind);
    const { engine: first, bus } = engine();
    await first.start(false);
    await started(verdict);
    expect((await row(id)).lease_owner).toBe(first.owner);

    await first.stop();
    expect(verdict.runs[0]!.signal.aborted).toBe(true);
    const stopped = await row(id);
    expect(stopped).toMatchObject({ status: 'running', error: null, lease_owner: null, lease_until: null, finished_at: null });
    expect(outcomes(stopped)).toEqual([['work', 'ok', null], ['verdict', 'running', null]]);

    // Neither a kick nor a sweep makes a stopped engine claim the work that arrives.
    const later = await deployment(kind);
    bus.emit('kick');
    await first.sweep();
    expect(await row(later)).toMatchObject({ status: 'pending', lease_owner: null, lease_until: null });
    expect(work.runs).toHaveLength(1);

    // A successor that waits out no lease (start(false)) claims both in its first sweep; the
    // stopped one resumes at verdict, the phase that was running.
    release.open();
    const { engine: successor } = engine();
    await successor.start(false);
    const resumed = await finished(id);
    expect(resumed).toMatchObject({ status: 'succeeded', error: null, lease_owner: null, lease_until: null });
    expect(statuses(resumed)).toEqual([['work', 'ok'], ['verdict', 'ok']]);
    expect((await finished(later)).status).toBe('succeeded');
    expect(work.runs.map((r) => r.deployment.id)).toEqual([id, later]);
    expect(verdict.runs.filter((r) => r.deployment.id === id)).toHaveLength(2);
    expect((await events(id)).map((e) => e.type)).toEqual(['deployment.started', 'deployment.finished']);
  });

  it('a deployment queued behind another of its env is claimed as soon as that one ends (the sweep after each run), not at the next timed sweep', async () => {
    const work = phase('work');
    const kind = testKind([work, phase('verdict')]);
    const first = await deployment(kind);
    const queued = `dep_queued_${deployments}`;
    await store.db.query("insert into deployments (id, team, env, kind, status, phases) select $1, team, env, kind, 'pending', phases from deployments where id = $2", [queued, first]);
    const { engine: e } = engine();
    await e.start(false);
    // This engine's timed sweep is a minute away: only the sweep after the first run claims `queued` within 20 s.
    for (const id of [first, queued]) expect(await finished(id)).toMatchObject({ status: 'succeeded' });
    expect(work.runs.map((r) => r.deployment.id)).toEqual([first, queued]);
  });

  it('a claim passes over what already runs here: with a full claim (20) running, a sweep claims the 21st at once', async () => {
    const release = gate();
    const work = phase('work', async () => {
      await release.opened;
      return ok(null);
    });
    const kind = testKind([work, phase('verdict')]);
    const ids: string[] = [];
    for (let i = 0; i < 21; i++) ids.push(await deployment(kind));
    const { engine: e } = engine();
    await e.start(false);
    await started(work, 20); // the first claim takes 20 (its limit)
    await e.sweep(); // the timed sweep is a minute away
    await started(work, 21);
    expect(new Set(work.runs.map((r) => r.deployment.id))).toEqual(new Set(ids));
    release.open();
    for (const id of ids) expect(await finished(id)).toMatchObject({ status: 'succeeded' });
  });

  it('two deployments of one env created in the same millisecond run one at a time, the first inserted first', async () => {
    const release = gate();
    const work = phase('work', async (run) => {
      if (run === 1) await release.opened;
      return ok(null);
    });
    const kind = testKind([work, phase('verdict')]);
    const first = await deployment(kind);
    const twin = `dep_0twin_${deployments}`; // sorts before 'dep_<n>': order by id would run it first
    await store.db.query("insert into deployments (id, team, env, kind, status, phases, created_at) select $1, team, env, kind, 'pending', phases, created_at from deployments where id = $2", [twin, first]);
    const { engine: e } = engine();
    await e.start(false);
    await started(work);
    await e.sweep(); // a claim while the first runs: the twin must wait for it
    expect(work.runs.map((r) => r.deployment.id)).toEqual([first]);
    expect(await row(twin)).toMatchObject({ status: 'pending', lease_owner: null });
    release.open();
    for (const id of [first, twin]) expect(await finished(id)).toMatchObject({ status: 'succeeded' });
    expect(work.runs.map((r) => r.deployment.id)).toEqual([first, twin]);
  });

  it('stop() during a sweep releases what that sweep claims: nothing stays leased to a stopped engine', async () => {
    const work = phase('work');
    const kind = testKind([work, phase('verdict')]);
    const { engine: e } = engine();
    await e.start(false);
    const ids = [await deployment(kind), await deployment(kind)];
    const sweeping = e.sweep(); // its claim is in flight while stop() runs
    await e.stop();
    await sweeping;
    for (const id of ids) expect(await row(id)).toMatchObject({ status: 'pending', lease_owner: null, lease_until: null });
    expect(work.runs).toHaveLength(0);
  });

  it("start(true) takes over at once what another owner left running under an unexpired lease; start(false) leaves it to that owner", async () => {
    const work = phase('work');
    const kind = testKind([work, phase('verdict')]);
    const orphan = await deployment(kind, { leftRunningBy: 'cp_gone' });
    const fresh = await deployment(kind);

    const { engine: polite } = engine();
    await polite.start(false);
    // `fresh` finishing proves a sweep ran, and its claim passed over `orphan`.
    await finished(fresh);
    await polite.stop();
    expect(await row(orphan)).toMatchObject({ status: 'running', lease_owner: 'cp_gone' });
    expect(work.runs.map((r) => r.deployment.id)).toEqual([fresh]);

    const { engine: sole } = engine();
    await sole.start(true);
    const done = await finished(orphan);
    expect(done).toMatchObject({ status: 'succeeded', error: null, lease_owner: null, lease_until: null });
    expect(work.runs.map((r) => r.deployment.id)).toEqual([fresh, orphan]);
    // Resumed, not started: its only event is its end.
    expect((await events(orphan)).map((e) => e.type)).toEqual(['deployment.finished']);
  });

  it('renews the lease, under its own owner, while a phase runs longer than the lease; a sweep meanwhile does not run the phase twice', async () => {
    const leaseMs = 600;
    const release = gate();
    const work = phase('work', async () => {
      await release.opened;
      return ok(null);
    });
    const id = await deployment(testKind([work, phase('verdict')]));
    const { engine: e } = engine({ leaseMs });
    await e.start(false);
    await started(work);
    await e.sweep(); // claims it again: the lease is this engine's

    const first = await row(id);
    expect(first.lease_owner).toBe(e.owner);
    // Moved past a whole lease beyond the first reading: the phase outlived its lease and still holds it.
    const second = await waitFor(async () => {
      const r = await row(id);
      return ms(r.lease_until) > ms(first.lease_until) + leaseMs ? r : undefined;
    }, 20_000, 'the lease to be renewed');
    expect(second.lease_owner).toBe(e.owner);
    const third = await waitFor(async () => {
      const r = await row(id);
      return ms(r.lease_until) > ms(second.lease_until) ? r : undefined;
    }, 20_000, 'the lease to be renewed again');
    expect(third).toMatchObject({ status: 'running', lease_owner: e.owner });
    expect(work.runs).toHaveLength(1);

    release.open();
    expect(await finished(id)).toMatchObject({ status: 'succeeded', lease_owner: null, lease_until: null });
    expect(work.runs).toHaveLength(1);
  });

  it('a phase that met a database outage stays running, with no failure and no error, and runs again after a pause', async () => {
    const rerun = gate();
    const prepare = phase('prepare');
    const at: number[] = [];
    const work = phase('work', async (run) => {
      at.push(performance.now());
      if (run === 1) throw new DenvError('DATABASE_UNAVAILABLE', 'the database server cannot be reached (ECONNREFUSED); retry shortly');
      await rerun.opened;
      return ok({ attempt: run });
    });
    const verdict = phase('verdict');
    const id = await deployment(testKind([prepare, work, verdict]));
    const { engine: e, logs } = engine();
    await e.start(false);
    // The run pauses, then the sweep that follows it claims the deployment again (its lease is still this engine's).
    await started(work);
    const between = await waitFor(() => logs.length === 1 && row(id), 20_000, 'the outage to be logged');
    expect(between).toMatchObject({ status: 'running', error: null, lease_owner: e.owner });
    expect(outcomes(between)).toEqual([['prepare', 'ok', null], ['work', 'running', null], ['verdict', 'pending', null]]);
    expect(logs).toEqual([`engine: deployment ${id}: work stopped by a database outage; it runs again in 0.1 s`]);
    await started(work, 2);
    expect(at[1]! - at[0]!).toBeGreaterThanOrEqual(100);

    rerun.open();
    const done = await finished(id);
    expect(done).toMatchObject({ status: 'succeeded', error: null });
    expect(outcomes(done)).toEqual([['prepare', 'ok', null], ['work', 'ok', { attempt: 2 }], ['verdict', 'ok', null]]);
    expect([prepare.runs.length, work.runs.length, verdict.runs.length]).toEqual([1, 2, 1]);
    expect((await events(id)).map((ev) => [ev.type, ev.data.status])).toEqual([['deployment.started', undefined], ['deployment.finished', 'succeeded']]);
    expect(logs).toHaveLength(1);
  });

  it('outages in a row pause the re-runs longer each time, doubled up to the cap, the lease still this engine’s', async () => {
    const at: number[] = [];
    const work = phase('work', () => {
      at.push(performance.now());
      throw new DenvError('DATABASE_UNAVAILABLE', 'the database server cannot be reached (ECONNREFUSED); retry shortly');
    });
    const verdict = phase('verdict');
    const id = await deployment(testKind([work, verdict]));
    const { engine: e, logs } = engine();
    await e.start(false);
    await started(work, 5);
    // Without the pause the sweep after each run re-runs the phase at once: the gaps would be a few milliseconds.
    const gaps = at.slice(1).map((t, i) => t - at[i]!);
    [100, 200, 300, 300].forEach((pause, i) => expect(gaps[i]).toBeGreaterThanOrEqual(pause));
    expect(logs.slice(0, 4)).toEqual([0.1, 0.2, 0.3, 0.3].map((s) => `engine: deployment ${id}: work stopped by a database outage; it runs again in ${s} s`));
    expect(await row(id)).toMatchObject({ status: 'running', error: null, lease_owner: e.owner });
    expect(verdict.runs).toHaveLength(0);
  });

  it('stop() ends an outage pause at once, leaving the deployment running and unleased', async () => {
    const work = phase('work', () => {
      throw new DenvError('DATABASE_UNAVAILABLE', 'the database server cannot be reached (ECONNREFUSED); retry shortly');
    });
    const verdict = phase('verdict');
    const id = await deployment(testKind([work, verdict]));
    const { engine: e, logs } = engine({ outageRetryMs: { first: 600_000, max: 600_000 } });
    await e.start(false);
    await waitFor(() => logs.length === 1, 20_000, 'the outage to be logged');
    expect(logs).toEqual([`engine: deployment ${id}: work stopped by a database outage; it runs again in 600 s`]);

    const stopping = performance.now();
    await e.stop();
    expect(performance.now() - stopping).toBeLessThan(10_000);
    expect(work.runs).toHaveLength(1);
    expect(verdict.runs).toHaveLength(0);
    const r = await row(id);
    expect(r).toMatchObject({ status: 'running', error: null, lease_owner: null, lease_until: null, finished_at: null });
    expect(statuses(r)).toEqual([['work', 'running'], ['verdict', 'pending']]);
  });

  it('a deployment of a kind with no phases here is not claimed: it waits, pending and unleased, and runs once its kind is known', async () => {
    const held = phase('work');
    const kind = testKind([held, phase('verdict')]);
    const unknown = await deployment(kind);
    // As if made by a newer control plane sharing the database: the kind is unknown to this one.
    const phases = HOST_DEFS[kind]!;
    delete HOST_DEFS[kind];
    const known = await deployment(testKind([phase('work'), phase('verdict')]));
    const { engine: e, logs } = engine();
    await e.start(false);
    // `known` finishing proves a sweep ran (and the one after its run): both passed `unknown` over.
    await finished(known);
    await e.sweep();
    expect(await row(unknown)).toMatchObject({ status: 'pending', error: null, lease_owner: null, lease_until: null, started_at: null });
    expect(await events(unknown)).toEqual([]);
    expect(logs).toEqual([]);
    expect(held.runs).toHaveLength(0);

    HOST_DEFS[kind] = phases;
    await e.sweep();
    expect(await finished(unknown)).toMatchObject({ status: 'succeeded', error: null });
    expect(held.runs).toHaveLength(1);
  });

  it('a deployment naming a phase its kind lacks here is not claimed either, even one left running: it waits for a control plane that has the phase', async () => {
    const work = phase('work');
    const extra = phase('extra');
    const kind = testKind([work, extra, phase('verdict')]);
    const pending = await deployment(kind);
    const orphan = await deployment(kind, { leftRunningBy: 'cp_gone' });
    // This control plane's version of the kind has no `extra`.
    HOST_DEFS[kind] = HOST_DEFS[kind]!.filter((d) => d.name !== 'extra');
    const { engine: e, logs } = engine();
    await e.start(true); // takes over every lease: `orphan` is free to claim
    await e.sweep();
    expect(await row(pending)).toMatchObject({ status: 'pending', lease_owner: null, started_at: null });
    expect(await row(orphan)).toMatchObject({ status: 'running', lease_owner: null, lease_until: null });
    expect(logs).toEqual([]);
    expect(work.runs).toHaveLength(0);

    HOST_DEFS[kind] = [work.def, extra.def, HOST_DEFS[kind]![1]!];
    await e.sweep();
    for (const id of [pending, orphan]) expect(await finished(id)).toMatchObject({ status: 'succeeded' });
    expect(extra.runs.map((r) => r.deployment.id).sort()).toEqual([orphan, pending].sort());
  });

  it('a claim that fails is logged and the engine goes on: the next sweep claims', async () => {
    const id = await deployment(testKind([phase('work'), phase('verdict')]));
    const { engine: e, logs } = engine();
    await store.db.query('alter table deployments rename column lease_owner to lease_holder');
    await e.start(false);
    await e.sweep(); // waits for the start's claim and the one asked for here: both fail
    expect(logs).toHaveLength(2);
    for (const line of logs) expect(line).toMatch(/^engine: sweep: .*lease_owner/);
    await store.db.query('alter table deployments rename column lease_holder to lease_owner');
    expect(await row(id)).toMatchObject({ status: 'pending', lease_owner: null });
    await e.sweep();
    expect(await finished(id)).toMatchObject({ status: 'succeeded', error: null });
  });

  it('a phase failed with no error in its evidence leaves `<phase>: failed`', async () => {
    const kind = testKind([phase('work', () => ({ status: 'failed', evidence: { free_mb: 3 } })), phase('verdict')]);
    const id = await deployment(kind);
    const { engine: e } = engine();
    await e.start(false);
    const done = await finished(id);
    expect(done).toMatchObject({ status: 'failed', error: 'work: failed' });
    expect(outcomes(done)).toEqual([['work', 'failed', { free_mb: 3 }], ['verdict', 'ok', null]]);
  });

  it('a verdict whose lease was taken while it ran does not finish the deployment: CONFLICT, no finished event, the row left to its owner', async () => {
    const kind = testKind([
      phase('work'),
      phase('verdict', async (_run, ctx) => {
        await store.db.query("update deployments set lease_owner = 'cp_other' where id = $1", [ctx.deployment.id]);
        return ok({ reverted: 'nothing' });
      }),
    ]);
    const id = await deployment(kind);
    const { engine: e, logs } = engine();
    await e.start(false);
    await waitFor(() => logs.length > 0, 20_000, 'the lost lease to be logged');
    await e.idle();
    expect(logs).toEqual([`engine: deployment ${id}: lost the lease on deployment ${id}`]);
    const r = await row(id);
    expect(r).toMatchObject({ status: 'running', error: null, lease_owner: 'cp_other', finished_at: null });
    expect(statuses(r)).toEqual([['work', 'ok'], ['verdict', 'running']]);
    expect((await events(id)).map((ev) => ev.type)).toEqual(['deployment.started']);
  });

  if (storeKind === 'pglite') {
    // Only the embedded store's one connection runs statements in the order they were sent, which
    // is what places the lease's release between the two claims.
    it('a sweep asked for while one runs is not dropped: one more claim follows, and finds what was freed meanwhile', async () => {
      const work = phase('work');
      const id = await deployment(testKind([work, phase('verdict')]), { leftRunningBy: 'cp_gone' });
      const { engine: e, bus } = engine();
      await e.start(false); // its first claim is in flight: it reads the lease still held
      const freed = store.db.query('update deployments set lease_owner = null, lease_until = null where id = $1', [id]);
      bus.emit('kick'); // as the API does when it adds a deployment
      await freed;
      // Dropped, the kick would leave the deployment to the engine's next timed sweep, a minute away.
      expect(await finished(id)).toMatchObject({ status: 'succeeded' });
      expect(work.runs).toHaveLength(1);
    });
  }

  it('a lease lost mid-phase (another owner written into the row) stops the phase at the next renewal, CONFLICT: nothing more runs, nothing is finished', async () => {
    const work = phase('work', (_run, ctx) => new Promise<never>((_resolve, reject) => ctx.signal.addEventListener('abort', () => reject(new Error('aborted')))));
    const verdict = phase('verdict');
    const id = await deployment(testKind([work, verdict]));
    // Renewed every 300 ms: the phase is stopped long before it would end by itself (never) or time out (60 s).
    const { engine: e, logs } = engine({ leaseMs: 900 });
    await e.start(false);
    await started(work);
    await store.db.query("update deployments set lease_owner = 'cp_other' where id = $1", [id]);

    await waitFor(() => work.runs[0]!.signal.aborted, 20_000, 'the phase to be stopped');
    await e.idle();
    expect(logs).toEqual([`engine: deployment ${id}: lost the lease on deployment ${id}`]);
    expect(verdict.runs).toHaveLength(0);
    const r = await row(id);
    expect(r).toMatchObject({ status: 'running', error: null, lease_owner: 'cp_other', finished_at: null });
    expect(statuses(r)).toEqual([['work', 'running'], ['verdict', 'pending']]);
    expect((await events(id)).map((ev) => ev.type)).toEqual(['deployment.started']);
  });

  it('after a failed phase the later ones are skipped, the error names the phase, verdict still runs; deployment.finished says status, took_ms and error', async () => {
    const publish = phase('publish');
    const verdict = phase('verdict', () => ({ status: 'ok', evidence: { reverted: 'nothing to revert' } }));
    const kind = testKind([phase('prepare'), phase('work', () => ({ status: 'failed', evidence: { error: 'disk full', free_mb: 3 } })), publish, phase('announce'), verdict]);
    const id = await deployment(kind);
    const { engine: e } = engine();
    const began = Date.now();
    await e.start(false);
    const done = await finished(id);
    const wallMs = Date.now() - began;

    expect(done).toMatchObject({ status: 'failed', error: 'work: disk full', lease_owner: null, lease_until: null });
    expect(done.started_at).not.toBeNull();
    expect(outcomes(done)).toEqual([
      ['prepare', 'ok', null],
      ['work', 'failed', { error: 'disk full', free_mb: 3 }],
      ['publish', 'skipped', { reason: 'work failed' }],
      ['announce', 'skipped', { reason: 'work failed' }],
      ['verdict', 'ok', { reverted: 'nothing to revert' }],
    ]);
    expect(publish.runs).toHaveLength(0);
    expect(verdict.runs.map((r) => r.failure)).toEqual([{ phase: 'work', message: 'disk full' }]);
    const [start, end] = await events(id);
    expect(start).toEqual({ type: 'deployment.started', data: { kind, control_plane: e.owner } });
    expect(end).toEqual({ type: 'deployment.finished', data: { status: 'failed', took_ms: expect.any(Number), error: 'work: disk full' } });
    // From the deployment's start to its end: within what the test saw from start() to the end, and
    // the row's own finished_at - started_at (to the millisecond; both are the database's clock).
    expect(end!.data.took_ms as number).toBeGreaterThanOrEqual(0);
    expect(end!.data.took_ms as number).toBeLessThanOrEqual(wallMs);
    expect(Math.abs((end!.data.took_ms as number) - (ms(done.finished_at) - ms(done.started_at)))).toBeLessThanOrEqual(1);
  });

  it('a phase that throws fails with what it threw (INTERNAL for a plain error); a verdict that throws still ends the deployment, failed, keeping the first error', async () => {
    const id = await deployment(
      testKind([
        phase('work', () => {
          throw new PhaseFailed('volume busy', { volume: 'data' });
        }),
        phase('verdict', () => {
          throw new Error('socket hang up');
        }),
      ]),
    );
    const { engine: e } = engine();
    await e.start(false);
    const done = await finished(id);
    expect(done).toMatchObject({ status: 'failed', error: 'work: volume busy', lease_owner: null });
    expect(outcomes(done)).toEqual([
      ['work', 'failed', { volume: 'data', error: 'volume busy' }],
      ['verdict', 'failed', { error: 'socket hang up', code: 'INTERNAL' }],
    ]);
    expect((await events(id)).at(-1)).toEqual({ type: 'deployment.finished', data: { status: 'failed', took_ms: expect.any(Number), error: 'work: volume busy' } });
  });

  it('a phase slower than commandTimeoutMs fails with `timed out after N ms`, even one that ignores its signal', async () => {
    const slow = phase('work', () => new Promise<never>(() => {}));
    const verdict = phase('verdict');
    const id = await deployment(testKind([slow, phase('publish'), verdict]));
    const { engine: e } = engine({ commandTimeoutMs: 1000 });
    await e.start(false);
    const done = await finished(id);
    expect(done).toMatchObject({ status: 'failed', error: 'work: timed out after 1000 ms' });
    expect(outcomes(done)).toEqual([
      ['work', 'failed', { error: 'timed out after 1000 ms' }],
      ['publish', 'skipped', { reason: 'work failed' }],
      ['verdict', 'ok', null],
    ]);
    expect(slow.runs[0]!.signal.aborted).toBe(true);
    expect(verdict.runs.map((r) => r.failure)).toEqual([{ phase: 'work', message: 'timed out after 1000 ms' }]);
  });
  it('a resumed deployment runs from its running phase: finished phases are not run again, their evidence and its own and the phase’s start times kept', async () => {
    const prepare = phase('prepare');
    const work = phase('work');
    const verdict = phase('verdict');
    const id = await deployment(testKind([prepare, work, verdict]), { leftRunningBy: 'cp_gone' });
    // Left in `work` by an owner that went away: prepare ended with its evidence, work running for a minute.
    const began = new Date(Date.now() - 60_000).toISOString();
    const left = [
      { name: 'prepare', status: 'ok', evidence: { pulled: 'sha256:1' }, started_at: began, finished_at: began },
      { name: 'work', status: 'running', evidence: null, started_at: began, finished_at: null },
      { name: 'verdict', status: 'pending', evidence: null, started_at: null, finished_at: null },
    ];
    await store.db.query('update deployments set phases = $2, started_at = $3 where id = $1', [id, JSON.stringify(left), began]);
    const { engine: e } = engine();
    await e.start(true);
    const done = await finished(id);
    expect(done).toMatchObject({ status: 'succeeded', error: null });
    expect(outcomes(done)).toEqual([['prepare', 'ok', { pulled: 'sha256:1' }], ['work', 'ok', null], ['verdict', 'ok', null]]);
    expect([prepare.runs.length, work.runs.length, verdict.runs.length]).toEqual([0, 1, 1]);
    expect(ms(done.started_at)).toBe(ms(began));
    expect(done.phases.slice(0, 2).map((p) => p.started_at)).toEqual([began, began]);
    expect(ms(done.phases[2]!.started_at)).toBeGreaterThan(ms(began));
    expect((await events(id)).map((ev) => ev.type)).toEqual(['deployment.finished']);
  });

  it('announces every change it commits: `progress` carries what was stored (kind, status, phases), then `deployment` the id', async () => {
    const kind = testKind([phase('work'), phase('verdict')]);
    const id = await deployment(kind);
    const { engine: e, bus } = engine();
    const seen: unknown[] = [];
    const stored: unknown[] = [];
    bus.on('progress', (p) => {
      seen.push(['progress', p.id, p.kind, p.status, p.phases.map((ph) => ph.status)]);
      stored.push(p.phases);
    });
    bus.on('deployment', (d) => seen.push(['deployment', d]));
    await e.start(false);
    const done = await finished(id);
    await e.idle(); // the last announcement follows the finishing transaction's commit
    expect(seen).toEqual([
      ['progress', id, kind, 'running', ['pending', 'pending']],
      ['deployment', id],
      ['progress', id, kind, 'running', ['running', 'pending']],
      ['deployment', id],
      ['progress', id, kind, 'running', ['ok', 'running']],
      ['deployment', id],
      ['progress', id, kind, 'succeeded', ['ok', 'ok']],
      ['deployment', id],
    ]);
    expect(stored.at(-1)).toEqual(done.phases);
  });

  it('a lease taken between two phases is found by the next commit: CONFLICT, the next phase never runs, nothing more is written', async () => {
    const work = phase('work', async (_run, ctx) => {
      await store.db.query("update deployments set lease_owner = 'cp_other' where id = $1", [ctx.deployment.id]);
      return ok({ done: true });
    });
    const publish = phase('publish');
    const id = await deployment(testKind([work, publish, phase('verdict')]));
    // The lease (30 s) is renewed every 10 s: the commit of publish's start finds it lost first.
    const { engine: e, logs } = engine();
    await e.start(false);
    await waitFor(() => logs.length > 0, 20_000, 'the lost lease to be logged');
    await e.idle();
    expect(logs).toEqual([`engine: deployment ${id}: lost the lease on deployment ${id}`]);
    expect(publish.runs).toHaveLength(0);
    const r = await row(id);
    expect(r).toMatchObject({ status: 'running', error: null, lease_owner: 'cp_other', finished_at: null });
    expect(outcomes(r)).toEqual([['work', 'running', null], ['publish', 'pending', null], ['verdict', 'pending', null]]);
    expect((await events(id)).map((ev) => ev.type)).toEqual(['deployment.started']);
  });

  it('idle() resolves once nothing runs here, not before', async () => {
    const release = gate();
    const work = phase('work', async () => {
      await release.opened;
      return ok(null);
    });
    const id = await deployment(testKind([work, phase('verdict')]));
    const { engine: e } = engine();
    await e.start(false);
    await started(work);
    let idled = false;
    const idling = e.idle().then(() => (idled = true));
    await e.sweep(); // a whole claim later, the held run still runs
    expect(idled).toBe(false);
    release.open();
    await idling;
    // Read without waiting: idle() resolved only after the run's last commit.
    expect(await row(id)).toMatchObject({ status: 'succeeded', lease_owner: null });
  });
});
