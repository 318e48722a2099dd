import { createEnrollmentKeyBody, listQuery, removeHostQuery } from '../../contracts/api.js';
import { DenvError } from '../../contracts/errors.js';
import type { Db } from '../store/db.js';
import { appendEvent } from '../store/events.js';
import { markDeprovisioning, markRemoved } from '../store/host-removal.js';
import { createEnrollmentKey } from '../auth/enrollment-keys.js';
import { HOST_VIEW_COLUMNS, toHost, type HostRow } from '../store/rows.js';
import { listPage } from './paging.js';
import { route } from './route.js';

interface EnrollmentKeyRow { id: string; name: string | null; single_use: boolean; expires_at: unknown; used_at: unknown; revoked_at: unknown; created_at: unknown }
const iso = (v: unknown) => (v ? new Date(v as string).toISOString() : null);
/** An enrollment key as listed: never the key itself. `state` says whether it can still enroll. */
const toEnrollmentKey = (r: EnrollmentKeyRow) => ({
  id: r.id, name: r.name, single_use: r.single_use, created_at: iso(r.created_at), expires_at: iso(r.expires_at), used_at: iso(r.used_at), revoked_at: iso(r.revoked_at),
  state: r.revoked_at ? 'revoked' : new Date(r.expires_at as string).getTime() <= Date.now() ? 'expired' : r.single_use && r.used_at ? 'used' : 'usable',
});

/** Drain or undrain host `idOrName` of `team` (by id or name); a `host.drained`/`host.undrained` event when it changes. */
async function setDrained(db: Db, team: string, idOrName: string, drained: boolean, token: string) {
  return db.tx(async (tx) => {
    const rows = await tx.query<HostRow>(`select ${HOST_VIEW_COLUMNS} from hosts where team = $1 and (id = $2 or name = $2) and status <> 'removed' order by created_at limit 1 for update`, [team, idOrName]);
    const h = rows[0];
    if (!h) throw new DenvError('NOT_FOUND', `host "${idOrName}" not found`);
    if (Boolean(h.drained_at) === drained) return toHost(h);
    const after = (await tx.query<HostRow>(`update hosts set drained_at = ${drained ? 'now()' : 'null'} where id = $1 returning ${HOST_VIEW_COLUMNS}`, [h.id]))[0]!;
    await appendEvent(tx, { team, subject: `host:${h.id}`, type: drained ? 'host.drained' : 'host.undrained', data: { name: h.name, token } });
    return toHost(after);
  });
}

export const hostRoutes = [
  route({
    method: 'GET', url: '/v1/hosts', summary: 'List hosts', query: listQuery,
    async handler({ db }, { auth, query }) {
      return listPage(db, { table: 'hosts', where: 'team = $1', params: [auth.team], columns: HOST_VIEW_COLUMNS }, query, toHost);
    },
  }),
  route({
    method: 'POST', url: '/v1/enrollment-keys', summary: 'Create an enrollment key for `denv agent` (DENV_ENROLLMENT_KEY); single-use unless single_use=false', body: createEnrollmentKeyBody, status: 201, scope: 'admin',
    async handler({ db }, { auth, body }) {
      return createEnrollmentKey(db, auth.team, body.expires_in, body.single_use, body.name ?? null);
    },
  }),
  route({
    method: 'GET', url: '/v1/enrollment-keys', summary: "List the team's enrollment keys (never the keys themselves), oldest first", query: listQuery, scope: 'admin',
    async handler({ db }, { auth, query }) {
      return listPage<EnrollmentKeyRow, ReturnType<typeof toEnrollmentKey>>(db, { table: 'enrollment_keys', where: 'team = $1', params: [auth.team] }, query, toEnrollmentKey);
    },
  }),
  route({
    method: 'DELETE', url: '/v1/enrollment-keys/:id', summary: 'Revoke an enrollment key: no host enrolls with it any more (hosts already enrolled keep their credentials)', scope: 'admin',
    async handler({ db }, { auth, params }) {
      const rows = await db.query<EnrollmentKeyRow>('update enrollment_keys set revoked_at = coalesce(revoked_at, now()) where id = $1 and team = $2 returning *', [params.id, auth.team]);
      if (!rows[0]) throw new DenvError('NOT_FOUND', `enrollment key "${params.id}" not found`);
      return toEnrollmentKey(rows[0]);
    },
  }),
  route({
    method: 'POST', url: '/v1/hosts/:id/drain', summary: 'Drain a host: it takes no new env (deploys place new envs elsewhere or provision); the envs on it stay and redeploy there', scope: 'admin',
    async handler({ db }, { auth, params }) {
      return setDrained(db, auth.team, params.id!, true, auth.tokenId);
    },
  }),
  route({
    method: 'DELETE', url: '/v1/hosts/:id/drain', summary: 'Undrain a host: it takes new envs again', scope: 'admin',
    async handler({ db }, { auth, params }) {
      return setDrained(db, auth.team, params.id!, false, auth.tokenId);
    },
  }),
  route({
    method: 'DELETE', url: '/v1/hosts/:id', summary: 'Remove a host: its credential is revoked, its live socket closed, and its agent told to stop (refused while envs are placed there, unless force=true)', query: removeHostQuery, scope: 'admin',
    async handler({ db, agents }, { auth, params, query }) {
      const host = await db.tx(async (tx) => {
        const rows = await tx.query<HostRow>('select * from hosts where team = $1 and id = $2 for update', [auth.team, params.id]);
        const h = rows[0];
        if (!h) throw new DenvError('NOT_FOUND', `host "${params.id}" not found`);
        if (h.status === 'removed') return h;
        const placed = await tx.query<{ name: string }>("select name from envs where host = $1 and status not in ('torn_down', 'separated')", [h.id]);
        if (placed.length > 0 && !query.force) {
          throw new DenvError('CONFLICT', `host ${h.name} still has ${placed.length} env(s) placed on it (${placed.map((e) => e.name).join(', ')}); tear them down first, or remove with force=true`);
        }
        await markDeprovisioning(tx, h, { forced: query.force });
        return markRemoved(tx, h);
      });
      await agents.hostChanged(host.id);
      return toHost(host);
    },
  }),
];
