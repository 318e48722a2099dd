import type { Db } from '../store/db.js';
import { DenvError } from '../../contracts/errors.js';

/** Opaque list cursors: the (created_at, id) of the last item, base64url. */
export function encodeCursor(createdAt: unknown, id: string): string {
  return Buffer.from(JSON.stringify([new Date(createdAt as string).toISOString(), id])).toString('base64url');
}

export function decodeCursor(cursor: string | undefined): [string, string] | null {
  if (!cursor) return null;
  try {
    const v = JSON.parse(Buffer.from(cursor, 'base64url').toString()) as unknown;
    // Both parts reach SQL (a timestamptz cast and a text compare): anything this API did not
    // make is a 400 here, never a database error (a 500).
    if (
      Array.isArray(v) && v.length === 2 && typeof v[0] === 'string' && typeof v[1] === 'string' &&
      /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/.test(v[0]) && Number.isFinite(Date.parse(v[0])) &&
      /^[a-z]+_[A-Za-z0-9]{1,64}$/.test(v[1])
    ) {
      return [v[0], v[1]];
    }
  } catch {
    /* fall through */
  }
  throw new DenvError('BAD_REQUEST', 'after: not a cursor returned by this API');
}

/** Rows were fetched with limit+1; answer `{items, next}`. */
export function page<R extends { id: string; created_at: unknown }, T>(rows: R[], limit: number, map: (r: R) => T): { items: T[]; next: string | null } {
  const more = rows.length > limit;
  const kept = rows.slice(0, limit);
  const last = kept[kept.length - 1];
  return { items: kept.map(map), next: more && last ? encodeCursor(last.created_at, last.id) : null };
}

/**
 * One page of `table`'s rows matching `where` (with `params` as $1…), ordered by (created_at, id)
 * — oldest first, or newest first — and continuing after the request's cursor. `table`, `where`
 * and `columns` come from code, never from a request.
 */
export async function listPage<R extends { id: string; created_at: unknown }, T>(
  db: Db,
  o: {
    readonly table: string; readonly where: string; readonly params: readonly unknown[]; readonly newestFirst?: boolean;
    /** The columns `map` reads (default all); `created_at` and `id` must be among them. */
    readonly columns?: string;
  },
  query: { readonly limit: number; readonly after?: string },
  map: (r: R) => T,
): Promise<{ items: T[]; next: string | null }> {
  const after = decodeCursor(query.after);
  const params = [...o.params];
  let where = o.where;
  if (after) {
    params.push(after[0], after[1]);
    where += ` and (created_at, id) ${o.newestFirst ? '<' : '>'} ($${params.length - 1}::timestamptz, $${params.length})`;
  }
  params.push(query.limit + 1);
  const dir = o.newestFirst ? 'desc' : 'asc';
  const rows = await db.query<R>(`select ${o.columns ?? '*'} from ${o.table} where ${where} order by created_at ${dir}, id ${dir} limit $${params.length}`, params);
  return page(rows, query.limit, map);
}
