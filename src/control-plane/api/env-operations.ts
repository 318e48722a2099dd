/**
 * The data operations on an env (issue 3): snapshot, fork, rollback, verify, move (issue 14), and DELETE (destroy).
 * Each checks what it can before writing anything, then creates its deployment (202
 * `{deployment, env}`; for fork `env` is the new env) in one transaction and kicks the engine.
 */
import { OPERATION_FROM } from '../lifecycle/state-machine.js';
import { emptyBody, forkBody, moveBody, rollbackBody, verifyBody } from '../../contracts/api.js';
import { DenvError } from '../../contracts/errors.js';
import { runAction } from './env-lifecycle.js';
import { createDeployment } from '../operations/create-deployment.js';
import { assertKindOnTarget } from '../operations/kinds.js';
import { loadVersion, type VersionRecord } from '../operations/versions.js';
import type { Db } from '../store/db.js';
import { iso, toDeployment, toEnv, type EnvRow } from '../store/rows.js';
import { snapshotPrunedAt } from '../store/snapshot-retention.js';
import { assertForkable, createFork, shortSuffix } from './fork-source.js';
import { route, type ApiContext } from './route.js';

/** The env statuses each operation may start from. (These operations do not move the env's
 *  lifecycle status, except fork, which creates a new env, and destroy, via the teardown action.) */
/** Which statuses each operation may start from: the lifecycle table's `OPERATION_FROM`. */
export const OPERABLE_FROM = OPERATION_FROM;

/** Check and create an operation in one transaction, then wake the engine: a refused request
 *  writes nothing. */
async function startOperation<T>({ db, bus }: Pick<ApiContext, 'db' | 'bus'>, work: (tx: Db) => Promise<T>): Promise<T> {
  const out = await db.tx(work);
  bus.emit('kick');
  return out;
}

/** The env, locked for the rest of the transaction, after checking `kind` may start from its status. */
async function operableEnv(db: Db, team: string, ref: string, kind: keyof typeof OPERABLE_FROM): Promise<EnvRow> {
  const env = (await db.query<EnvRow>('select * from envs where team = $1 and id = $2 for update', [team, ref]))[0];
  if (!env) throw new DenvError('NOT_FOUND', `env "${ref}" not found`);
  // The target first: a Kubernetes env's answer is that it cannot, whatever its status or spec.
  assertKindOnTarget(kind, env.target, env.name);
  const allowed: readonly string[] = OPERABLE_FROM[kind];
  if (!allowed.includes(env.status)) throw new DenvError('CONFLICT', `cannot ${kind} env ${env.name} (${env.id}): it is ${env.status}; ${kind} needs ${allowed.join(' or ')}`);
  return env;
}

async function currentVersion(db: Db, env: EnvRow, what: string): Promise<VersionRecord> {
  const version = env.current_version ? await loadVersion(db, env.current_version) : undefined;
  if (!version) throw new DenvError('CONFLICT', `env ${env.name} (${env.id}) has no current version to ${what}`);
  return version;
}

/** The host a move goes to: a host of the team that is not removed, by id or (unique) name. */
async function moveTarget(db: Db, team: string, ref: string): Promise<{ id: string; name: string; drained: boolean; cluster: boolean }> {
  const rows = await db.query<{ id: string; name: string; drained: boolean; cluster: boolean }>(
    "select id, name, drained_at is not null as drained, coalesce(facts->'runtimes' ? 'kubernetes', false) as cluster from hosts where team = $1 and (id = $2 or name = $2) and status <> 'removed'",
    [team, ref],
  );
  if (rows.length === 0) throw new DenvError('NOT_FOUND', `host "${ref}" not found in this team`);
  if (rows.length > 1) throw new DenvError('CONFLICT', `${rows.length} hosts are named "${ref}": give the host's id (${rows.map((r) => r.id).join(', ')})`);
  return rows[0]!;
}

/** The rollback target: `ref` is a version id or the version's number in this env. 409 with the
 *  reason unless it is a healthy snapshot of this env. */
async function rollbackTarget(db: Db, env: EnvRow, ref: string | number): Promise<VersionRecord> {
  const rows = typeof ref === 'number'
    ? await db.query<VersionRecord>('select id, env, number, spec, healthy, snapshot from versions where env = $1 and number = $2', [env.id, ref])
    : await db.query<VersionRecord>('select id, env, number, spec, healthy, snapshot from versions where id = $1 and env = $2', [ref, env.id]);
  const v = rows[0];
  // Looked up within the env: a version of any other env (another team's included) is simply not
  // found here, and the message names nothing but what the caller sent and its own env.
  if (!v) throw new DenvError('CONFLICT', `cannot roll back to version ${ref}: env ${env.id} has no such version`);
  if (!v.healthy) throw new DenvError('CONFLICT', `cannot roll back to version ${v.id} (#${v.number}): it is not healthy (the operation that created it did not succeed)`);
  if (!v.snapshot) throw new DenvError('CONFLICT', `cannot roll back to version ${v.id} (#${v.number}): it has no snapshot`);
  const prunedAt = await snapshotPrunedAt(db, v.id);
  if (prunedAt) throw new DenvError('CONFLICT', `cannot roll back to version ${v.id} (#${v.number}): its snapshot was pruned at ${iso(prunedAt)} (snapshot retention keeps the current and the latest healthy versions; see \`denv env snapshots ${env.id}\`)`);
  return v;
}

