import { createProjectBody, deployBody, revealListQuery, revealQuery, updateProjectBody } from '../../contracts/api.js';
import { DenvError } from '../../contracts/errors.js';
import { newId } from '../../contracts/ids.js';
import { splitCommand } from '../../contracts/spec.js';
import { requestDeploy } from '../lifecycle/request-deploy.js';
import { appendEvent } from '../store/events.js';
import { toDeployment, toEnv, toProject, type ProjectRow } from '../store/rows.js';
import { findProject } from './lookup.js';
import { maskDeep, revealAllowed } from './mask.js';
import { checkSignedDeploy } from './signed-deploy.js';
import { listPage } from './paging.js';
import { COMPOSE_BODY_LIMIT, route } from './route.js';


/** A project as read back: its default Compose with secret values masked unless `reveal`. */
function projectView(r: ProjectRow, reveal: boolean) {
  const p = toProject(r);
  return reveal || r.compose === null ? p : { ...p, compose: JSON.stringify(maskDeep(r.compose)) };
}

export const projectRoutes = [
  route({
    method: 'POST', url: '/v1/projects', summary: 'Create a project', body: createProjectBody, status: 201, bodyLimit: COMPOSE_BODY_LIMIT,
    async handler({ db, specs }, { auth, body }) {
      if (body.compose !== undefined) await specs.load(body.compose); // validates first: nothing written on bad Compose
      const stored = body.compose ?? null;
      const exists = await db.query('select 1 from projects where team = $1 and name = $2', [auth.team, body.name]);
      if (exists.length > 0) throw new DenvError('CONFLICT', `project "${body.name}" already exists`);
      const rows = await db.query<ProjectRow>(
        'insert into projects (id, team, name, compose, repo, branch, approval, require_signed, base_domain) values ($1, $2, $3, $4, $5, $6, $7, $8, $9) returning *',
        [newId('project'), auth.team, body.name, stored === null ? null : JSON.stringify(stored), body.repo ?? null, body.branch ?? null, body.approval ?? 'auto', body.require_signed ?? false, body.base_domain ?? null],
      );
      return toProject(rows[0]!);
    },
  }),
  route({
    method: 'GET', url: '/v1/projects', summary: 'List projects (Compose environment values shown as *** unless reveal=true with an admin-scoped token)', query: revealListQuery,
    async handler({ db }, { auth, query }) {
      const reveal = revealAllowed(auth, query.reveal);
      return listPage(db, { table: 'projects', where: 'team = $1', params: [auth.team] }, query, (r: ProjectRow) => projectView(r, reveal));
    },
  }),
  route({
    method: 'GET', url: '/v1/projects/:project', summary: 'Read a project (id or name; Compose environment values shown as *** unless reveal=true with an admin-scoped token)', query: revealQuery,
    async handler({ db }, { auth, params, query }) {
      const project = await findProject(db, auth.team, params.project!);
      return projectView(project, revealAllowed(auth, query.reveal));
    },
  }),
  route({
    method: 'PATCH', url: '/v1/projects/:project', body: updateProjectBody, scope: 'admin',
    summary: "Change a project's settings {base_domain?}: a field left out keeps its value, null clears it (base_domain: its envs' hostnames are <env>.<project>.<base>; null: the team's)",
    async handler({ db }, { auth, body, params }) {
      const project = await findProject(db, auth.team, params.project!);
      return db.tx(async (tx) => {
        const rows = await tx.query<ProjectRow>('update projects set base_domain = case when $3 then $2 else base_domain end where id = $1 returning *', [project.id, body.base_domain ?? null, body.base_domain !== undefined]);
        // Audit: who changed what (the edge sweep moves the envs' hostnames on its next pass).
        await appendEvent(tx, { team: auth.team, subject: `project:${project.id}`, type: 'project.changed', data: { fields: Object.keys(body).sort(), token: auth.tokenId, base_domain: rows[0]!.base_domain } });
        return projectView(rows[0]!, false);
      });
    },
  }),
  route({
    method: 'POST', url: '/v1/projects/:project/deploy', summary: 'Deploy a Compose spec to an env (202 {deployment, env})', body: deployBody, status: 202, bodyLimit: COMPOSE_BODY_LIMIT,
    async handler({ db, bus, specs }, { auth, body, params }) {
      if (body.source) throw new DenvError('BAD_REQUEST', 'source: deploy-from-source is not available yet; send compose');
      if (body.target?.cloud) throw new DenvError('BAD_REQUEST', 'target.cloud: clouds are not available yet');
      const project = await findProject(db, auth.team, params.project!);
      const compose = body.compose ?? (project.compose as Record<string, unknown> | null);
      if (!compose) throw new DenvError('BAD_REQUEST', 'compose: required (the project has no default compose)');
      const spec = await specs.load(compose);
      const envelopes = checkSignedDeploy(project, spec, body);
      const warm = body.warm !== undefined ? splitCommand(body.warm, 'warm') : null;
      const out = await db.tx(async (tx) => {
        const { env, deployment: dep } = await requestDeploy(tx, {
          team: auth.team, project: project.id, envName: body.env, stage: body.env === 'production' ? 'production' : 'preview',
          params: { spec, warm, target: body.target ?? null, ...(envelopes.length > 0 ? { envelopes } : {}) },
        });
        return { deployment: toDeployment(dep), env: toEnv(env) };
      });
      bus.emit('kick');
      return out;
    },
  }),
];
