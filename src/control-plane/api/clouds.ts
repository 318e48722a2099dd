import { createCloudBody, listQuery } from '../../contracts/api.js';
import { DenvError } from '../../contracts/errors.js';
import { newId } from '../../contracts/ids.js';
import { namespacePlan } from '../clouds/local/netns.js';
import type { CloudRow } from '../clouds/clouds.js';
import { appendEvent } from '../store/events.js';
import { listPage } from './paging.js';
import { route } from './route.js';

const iso = (v: unknown) => new Date(v as string).toISOString();
/** Settings that are secrets: stored, never shown again. */
const SECRET_SETTINGS = ['private_key', 'token'];
/** A cloud as the API shows it: its settings without secrets, and how many machines it has now. */
const toCloud = (r: CloudRow & { machines?: string | number }) => ({
  id: r.id, name: r.name, provider: r.provider, deprovision: r.deprovision,
  config: Object.fromEntries(Object.entries(r.config).filter(([k]) => !SECRET_SETTINGS.includes(k))),
  machines: Number(r.machines ?? 0), created_at: iso(r.created_at),
});
const CLOUD_COLUMNS = "id, team, name, provider, config, deprovision, created_at, (select count(*) from machines m where m.cloud = clouds.id and m.status <> 'destroyed') as machines";

export const cloudRoutes = [
  route({
    method: 'POST', url: '/v1/clouds', summary: 'Add a cloud: a way to get hosts (manual; local: new agents on this machine in network namespaces of their own; ssh: machines of yours that denv installs its agent on)', body: createCloudBody, status: 201, scope: 'admin',
    async handler({ db }, { auth, body }) {
      // Everything but the cloud's identity is its provider's settings.
      const { name: _name, provider: _provider, deprovision: _deprovision, ...settings } = body;
      // An ssh cloud given host keys refuses a machine whose key it was not given; else it pins each at first use.
      const config = body.provider === 'ssh' ? { ...settings, pin_new_hosts: body.known_hosts === undefined } : settings;
      if (body.provider === 'local' && body.subnet !== undefined) {
        try {
          namespacePlan('mch_0', 0, body.subnet);
        } catch (err) {
          throw new DenvError('BAD_REQUEST', `subnet: ${(err as Error).message}`);
        }
      }
      return db.tx(async (tx) => {
        const taken = await tx.query<{ id: string }>('select id from clouds where team = $1 and name = $2', [auth.team, body.name]);
        if (taken[0]) throw new DenvError('CONFLICT', `cloud "${body.name}" exists already`);
        const rows = await tx.query<CloudRow>('insert into clouds (id, team, name, provider, config, deprovision) values ($1, $2, $3, $4, $5, $6) returning *', [newId('cloud'), auth.team, body.name, body.provider, JSON.stringify(config), body.deprovision]);
        await appendEvent(tx, { team: auth.team, subject: `cloud:${rows[0]!.id}`, type: 'cloud.added', data: { name: body.name, provider: body.provider, token: auth.tokenId } });
        return toCloud(rows[0]!);
      });
    },
  }),
  route({
    method: 'GET', url: '/v1/clouds', summary: "List the team's clouds, oldest first", query: listQuery,
    async handler({ db }, { auth, query }) {
      return listPage(db, { table: 'clouds', where: 'team = $1', params: [auth.team], columns: CLOUD_COLUMNS }, query, toCloud);
    },
  }),
  route({
    method: 'DELETE', url: '/v1/clouds/:name', summary: 'Remove a cloud (refused while machines it made exist: destroy their envs first)', scope: 'admin',
    async handler({ db }, { auth, params }) {
      return db.tx(async (tx) => {
        const rows = await tx.query<CloudRow & { machines: string }>(`select ${CLOUD_COLUMNS} from clouds where team = $1 and (name = $2 or id = $2) for update`, [auth.team, params.name]);
        const cloud = rows[0];
        if (!cloud) throw new DenvError('NOT_FOUND', `cloud "${params.name}" not found`);
        if (Number(cloud.machines) > 0) throw new DenvError('CONFLICT', `cloud ${cloud.name} still has ${cloud.machines} machine(s); destroy the envs on them first (they are deprovisioned when empty)`);
        // Its destroyed machines' records go with it; their removed hosts stay, unlinked.
        const gone = "select id from machines where cloud = $1 and status = 'destroyed'";
        await tx.query(`update hosts set machine = null where machine in (${gone})`, [cloud.id]);
        await tx.query(`update enrollment_keys set machine = null where machine in (${gone})`, [cloud.id]);
        await tx.query("delete from machines where cloud = $1 and status = 'destroyed'", [cloud.id]);
        await tx.query('delete from clouds where id = $1', [cloud.id]);
        await appendEvent(tx, { team: auth.team, subject: `cloud:${cloud.id}`, type: 'cloud.removed', data: { name: cloud.name, token: auth.tokenId } });
        return toCloud(cloud);
      });
    },
  }),
];
