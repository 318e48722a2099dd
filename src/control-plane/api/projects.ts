import { createProjectBody, deployBody, revealListQuery, revealQuery, updateProjectBody } from '../../contracts/api.js';
import { DenvError } from '../../contracts/errors.js';
import { newId } from '../../contracts/ids.js';
import { splitCommand } from '../../contracts/spec.js';
import { needsSourceBuild } from '../../contracts/spec-service.js';
import { appendEvent } from '../store/events.js';
import { toProject, type ProjectRow } from '../store/rows.js';
import { findProject } from './lookup.js';
import { maskDeep, revealAllowed } from './mask.js';
import { checkSignedDeploy } from './signed-deploy.js';
import { listPage } from './paging.js';
import { COMPOSE_BODY_LIMIT, route } from './route.js';
import type { Compose } from './spec-loader.js';
import { sourceSpec } from './source-spec.js';
import { startDeployment } from './start-deployment.js';


/** A project as read back: its default Compose with secret values masked unless `reveal`. */
function projectView(r: ProjectRow, reveal: boolean) {
  const p = toProject(r);
  return reveal || r.compose === null ? p : { ...p, compose: JSON.stringify(maskDeep(r.compose)) };
}

function composeOf(project: ProjectRow, compose: Compose | undefined): Compose {
  const out = compose ?? (project.compose as Record<string, unknown> | null);
  if (!out) throw new DenvError('BAD_REQUEST', 'compose: required (the project has no default compose)');
  return out;
}

export const projectRoutes = [
  route({
    method: 'POST', url: '/v1/projects', summary: 'Create a project', body: createProjectBody, status: 201, bodyLimit: COMPOSE_BODY_LIMIT,
    async handler({ db, specs, sources }, { auth, body }) {
      if (body.compose !== undefined) await specs.load(body.compose); // validates first: nothing written on bad Compose
      const repo = body.repo === undefined ? null : sources.checkRepo(body.repo);
      sources.checkSettings(body);
      const stored = body.compose ?? null;
      const exists = await db.query('select 1 from projects where team = $1 and name = $2', [auth.team, body.name]);
      if (exists.length > 0) throw new DenvError('CONFLICT', `project "${body.name}" already exists`);
      const rows = await db.query<ProjectRow>(
        `insert into projects (id, team, name, compose, repo, branch, approval, require_signed, base_domain, compose_path, auto_upgrade, webhook_secret, git_credentials, registry_credentials)
         values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14) returning *`,
        [
          newId('project'), auth.team, body.name, stored === null ? null : JSON.stringify(stored), repo, body.branch ?? null, body.approval ?? 'auto', body.require_signed ?? false,
          body.base_domain ?? null, body.compose_path ?? 'compose.yaml', body.auto_upgrade ?? false, body.webhook_secret ?? null, body.git_credentials ? JSON.stringify(body.git_credentials) : null,
          body.registry_credentials ? JSON.stringify(body.registry_credentials) : null,
        ],
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
    summary:
      "Change a project's settings {base_domain?, repo?, branch?, compose_path?, auto_upgrade?, webhook_secret?, git_credentials?, registry_credentials?, planner?}: a field left out keeps its value, null clears it " +
      "(base_domain: its envs' hostnames are <env>.<project>.<base>; null: the team's. planner: {kind: llm, url, model, key} plans the project's kubernetes envs through an OpenAI-compatible endpoint, null the deterministic planner. " +
      'registry_credentials: {server, username, password}, the login AWS ECS pulls its images from a private registry with; webhook_secret, git_credentials, the password and the planner\'s key are never shown again)',
    async handler({ db, sources }, { auth, body, params }) {
      const project = await findProject(db, auth.team, params.project!);
      const repo = body.repo ? sources.checkRepo(body.repo) : body.repo;
      sources.checkSettings(body);
      // Each field: [column, value]; only the fields sent change.
      const changes: [string, unknown][] = [];
      if (body.base_domain !== undefined) changes.push(['base_domain', body.base_domain]);
      if (repo !== undefined) changes.push(['repo', repo]);
      if (body.branch !== undefined) changes.push(['branch', body.branch]);
      if (body.compose_path !== undefined) changes.push(['compose_path', body.compose_path]);
      if (body.auto_upgrade !== undefined) changes.push(['auto_upgrade', body.auto_upgrade]);
      if (body.webhook_secret !== undefined) changes.push(['webhook_secret', body.webhook_secret]);
      if (body.git_credentials !== undefined) changes.push(['git_credentials', body.git_credentials === null ? null : JSON.stringify(body.git_credentials)]);
      if (body.registry_credentials !== undefined) changes.push(['registry_credentials', body.registry_credentials === null ? null : JSON.stringify(body.registry_credentials)]);
      if (body.planner !== undefined) changes.push(['planner', body.planner === null ? null : JSON.stringify(body.planner)]);
      return db.tx(async (tx) => {
        const set = changes.map(([column], i) => `${column} = $${i + 2}`).join(', ');
        const rows = changes.length === 0
          ? await tx.query<ProjectRow>('select * from projects where id = $1', [project.id])
          : await tx.query<ProjectRow>(`update projects set ${set} where id = $1 returning *`, [project.id, ...changes.map(([, v]) => v)]);
        const after = toProject(rows[0]!);
        // Audit: who changed what (the edge sweep moves the envs' hostnames on its next pass); secrets only as "set".
        await appendEvent(tx, {
          team: auth.team, subject: `project:${project.id}`, type: 'project.changed',
          data: { fields: Object.keys(body).sort(), token: auth.tokenId, base_domain: after.base_domain, repo: after.repo, branch: after.branch, compose_path: after.compose_path, auto_upgrade: after.auto_upgrade, webhook_secret: after.webhook_secret, git_credentials: after.git_credentials, registry_credentials: after.registry_credentials, planner: after.planner },
        });
        return projectView(rows[0]!, false);
      });
    },
  }),
  route({
    method: 'POST', url: '/v1/projects/:project/deploy', summary: 'Deploy a Compose spec to an env (202 {deployment, env})', body: deployBody, status: 202, bodyLimit: COMPOSE_BODY_LIMIT,
    async handler({ db, bus, specs, sources }, { auth, body, params }) {
      if (body.source && body.compose !== undefined) throw new DenvError('BAD_REQUEST', 'send compose or source, not both (a source deploy reads the Compose file from the repository)');
      const project = await findProject(db, auth.team, params.project!);
      const spec = body.source ? await sourceSpec(specs, sources, project, body.source) : await specs.load(composeOf(project, body.compose));
      const unbuilt = spec.source ? undefined : Object.keys(spec.services).find((name) => spec.services[name]!.build_command);
      if (unbuilt) throw new DenvError('BAD_REQUEST', `services.${unbuilt}.x-denv.build: builds run in a source deploy's checkout (send source, not compose)`);
      const toBuild = spec.source ? undefined : Object.keys(spec.services).find((name) => needsSourceBuild(name, spec.services[name]!));
      if (toBuild) throw new DenvError('BAD_REQUEST', `services.${toBuild}: has only build: images are built from the linked repository in a source deploy (denv deploy --source); or give an image`);
      const envelopes = checkSignedDeploy(project, spec, body);
      const warm = body.warm !== undefined ? splitCommand(body.warm, 'warm') : null;
      return startDeployment(db, bus, { team: auth.team, project: project.id, envName: body.env, spec, warm, target: body.target ?? null, envelopes });
    },
  }),
];
