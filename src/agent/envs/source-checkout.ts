/**
 * The checkout a source deploy's process services run in (issue 13):
 *
 *   <dataDir>/sources/<hash of the address>.git     a bare mirror per repository (root only)
 *   <workloads>/<env>/source/<commit>/               the commit's tree, no .git (readable by the env's users)
 *
 * Made once per commit and env, in a staging directory renamed into place, so a crash never leaves
 * half a tree where a service would start; kept until the env is destroyed (a rollback runs its
 * version's checkout again without fetching). The mirror is fetched only when it lacks the commit.
 * One fetch per mirror at a time (the agent's only git user is this module).
 */
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { chmod, mkdir, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import { DenvError } from '../../contracts/errors.js';
import type { SourceCheckout } from '../../contracts/source.js';
import { GitMirror } from '../../lib/git/mirror.js';
import { parseRepoUrl } from '../../lib/git/repo-url.js';
import { KeyedMutex } from '../../lib/mutex.js';

const mirrors = new KeyedMutex();

/** Where env `env` keeps the checkout of `commit`. */
export function checkoutDir(workloads: string, env: string, commit: string): string {
  return path.join(workloads, env, 'source', commit);
}

/** The checkout of `s.commit` for env `env`, made if missing; AGENT_ERROR when the repository cannot give it. */
export async function ensureCheckout(dirs: { readonly dataDir: string; readonly workloads: string }, env: string, s: SourceCheckout): Promise<string> {
  const dest = checkoutDir(dirs.workloads, env, s.commit);
  if (existsSync(dest)) return dest;
  const url = parseRepoUrl(s.url, { allowFile: s.allow_file });
  if (!url.ok) throw new DenvError('AGENT_ERROR', `source: ${url.message}`);
  const mirrorDir = path.join(dirs.dataDir, 'sources', `${createHash('sha256').update(s.url).digest('hex').slice(0, 24)}.git`);
  const mirror = new GitMirror({ dir: mirrorDir, url: s.url, credentials: s.credentials, allowFile: s.allow_file });
  return mirrors.run(mirrorDir, async () => {
    if (existsSync(dest)) return dest;
    try {
      if (!(await mirror.hasCommit(s.commit))) await mirror.fetch();
      if (!(await mirror.hasCommit(s.commit))) throw new DenvError('AGENT_ERROR', `source: ${s.url} has no commit ${s.commit} (was it force-pushed away?)`);
      const staging = `${dest}.staging`;
      await rm(staging, { recursive: true, force: true });
      await mkdir(path.dirname(dest), { recursive: true, mode: 0o755 });
      await mirror.checkout(s.commit, staging);
      // Readable by the env's services, whatever user they run as; written only by the agent.
      await chmod(staging, 0o755);
      await rename(staging, dest);
      return dest;
    } catch (err) {
      if (err instanceof DenvError && err.code === 'AGENT_ERROR') throw err;
      throw new DenvError('AGENT_ERROR', `source: ${(err as Error).message}`);
    }
  });
}
