/**
 * The `source` field of env.create, env.rollback and env.fork for a version deployed from a
 * repository: the commit, and the project's credentials to fetch it with (read when the command is
 * sent, so credentials changed since the deploy are the ones used). Empty for a Compose deploy.
 */
import type { SourceCheckout } from '../../contracts/source.js';
import type { Spec } from '../../contracts/spec.js';
import type { PhaseContext } from './phase.js';
import type { ProjectRow } from '../store/rows.js';

export async function sourcePayload(ctx: Pick<PhaseContext, 'db' | 'config'>, env: string, spec: Pick<Spec, 'source'>): Promise<{ source?: SourceCheckout }> {
  if (!spec.source) return {};
  const rows = await ctx.db.query<Pick<ProjectRow, 'git_credentials'>>('select p.git_credentials from envs e join projects p on p.id = e.project where e.id = $1', [env]);
  return { source: { url: spec.source.repo, commit: spec.source.commit, credentials: rows[0]?.git_credentials ?? null, allow_file: ctx.config.allowFileRepos } };
}
