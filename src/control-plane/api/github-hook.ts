/**
 * `POST /v1/hooks/github?project=<id or name>` (DESIGN "Source"): GitHub's webhook. No bearer
 * token: the caller proves itself with `X-Hub-Signature-256`, the HMAC-SHA256 of the body's exact
 * bytes under the project's webhook secret, checked in constant time (@octokit/webhooks-methods).
 * A missing or bad signature, an unknown project or one without a secret answer 401 and record
 * nothing (one answer for all four: a caller without the secret learns nothing about projects).
 *
 * Once the signature holds, the delivery is recorded by `X-GitHub-Delivery` before anything
 * happens: a delivery sent again answers its first outcome and starts nothing. One that failed
 * before starting anything (the repository unreachable) is forgotten, so a redelivery retries it.
 * `ping` answers ok;
 * `push` goes through decidePush (source/github-events.ts): a push to the default branch of an
 * auto-upgrade project deploys that commit to production (the env passes through `upgrading`) with
 * `deployment.source {sha, branch, repo}` on the deployment; anything else is answered with why it
 * was ignored. `pull_request` opened/reopened/synchronize deploys the head commit to the preview
 * env `pr-<n>` (forked from production's latest healthy snapshot when new: preview-envs.ts);
 * closed tears it down. A push to a branch with a preview made by hand (`preview-<branch>`)
 * redeploys that preview. Every delivery is audited as `hook.received` on `project:<id>`.
 *
 * The body is read as text in a scope of its own (the signature covers bytes, not a re-serialised
 * object), capped at 1 MiB (GitHub caps payloads at 25 MiB, but a push's is small).
 */
import { verify } from '@octokit/webhooks-methods';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { DenvError } from '../../contracts/errors.js';
import { sourceSpec } from './source-spec.js';
import { decidePullRequest, decidePush, pushedCommit } from '../source/github-events.js';
import { branchPreview, closePreview, openPreview, prPreviewName } from './preview-envs.js';
import { appendEvent } from '../store/events.js';
import type { ProjectRow } from '../store/rows.js';
import type { ApiContext } from './route.js';
import { startDeployment } from './start-deployment.js';

export const HOOK_BODY_LIMIT = 1024 * 1024;
const UNAUTHORIZED = 'the signature (X-Hub-Signature-256) does not match this project\'s webhook secret, or there is no such project with a secret';

function header(req: FastifyRequest, name: string): string | null {
  const v = req.headers[name];
  return typeof v === 'string' && v.length > 0 ? v : null;
}

/** The project `ref` names (id, or a name no other team uses): the webhook knows no team. */
async function projectOf(ctx: ApiContext, ref: string): Promise<ProjectRow | null> {
  const rows = await ctx.db.query<ProjectRow>('select * from projects where id = $1 or name = $1 limit 2', [ref]);
  if (rows.length > 1) throw new DenvError('BAD_REQUEST', `project: several teams have a project named "${ref}": use its id`);
  return rows[0] ?? null;
}

