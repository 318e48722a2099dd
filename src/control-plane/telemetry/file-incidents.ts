/**
 * The monitor sweep's incident work (seed 002 "Incidents"): every open incident not yet filed
 * becomes an improvement request of kind `bug` on its project, with the error sample, and an
 * `incident_reported` event on its env. Claimed with `for update skip locked`, so replicas
 * sharing a database file each incident once.
 */
import { newId } from '../../contracts/ids.js';
import type { Db } from '../store/db.js';
import { appendEvent } from '../store/events.js';

interface Unfiled {
  id: string; team: string; project: string; env: string; env_name: string; service: string; pattern: string; sample: string;
  count: number; first_at: unknown; last_at: unknown;
}

/** The improvement request's text (pure). */
export function improvementText(i: { service: string; env_name: string; env: string; pattern: string; sample: string; count: number; first_at: string; last_at: string }): { title: string; body: string } {
  const title = `${i.service}: ${i.pattern}`.slice(0, 200);
  const body = [
    `A recurring error in service ${i.service} of env ${i.env_name} (${i.env}): seen ${i.count} times between ${i.first_at} and ${i.last_at}.`,
    '',
    `Pattern: ${i.pattern}`,
    '',
    'Sample:',
    i.sample,
  ].join('\n');
  return { title, body };
}

export async function fileIncidents(db: Db, limit = 50): Promise<number> {
  // Mostly there is nothing to file: one statement says so, without a transaction (on the embedded
  // store a transaction has the one connection to itself, and the API's reads wait behind it).
  const open = await db.query("select 1 from incidents where improvement is null and status = 'open' limit 1");
  if (open.length === 0) return 0;
  return db.tx(async (tx) => {
    const rows = await tx.query<Unfiled>(
      `select i.id, i.team, i.project, i.env, e.name as env_name, i.service, i.pattern, i.sample, i.count, i.first_at, i.last_at
         from incidents i join envs e on e.id = i.env
        where i.improvement is null and i.status = 'open'
        order by i.created_at limit $1 for update of i skip locked`,
      [limit],
    );
    for (const i of rows) {
      const first = new Date(i.first_at as string).toISOString();
      const last = new Date(i.last_at as string).toISOString();
      const { title, body } = improvementText({ ...i, count: Number(i.count), first_at: first, last_at: last });
      const improvement = newId('improvement');
      await tx.query("insert into improvements (id, team, project, kind, title, body, source, incident) values ($1, $2, $3, 'bug', $4, $5, 'incident', $6)", [improvement, i.team, i.project, title, body, i.id]);
      await tx.query('update incidents set improvement = $2 where id = $1', [i.id, improvement]);
      await appendEvent(tx, {
        team: i.team, subject: `env:${i.env}`, type: 'incident_reported',
        data: { incident: i.id, improvement, service: i.service, pattern: i.pattern, count: Number(i.count), sample: i.sample.slice(0, 500) },
      });
    }
    return rows.length;
  });
}
