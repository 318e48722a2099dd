/**
 * Record a deploy request (lifecycle/request-deploy.ts: the env moves to planning, or the request
 * queues behind the one running) and wake the engine. Shared by POST /v1/projects/{p}/deploy and
 * the GitHub push webhook. A source deploy also gets seed 000's `deployment.source` event on its
 * deployment's subject, in the same transaction.
 */
import type { EnvStage } from '../../contracts/domain.js';
import type { Envelope } from '../../contracts/envelope.js';
import type { Spec } from '../../contracts/spec.js';
import type { Bus } from '../bus.js';
import { requestDeploy } from '../lifecycle/request-deploy.js';
import type { Db } from '../store/db.js';
import { appendEvent } from '../store/events.js';
import { toDeployment, toEnv } from '../store/rows.js';

export interface DeployRequestInput {
  readonly team: string;
  readonly project: string;
  readonly envName: string;
  readonly spec: Spec;
  readonly warm: readonly string[] | null;
  readonly target: { readonly host?: string; readonly cloud?: string; readonly aws_account?: string } | null;
  readonly envelopes?: readonly Envelope[];
  /** Run first in the same transaction (a preview's fork, queued ahead of its deploy). */
  readonly before?: (tx: Db) => Promise<void>;
  /** The env's stage when this request creates it (default: production for `production`, else preview). */
  readonly stage?: EnvStage;
}

export async function startDeployment(db: Db, bus: Bus, r: DeployRequestInput) {
  const out = await db.tx(async (tx) => {
    await r.before?.(tx);
    const { env, deployment: dep } = await requestDeploy(tx, {
      team: r.team, project: r.project, envName: r.envName, stage: r.stage ?? (r.envName === 'production' ? 'production' : 'preview'),
      params: { spec: r.spec, warm: r.warm, target: r.target, ...(r.envelopes && r.envelopes.length > 0 ? { envelopes: [...r.envelopes] } : {}) },
    });
    const source = r.spec.source;
    if (source) await appendEvent(tx, { team: r.team, subject: `dep:${dep.id}`, type: 'deployment.source', data: { sha: source.commit, branch: source.branch, repo: source.repo } });
    return { deployment: toDeployment(dep), env: toEnv(env) };
  });
  bus.emit('kick');
  return out;
}