async function handle(ctx: ApiContext, req: FastifyRequest, reply: FastifyReply): Promise<unknown> {
  const query = req.query as Record<string, unknown>;
  const ref = typeof query.project === 'string' ? query.project : null;
  if (!ref || ref.length > 200) throw new DenvError('BAD_REQUEST', 'project: required in the query (?project=<id or name>)');
  const body = typeof req.body === 'string' ? req.body : '';
  const signature = header(req, 'x-hub-signature-256');
  const project = await projectOf(ctx, ref);
  if (!signature || !project?.webhook_secret || !(await verify(project.webhook_secret, body, signature).catch(() => false))) {
    throw new DenvError('UNAUTHORIZED', UNAUTHORIZED);
  }
  const event = header(req, 'x-github-event');
  const delivery = header(req, 'x-github-delivery');
  if (!event || !delivery || delivery.length > 200) throw new DenvError('BAD_REQUEST', 'X-GitHub-Event and X-GitHub-Delivery are required');
  let payload: unknown;
  try {
    payload = JSON.parse(body);
  } catch {
    throw new DenvError('BAD_REQUEST', 'the body is not JSON (set the webhook\'s content type to application/json)');
  }
  // First sight of this delivery, or its earlier outcome.
  const fresh = await ctx.db.query('insert into webhook_deliveries (delivery, project, event) values ($1, $2, $3) on conflict (delivery) do nothing returning delivery', [delivery, project.id, event]);
  if (fresh.length === 0) {
    const seen = await ctx.db.query<{ outcome: unknown }>('select outcome from webhook_deliveries where delivery = $1', [delivery]);
    return { delivery, duplicate: true, outcome: seen[0]?.outcome ?? null };
  }
  const outcome = await act(ctx, project, event, payload).catch(async (err: unknown) => {
    // Nothing was started (the repository unreachable …): forget the delivery, so GitHub's
    // redelivery tries again, and audit the error (GitHub shows it too).
    await ctx.db.query('delete from webhook_deliveries where delivery = $1', [delivery]);
    await appendEvent(ctx.db, { team: project.team, subject: `project:${project.id}`, type: 'hook.received', data: { source: 'github', delivery, event, error: (err as Error).message } });
    throw err;
  });
  await record(ctx, project, delivery, event, outcome);
  if ('deployment' in outcome) reply.status(202);
  return { delivery, ...outcome };
}

async function act(ctx: ApiContext, project: ProjectRow, event: string, payload: unknown): Promise<Record<string, unknown>> {
  if (event === 'ping') return { ignored: 'ping' };
  if (event === 'pull_request') {
    const pr = decidePullRequest(payload);
    if (pr.kind === 'ignore') return { ignored: pr.reason };
    if (pr.kind === 'close') return { closed: await closePreview(ctx, project, prPreviewName(pr.number)) };
    const started = await openPreview(ctx, project, { name: prPreviewName(pr.number), ref: pr.sha, branch: pr.branch });
    return { ...started };
  }
  if (event !== 'push') return { ignored: `event ${event} is not handled` };
  const decision = decidePush(project, payload);
  if (decision.kind === 'ignore') {
    // A push to a branch that has a preview made by hand (denv preview create --ref <branch>) redeploys it.
    const pushed = pushedCommit(payload);
    if ('sha' in pushed) {
      const preview = await branchPreview(ctx.db, project.id, pushed.branch);
      if (preview) return { ...(await openPreview(ctx, project, { name: preview.name, ref: pushed.sha, branch: pushed.branch })) };
    }
    return { ignored: decision.reason };
  }
  const spec = await sourceSpec(ctx.specs, ctx.sources, project, { ref: decision.sha });
  const started = await startDeployment(ctx.db, ctx.bus, {
    team: project.team, project: project.id, envName: decision.env, spec: { ...spec, source: { ...spec.source!, ref: decision.branch, branch: decision.branch } }, warm: null, target: null,
  });
  return { deployment: started.deployment.id, env: started.env.id };
}

async function record(ctx: ApiContext, project: ProjectRow, delivery: string, event: string, outcome: Record<string, unknown>): Promise<void> {
  await ctx.db.query('update webhook_deliveries set outcome = $2 where delivery = $1', [delivery, JSON.stringify(outcome)]);
  await appendEvent(ctx.db, { team: project.team, subject: `project:${project.id}`, type: 'hook.received', data: { source: 'github', delivery, event, ...outcome } });
}

export async function registerGithubHook(app: FastifyInstance, ctx: ApiContext): Promise<void> {
  await app.register(async (scope) => {
    // The exact bytes, as text: the signature covers them.
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('application/json', { parseAs: 'string', bodyLimit: HOOK_BODY_LIMIT }, (_req, text, done) => done(null, text));
    scope.addContentTypeParser('*', { parseAs: 'string', bodyLimit: HOOK_BODY_LIMIT }, (_req, _text, done) =>
      done(new DenvError('BAD_REQUEST', 'expected Content-Type application/json (set it in the webhook\'s settings)'), undefined),
    );
    scope.post('/v1/hooks/github', { bodyLimit: HOOK_BODY_LIMIT }, async (req, reply) => reply.send(await handle(ctx, req, reply)));
  });
}
