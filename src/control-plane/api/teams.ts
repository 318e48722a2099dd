import { createTeamBody, createTokenBody, listQuery } from '../../contracts/api.js';
import { DenvError } from '../../contracts/errors.js';
import { newId } from '../../contracts/ids.js';
import { issueToken, scopeAllows } from './auth.js';
import { listPage } from './paging.js';
import { route } from './route.js';

interface TokenRow { id: string; team: string; name: string; admin: boolean; scope: string; created_at: unknown; expires_at: unknown; revoked_at: unknown }

const iso = (v: unknown) => (v ? new Date(v as string).toISOString() : null);
/** A token as the API shows it: never its secret nor its hash. */
const toToken = (r: TokenRow) => ({
  id: r.id, team: r.team, name: r.name, scope: r.scope, admin: r.admin,
  created_at: iso(r.created_at), expires_at: iso(r.expires_at), revoked_at: iso(r.revoked_at),
});

const TOKEN_COLUMNS = 'id, team, name, admin, scope, created_at, expires_at, revoked_at';

export const teamRoutes = [
  route({
    method: 'POST', url: '/v1/teams', summary: 'Create a team (admin token only)', body: createTeamBody, access: 'admin', status: 201,
    async handler({ db }, { body }) {
      const exists = await db.query('select 1 from teams where name = $1', [body.name]);
      if (exists.length > 0) throw new DenvError('CONFLICT', `team "${body.name}" already exists`);
      const rows = await db.query<{ id: string; name: string; created_at: unknown }>('insert into teams (id, name) values ($1, $2) returning id, name, created_at', [newId('team'), body.name]);
      const t = rows[0]!;
      return { id: t.id, name: t.name, created_at: new Date(t.created_at as string).toISOString() };
    },
  }),
  route({
    method: 'POST', url: '/v1/tokens', summary: "Create an API token for the caller's team (or, admin only, another team); scope at most the caller's; optional ttl or expires_at", body: createTokenBody, status: 201, scope: 'admin',
    async handler({ db }, { auth, body }) {
      let team = auth.team;
      if (body.team !== undefined) {
        const rows = await db.query<{ id: string }>('select id from teams where id = $1 or name = $1', [body.team]);
        // One answer for "another team" and "no such team": a team token learns nothing of others.
        if (!auth.admin && rows[0]?.id !== auth.team) throw new DenvError('FORBIDDEN', 'only the admin token creates tokens for other teams');
        if (!rows[0]) throw new DenvError('NOT_FOUND', `team "${body.team}" not found`);
        team = rows[0].id;
      }
      const scope = body.scope ?? auth.scope;
      if (!scopeAllows(auth.scope, scope)) throw new DenvError('FORBIDDEN', `scope: a ${auth.scope} token cannot create a ${scope} token`);
      if (body.ttl !== undefined && body.expires_at !== undefined) throw new DenvError('BAD_REQUEST', 'ttl, expires_at: give one of them, not both');
      let expiresInS = body.ttl;
      if (body.expires_at !== undefined) {
        expiresInS = Math.ceil((Date.parse(body.expires_at) - Date.now()) / 1000);
        if (expiresInS < 1) throw new DenvError('BAD_REQUEST', 'expires_at: must be in the future');
      }
      const t = await issueToken(db, team, body.name, false, { scope, expiresInS });
      return { id: t.id, team, name: body.name, scope: t.scope, expires_at: t.expires_at, created_at: t.created_at, token: t.token };
    },
  }),
  route({
    method: 'GET', url: '/v1/tokens', summary: "List the team's API tokens (never their secrets), oldest first", query: listQuery, scope: 'admin',
    async handler({ db }, { auth, query }) {
      return listPage<TokenRow, ReturnType<typeof toToken>>(db, { table: 'api_tokens', where: 'team = $1', params: [auth.team] }, query, toToken);
    },
  }),
  route({
    method: 'DELETE', url: '/v1/tokens/:id', summary: 'Revoke an API token: refused with 401 from its next request', scope: 'admin',
    async handler({ db, tokens }, { auth, params }) {
      const rows = await db.query<TokenRow>(
        `update api_tokens set revoked_at = coalesce(revoked_at, now()) where id = $1 and team = $2 returning ${TOKEN_COLUMNS}`,
        [params.id, auth.team],
      );
      if (!rows[0]) throw new DenvError('NOT_FOUND', `token "${params.id}" not found`);
      tokens?.drop(rows[0].id);
      return toToken(rows[0]);
    },
  }),
];