export const envOperationRoutes = [
  route({
    method: 'POST', url: '/v1/envs/:env/snapshot', summary: 'Snapshot the env (services paused, datasets snapshotted) as a new version (202)', body: emptyBody.optional(), status: 202,
    async handler({ db, bus }, { auth, params }) {
      return startOperation({ db, bus }, async (tx) => {
        const env = await operableEnv(tx, auth.team, params.env!, 'snapshot');
        await currentVersion(tx, env, 'snapshot');
        const dep = await createDeployment(tx, { team: auth.team, env: env.id, kind: 'snapshot', params: {} });
        return { deployment: toDeployment(dep), env: toEnv(env) };
      });
    },
  }),
  route({
    method: 'POST', url: '/v1/envs/:env/fork', summary: "Fork the env's current version (its snapshot) into a new env on the same host (202; env is the new env)", body: forkBody.optional(), status: 202,
    async handler({ db, bus }, { auth, params, body }) {
      return startOperation({ db, bus }, async (tx) => {
        const env = await operableEnv(tx, auth.team, params.env!, 'fork');
        const version = await currentVersion(tx, env, 'fork');
        await assertForkable(tx, version);
        const fork = await createFork(tx, { team: auth.team, project: env.project, name: body?.name ?? `${env.name}-fork-${shortSuffix()}`, stage: 'fork', version });
        return { deployment: toDeployment(fork.deployment), env: toEnv(fork.env) };
      });
    },
  }),
  route({
    method: 'POST', url: '/v1/envs/:env/rollback', summary: 'Restore the env, data included, to a healthy snapshot version of it (202; 409 says why a version is refused)', body: rollbackBody, status: 202,
    async handler({ db, bus }, { auth, params, body }) {
      return startOperation({ db, bus }, async (tx) => {
        const env = await operableEnv(tx, auth.team, params.env!, 'rollback');
        const target = await rollbackTarget(tx, env, body.version);
        const dep = await createDeployment(tx, { team: auth.team, env: env.id, kind: 'rollback', params: { version: target.id } });
        return { deployment: toDeployment(dep), env: toEnv(env) };
      });
    },
  }),
  route({
    method: 'POST', url: '/v1/envs/:env/verify', summary: 'Freeze the agent service, collect its output, snapshot, grade it in a fork (202)', body: verifyBody.optional(), status: 202,
    async handler({ db, bus }, { auth, params, body }) {
      return startOperation({ db, bus }, async (tx) => {
        const env = await operableEnv(tx, auth.team, params.env!, 'verify');
        const version = await currentVersion(tx, env, 'verify');
        if (!version.spec.agent) throw new DenvError('BAD_REQUEST', `x-denv.agent.service: required for verify (the spec of the current version ${version.id} has none)`);
        if (!version.spec.verifier) throw new DenvError('BAD_REQUEST', `x-denv.verifier: required for verify (the spec of the current version ${version.id} has none)`);
        const dep = await createDeployment(tx, { team: auth.team, env: env.id, kind: 'verify', params: { resume: body?.resume ?? false } });
        return { deployment: toDeployment(dep), env: toEnv(env) };
      });
    },
  }),
  route({
    method: 'POST', url: '/v1/envs/:env/move', summary: "Move the env, data included, to another host of the team (202): snapshot, transfer, start there, switch, retire the old copy", body: moveBody, status: 202,
    async handler({ db, bus }, { auth, params, body }) {
      return startOperation({ db, bus }, async (tx) => {
        const env = await operableEnv(tx, auth.team, params.env!, 'move');
        await currentVersion(tx, env, 'move');
        const host = await moveTarget(tx, auth.team, body.to);
        if (host.id === env.host) throw new DenvError('CONFLICT', `env ${env.name} (${env.id}) already runs on host ${host.name} (${host.id})`);
        if (host.drained) throw new DenvError('CONFLICT', `host ${host.name} (${host.id}) is drained: it takes no env (\`denv hosts undrain ${host.id}\`)`);
        if (host.cluster) throw new DenvError('CONFLICT', `host ${host.name} (${host.id}) is a Kubernetes cluster agent: an env moves between hosts with datasets`);
        const dep = await createDeployment(tx, { team: auth.team, env: env.id, kind: 'move', params: { to: host.id } });
        return { deployment: toDeployment(dep), env: toEnv(env) };
      });
    },
  }),
  route({
    method: 'DELETE', url: '/v1/envs/:env', summary: 'Destroy the env: processes, datasets, snapshots and ports on its host (the teardown action; 202)', status: 202,
    handler: (ctx, { auth, params }) => runAction(ctx, auth.team, params.env!, 'teardown'),
  }),
];
