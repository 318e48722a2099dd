/**
 * `POST /v1/sandboxes` (DESIGN §11), two forms:
 *   - `{image?, command?, env?, ports?}`: a one-service env (service `sandbox`) of stage `sandbox`
 *     in the team's `sandboxes` project, deployed by the `deploy` kind; with no image the
 *     command runs as a host process;
 *   - `{from_version}`: a fork (the `fork` kind) of a healthy snapshot version, stage `sandbox`.
 * Both answer 202 `{deployment, env}` with the new env; sandboxes are listed by GET /v1/envs.
 */
import { sandboxBody } from '../../contracts/api.js';
import { DenvError } from '../../contracts/errors.js';
import { newId } from '../../contracts/ids.js';
import { parseSpec } from '../../contracts/spec.js';
import { requestDeploy } from '../lifecycle/request-deploy.js';
import type { VersionRecord } from '../operations/versions.js';
import type { Db } from '../store/db.js';
import { toDeployment, toEnv } from '../store/rows.js';
import { assertForkable, createFork, shortSuffix } from './fork-source.js';
import { route } from './route.js';

export const SANDBOX_PROJECT = 'sandboxes';

/** The team's `sandboxes` project, created on first use (safe against a concurrent first use). */
async function sandboxProject(db: Db, team: string): Promise<string> {
  await db.query("insert into projects (id, team, name, approval) values ($1, $2, $3, 'auto') on conflict (team, name) do nothing", [newId('project'), team, SANDBOX_PROJECT]);
  return (await db.query<{ id: string }>('select id from projects where team = $1 and name = $2', [team, SANDBOX_PROJECT]))[0]!.id;
}

export const sandboxRoutes = [
  route({
    method: 'POST', url: '/v1/sandboxes', summary: 'Start a sandbox: {image?, command?, env?, ports?} (one service) or {from_version} (a fork); 202 {deployment, env}', body: sandboxBody, status: 202,
    async handler({ db, bus }, { auth, body }) {
      const name = `sandbox-${shortSuffix()}`;
      const out = await db.tx(async (tx) => {
        if (body.from_version !== undefined) {
          const extra = (['image', 'command', 'env', 'ports'] as const).filter((k) => body[k] !== undefined);
          if (extra.length > 0) throw new DenvError('BAD_REQUEST', `from_version: cannot be combined with ${extra.join(', ')} (a fork runs the version's own spec)`);
          const version = (await tx.query<VersionRecord & { project: string }>(
            'select v.id, v.env, v.number, v.spec, v.healthy, v.snapshot, e.project from versions v join envs e on e.id = v.env where v.id = $1 and e.team = $2',
            [body.from_version, auth.team],
          ))[0];
          if (!version) throw new DenvError('NOT_FOUND', `version "${body.from_version}" not found`);
          await assertForkable(tx, version);
          return createFork(tx, { team: auth.team, project: version.project, name, stage: 'sandbox', version });
        }
        if (body.image === undefined && body.command === undefined) {
          throw new DenvError('BAD_REQUEST', 'image: an image or a command is required (or from_version to fork a version)');
        }
        const spec = parseSpec({
          services: {
            sandbox: {
              ...(body.image !== undefined ? { image: body.image } : {}),
              ...(body.command !== undefined ? { command: body.command } : {}),
              ...(body.env !== undefined ? { environment: body.env } : {}),
              ...(body.ports !== undefined ? { ports: body.ports } : {}),
            },
          },
        });
        const project = await sandboxProject(tx, auth.team);
        return requestDeploy(tx, { team: auth.team, project, envName: name, stage: 'sandbox', params: { spec, warm: null, target: null } });
      });
      bus.emit('kick');
      return { deployment: toDeployment(out.deployment), env: toEnv(out.env) };
    },
  }),
];
