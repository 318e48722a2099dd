import { eventsQuery } from '../../contracts/api.js';
import { toEvent, type EventRow } from '../store/rows.js';
import { route } from './route.js';

export const eventRoutes = [
  route({
    method: 'GET', url: '/v1/events', summary: 'Events of a subject (env:<id>, dep:<id>, host:<id>), oldest first; page with after=<id>', query: eventsQuery,
    async handler({ db }, { auth, query }) {
      const rows = await db.query<EventRow>(
        'select id, subject, type, data, at from events where team = $1 and subject = $2 and id > $3 order by id limit $4',
        [auth.team, query.subject, query.after ?? 0, query.limit + 1],
      );
      const more = rows.length > query.limit;
      const items = rows.slice(0, query.limit).map(toEvent);
      return { items, next: more ? String(items[items.length - 1]!.id) : null };
    },
  }),
];
