/**
 * The control plane's side of source deploys (issue 13): a project's linked repository is fetched
 * into `<dataDir>/sources/<project>.git`, the requested ref resolved to a commit, and the Compose
 * file read at that commit. The env's host fetches the same commit itself (agent
 * envs/source-checkout.ts) with what operations/source-payload.ts sends it, credentials included.
 *
 * One fetch per project at a time; different projects fetch in parallel.
 */
import path from 'node:path';
import { DenvError } from '../../contracts/errors.js';
import type { SourceRef } from '../../contracts/spec.js';
import { checkRef, checkRepoPath, GitMirror } from '../../lib/git/mirror.js';
import { parseRepoUrl } from '../../lib/git/repo-url.js';
import { KeyedMutex } from '../../lib/mutex.js';
import type { ProjectRow } from '../store/rows.js';

export interface SourceOptions {
  /** Where the mirrors live (the control plane's data dir). */
  readonly dataDir: string;
  /** Admit file:// repositories (`denv dev`, `denv server --allow-file-repos`). */
  readonly allowFile: boolean;
}

export class SourceResolver {
  private readonly fetching = new KeyedMutex();

  constructor(readonly o: SourceOptions) {}

  /** `repo` as a project may link it; BAD_REQUEST naming the field otherwise. */
  checkRepo(repo: string): string {
    const parsed = parseRepoUrl(repo, { allowFile: this.o.allowFile });
    if (!parsed.ok) throw new DenvError('BAD_REQUEST', `repo: ${parsed.message}`);
    return parsed.value.url;
  }

  /** A branch name or compose path as a project may set it; BAD_REQUEST naming the field otherwise. */
  checkSettings(s: { readonly branch?: string | null; readonly compose_path?: string | null }): void {
    const branch = s.branch ? checkRef(s.branch) : null;
    if (branch) throw new DenvError('BAD_REQUEST', `branch: ${branch}`);
    const compose = s.compose_path ? checkRepoPath(s.compose_path) : null;
    if (compose) throw new DenvError('BAD_REQUEST', `compose_path: ${compose}`);
  }

  private mirror(project: ProjectRow): GitMirror {
    if (!project.repo) throw new DenvError('BAD_REQUEST', `source: project "${project.name}" has no linked repository (set repo with PATCH /v1/projects/${project.name})`);
    return new GitMirror({ dir: path.join(this.o.dataDir, 'sources', `${project.id}.git`), url: this.checkRepo(project.repo), credentials: project.git_credentials, allowFile: this.o.allowFile });
  }

  /**
   * Fetch the project's repository, resolve `ref` (default: its branch) and read its Compose file
   * there: the commit and the Compose text. REPO_UNAVAILABLE when it cannot be fetched, NOT_FOUND
   * for an unknown ref, BAD_REQUEST when the commit has no Compose file at compose_path.
   */
  async resolve(project: ProjectRow, ref: string | null): Promise<{ source: SourceRef; compose: string }> {
    const mirror = this.mirror(project);
    const name = ref ?? project.branch;
    if (!name) throw new DenvError('BAD_REQUEST', `source.ref: required (project "${project.name}" has no default branch)`);
    return this.fetching.run(project.id, async () => {
      await mirror.fetch();
      const { commit, kind } = await mirror.resolveRef(name);
      const compose = await mirror.readFile(commit, project.compose_path);
      if (compose === null) throw new DenvError('BAD_REQUEST', `source: commit ${commit.slice(0, 12)} of ${project.repo} has no ${project.compose_path} (set compose_path on the project)`);
      return { source: { repo: project.repo!, ref: name, commit, branch: kind === 'branch' ? name : null, compose_path: project.compose_path }, compose };
    });
  }
}
