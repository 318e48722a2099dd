/**
 * What the pipelines of one version's process services share (DESIGN §7: every service runs seed
 * 004's pipeline; process-pipeline/stages hold the stages). Each service runs its own pipeline,
 * all at once; they meet at the points where a version is more than its services:
 *
 *   - every service is prepared (admitted, its user, dirs and port settled) before any starts:
 *     each is told its siblings' `DENV_<S>_HOST/PORT`, and one refusal starts nothing;
 *   - a service starts when its `depends_on` conditions hold (started, healthy, completed);
 *   - a service is kept (persist) only when every service of the version passed health: a
 *     version runs whole or not at all, so one failure rolls back the others.
 *
 * A pipeline that ends early (no_op, a failure) still arrives at each meeting point and settles
 * its signals, so nothing waits for it forever.
 */
import type { ServiceSpec } from '../../../contracts/spec.js';
import type { AgentContext } from '../../context.js';
import { Mutex } from '../../../lib/mutex.js';
import type { ServiceIdentity } from '../../runtimes/process/service-env.js';
import type { Admission } from '../admit-process.js';
import type { PreparedService } from '../prepare-service.js';
import { siblingEnvironment, type SiblingAddress } from '../siblings.js';
import type { Failure, VersionRequest } from '../version-request.js';

/** One service's pipeline state. */
export interface ServiceRun {
  readonly name: string;
  readonly id: ServiceIdentity;
  readonly spec: ServiceSpec;
  /** Its process already runs: this version's own, healthy or still starting (an earlier
   *  delivery of the command, a previous agent), or an identical one of another version taken over. */
  adopted: { readonly as: 'healthy' | 'starting'; readonly from: string | null } | null;
  admission: Admission | null;
  plan: PreparedService | null;
  /** The live copy another version runs, as idempotency found it (nothing stops it before recreate). */
  oldCopy: (ServiceIdentity & { readonly port: number }) | null;
  /** Stop-first: the old copy whose port it takes over. */
  takeover: ServiceIdentity | null;
  /** Spawned by this run, or adopted but never yet healthy: stopped if the version fails. */
  owned: boolean;
  /** When a stop-first update stopped its old copy. */
  downSince: number | null;
  /** Its log's last lines, read before a rollback stopped it (the failure report shows them). */
  logTail: string[] | null;
}

class Signal<T> {
  private settle!: (value: T) => void;
  private settled = false;
  readonly value = new Promise<T>((resolve) => (this.settle = resolve));
  /** The first call wins. */
  set(value: T): void {
    if (this.settled) return;
    this.settled = true;
    this.settle(value);
  }
}

/** Resolves once every named service has arrived. */
class MeetingPoint {
  private readonly waiting: Set<string>;
  private readonly all = new Signal<void>();
  constructor(names: readonly string[]) {
    this.waiting = new Set(names);
    if (this.waiting.size === 0) this.all.set();
  }
  arrive(name: string): void {
    if (this.waiting.delete(name) && this.waiting.size === 0) this.all.set();
  }
  reached(): Promise<void> {
    return this.all.value;
  }
}

export class VersionRun {
  readonly services = new Map<string, ServiceRun>();
  readonly failures: Failure[] = [];
  readonly updates: Record<string, { order: 'stop-first'; down_ms: number }> = {};
  /** Services are prepared one at a time (creating users edits /etc/passwd). */
  readonly preparing = new Mutex();
  private readonly preparedAll: MeetingPoint;
  private readonly checkedAll: MeetingPoint;
  private readonly started = new Map<string, Signal<boolean>>();
  private readonly healthy = new Map<string, Signal<boolean>>();
  private siblingsEnv: Record<string, string> | null = null;

  constructor(
    readonly ctx: AgentContext,
    readonly req: VersionRequest,
    readonly datasets: Readonly<Record<string, string>>,
    /** One-shots: health is their exit 0; nobody connects to them. */
    readonly shots: ReadonlySet<string>,
  ) {
    const names = Object.keys(req.services);
    this.preparedAll = new MeetingPoint(names);
    this.checkedAll = new MeetingPoint(names);
    for (const name of names) {
      this.started.set(name, new Signal());
      this.healthy.set(name, new Signal());
      this.services.set(name, { name, id: { env: req.env, version: req.version, service: name }, spec: req.services[name]!, adopted: null, admission: null, plan: null, oldCopy: null, takeover: null, owned: false, downSince: null, logTail: null });
    }
  }

  /** A failure that decides the version's outcome (not one that only follows from another's). */
  fail(service: string, outcome: Failure['outcome'], message: string): void {
    this.failures.push({ service, outcome, message });
  }

  prepared(name: string): void {
    this.preparedAll.arrive(name);
  }
  /** Every service is prepared (or its pipeline ended): resolves with the first refusal, if any. */
  async everyonePrepared(): Promise<Failure | null> {
    await this.preparedAll.reached();
    return this.failures[0] ?? null;
  }

  checked(name: string): void {
    this.checkedAll.arrive(name);
  }
  /** Every service passed or failed health (or its pipeline ended): resolves with the failures. */
  async everyoneChecked(): Promise<readonly Failure[]> {
    await this.checkedAll.reached();
    return this.failures;
  }

  markStarted(name: string, ok: boolean): void {
    this.started.get(name)!.set(ok);
  }
  markHealthy(name: string, ok: boolean): void {
    this.healthy.get(name)!.set(ok);
  }
  whenStarted(name: string): Promise<boolean> {
    return this.started.get(name)!.value;
  }
  whenHealthy(name: string): Promise<boolean> {
    return this.healthy.get(name)!.value;
  }

  /** The port `name` runs or will run on: its live process's, else the one prepared for it. */
  portOf(name: string): number {
    const s = this.services.get(name)!;
    return this.ctx.runtime.get(s.id)?.port ?? s.plan?.port ?? 0;
  }

  /** `DENV_<S>_HOST/PORT` of every service of the version (settled once all are prepared). */
  siblings(): Record<string, string> {
    this.siblingsEnv ??= siblingEnvironment([
      ...[...this.services.keys()].map((service): SiblingAddress => ({ service, host: '127.0.0.1', port: this.portOf(service) })),
      ...(this.req.siblings ?? []),
    ]);
    return this.siblingsEnv;
  }

  /** A pipeline ended: whatever it did not get to is settled — a no_op runs healthy, anything else did not start. */
  ended(name: string, running: boolean): void {
    this.prepared(name);
    this.markStarted(name, running);
    this.markHealthy(name, running);
    this.checked(name);
  }
}
