import { createTeamBody, createTokenBody } from '../../contracts/api.js';
import { DenvError } from '../../contracts/errors.js';
import { newId } from '../../contracts/ids.js';
import { issueToken } from './auth.js';
import { route } from './route.js';

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
    method: 'POST', url: '/v1/tokens', summary: "Create an API token for the caller's team (or, admin only, another team)", body: createTokenBody, status: 201,
    async handler({ db }, { auth, body }) {
      let team = auth.team;
      if (body.team !== undefined) {
        const rows = await db.query<{ id: string }>('select id from teams where id = $1 or name = $1', [body.team]);
        if (!rows[0]) throw new DenvError('NOT_FOUND', `team "${body.team}" not found`);
        if (rows[0].id !== auth.team && !auth.admin) throw new DenvError('FORBIDDEN', 'only the admin token creates tokens for other teams');
        team = rows[0].id;
      }
      const { id, token } = await issueToken(db, team, body.name, false);
      return { id, team, name: body.name, token };
    },
  }),
];
