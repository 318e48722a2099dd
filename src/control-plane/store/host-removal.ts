/**
 * A host leaving the team (DESIGN §2 statuses): `deprovisioning`, then `removed` with its
 * credential revoked, each a `host.status` event. Both an operator's DELETE /v1/hosts/{id} and the
 * deprovision sweep (a cloud's machine nobody needs) go this way. Run inside the caller's
 * transaction; the caller then tells the replicas (`agents.hostChanged`) so the host's socket closes.
 */
import type { Db } from './db.js';
import { appendEvent } from './events.js';
import type { HostRow } from './rows.js';

export async function markDeprovisioning(tx: Db, host: { readonly id: string; readonly team: string }, data: Record<string, unknown> = {}): Promise<void> {
  await tx.query("update hosts set status = 'deprovisioning' where id = $1", [host.id]);
  await appendEvent(tx, { team: host.team, subject: `host:${host.id}`, type: 'host.status', data: { status: 'deprovisioning', ...data } });
}

export async function markRemoved(tx: Db, host: { readonly id: string; readonly team: string }, data: Record<string, unknown> = {}): Promise<HostRow> {
  const row = (await tx.query<HostRow>("update hosts set status = 'removed', credential_hash = null, removed_at = now() where id = $1 returning *", [host.id]))[0]!;
  await appendEvent(tx, { team: host.team, subject: `host:${host.id}`, type: 'host.status', data: { status: 'removed', ...data } });
  return row;
}
