/**
 * The snapshot retention sweep (issue 9). After an operation that makes snapshots ends on an env
 * (deploy, snapshot, verify; rollback, which held its target), or a fork of one of its versions
 * is destroyed, the env is due: the sweep claims it (store/snapshot-retention.ts), decides what to
 * keep (retention/keep-set.ts), marks the other versions' snapshots pruned, then asks the host to
 * delete them (`env.prune_snapshots`) and records `snapshots.pruned` on `env:<id>`.
 *
 * Never part of a deployment: a deployment has finished before its env is due, and a prune that
 * fails is logged (and `snapshots.prune_failed` recorded) — it fails nothing. A prune names every
 * version that is not kept, so snapshots a failed or interrupted prune left on the host go with
 * the env's next prune.
 *
 * Why this is safe beside running deployments: the host deletes only the snapshots named in the
 * decision, never "everything else", so a snapshot taken after the decision cannot go; versions a
 * pending or running deployment made or targets are kept. Versions are marked in one transaction
 * with the env row locked (the API's rollback and fork lock it too), and only then is the host
 * told: a rollback requested later is refused (409, "its snapshot was pruned"); one requested
 * earlier is an unfinished deployment, so its target is kept.
 */
import { randomUUID } from 'node:crypto';
import { messageOf } from '../../contracts/errors.js';
import { linkedSignal } from '../../lib/linked-abort.js';
import type { AgentGateway } from '../gateway/agent-gateway.js';
import { decideRetention, describeReason } from '../retention/keep-set.js';
import type { Db } from '../store/db.js';
import { appendEvent } from '../store/events.js';
import { claimDueEnvs, lockEnv, markSnapshotsPruned, retentionReads, type DueEnv } from '../store/snapshot-retention.js';

/** Bound on one host's prune (deleting copies of large datasets takes a while). */
const PRUNE_TIMEOUT_MS = 10 * 60_000;

export interface SnapshotRetentionOptions {
  readonly db: Db;
  readonly agents: AgentGateway;
  /** Healthy versions (latest first) whose snapshots are kept besides the current one. */
  readonly keepRecent: number;
  readonly log: (line: string) => void;
}

export class SnapshotRetention {
  private readonly stopping = new AbortController();

  constructor(private readonly opts: SnapshotRetentionOptions) {}

  /** Abort prunes in flight (control-plane shutdown); the env is swept again after its next operation. */
  stop(): void {
    this.stopping.abort();
  }

  /** One pass: every due env, one after the other. Returns how many envs were swept. */
  async sweep(): Promise<number> {
    const due = await claimDueEnvs(this.opts.db);
    for (const env of due) {
      if (this.stopping.signal.aborted) break;
      await this.pruneEnv(env).catch((err) => this.opts.log(`snapshot retention: env ${env.id}: ${messageOf(err)}`));
    }
    return due.length;
  }

  private async pruneEnv(env: DueEnv): Promise<void> {
    const { db, agents, keepRecent, log } = this.opts;
    const plan = await db.tx(async (tx) => {
      // Sent together, run in this order: the env locked, then what the decision reads.
      const [row, reads] = await Promise.all([lockEnv(tx, env.id), retentionReads(tx, env.id)]);
      if (!row || row.status === 'torn_down' || row.status === 'separated' || !row.host) return null;
      const decision = decideRetention({ ...reads, currentVersion: row.current_version, keepRecent });
      const newlyPruned = await markSnapshotsPruned(tx, decision.prune);
      return { host: row.host, keep: [...decision.keep.keys()], remove: [...decision.prune], newlyPruned, reasons: decision.keep };
    });
    // Nothing newly pruned: no command (the host is told again, leftovers included, with the next prune).
    if (!plan || plan.newlyPruned.length === 0) return;
    const key = `env.prune_snapshots:${randomUUID()}`;
    const prune = linkedSignal([this.stopping.signal], PRUNE_TIMEOUT_MS);
    const { signal } = prune;
    try {
      const res = await agents.call(plan.host, 'env.prune_snapshots', { env: env.id, keep: plan.keep, remove: plan.remove }, { deployment: null, key, signal, requireConnected: true });
      if (res.removed.length > 0) {
        const kept = Object.fromEntries([...plan.reasons].map(([v, rs]) => [v, rs.map(describeReason)]));
        await appendEvent(db, { team: env.team, subject: `env:${env.id}`, type: 'snapshots.pruned', data: { removed: res.removed, kept, freed_bytes: res.freed_bytes } });
        log(`snapshot retention: env ${env.id}: pruned ${res.removed.length} snapshot(s), ${res.freed_bytes} bytes freed`);
      }
    } catch (err) {
      const message = signal.aborted && !this.stopping.signal.aborted ? `the host did not answer within ${PRUNE_TIMEOUT_MS} ms` : messageOf(err);
      if (!this.stopping.signal.aborted) await appendEvent(db, { team: env.team, subject: `env:${env.id}`, type: 'snapshots.prune_failed', data: { error: message } }).catch(() => {});
      log(`snapshot retention: env ${env.id}: prune failed: ${message}`);
    } finally {
      prune.dispose();
      // The command row served its purpose (the answer is in the event); nothing resends it.
      await db.query('delete from commands where deployment is null and key = $1', [key]).catch(() => {});
    }
  }
}
