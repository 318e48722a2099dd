/**
 * Keeps telemetry storage bounded (DESIGN §13): metric samples older than the retention window
 * are deleted, and so are the command rows of read-only agent requests (agent-requests.ts) once a
 * few minutes old, answered or not. Log lines need nothing here: they are pruned as they arrive.
 */
import type { Db } from '../store/db.js';
import { TELEMETRY_KINDS } from './agent-requests.js';

export const DEFAULT_METRICS_RETENTION_MS = 60 * 60_000;
const REQUEST_ROWS_KEPT_MS = 5 * 60_000;

export async function sweepTelemetry(db: Db, retentionMs: number): Promise<{ samples: number; requests: number }> {
  const samples = await db.query<{ n: number }>(
    "with d as (delete from env_samples where at < now() - ($1 || ' milliseconds')::interval returning 1) select count(*)::int as n from d",
    [String(retentionMs)],
  );
  const requests = await db.query<{ n: number }>(
    "with d as (delete from commands where deployment is null and kind = any($1) and created_at < now() - ($2 || ' milliseconds')::interval returning 1) select count(*)::int as n from d",
    [[...TELEMETRY_KINDS], String(REQUEST_ROWS_KEPT_MS)],
  );
  return { samples: Number(samples[0]?.n ?? 0), requests: Number(requests[0]?.n ?? 0) };
}
