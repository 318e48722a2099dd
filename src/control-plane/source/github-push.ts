/**
 * What a GitHub `push` does to a project (DESIGN "Source", seed 002's auto-upgrade): a push to the
 * project's default branch, when auto_upgrade is on, deploys that commit to `production`; anything
 * else (another branch, a tag, a deleted branch, auto_upgrade off) is answered and ignored, with
 * the reason. Pure: the payload is GitHub's, checked here only for the fields used.
 */
import { z } from 'zod';

const pushPayload = z.object({
  ref: z.string(),
  after: z.string(),
  deleted: z.boolean().optional(),
  repository: z.object({ full_name: z.string().optional() }).passthrough().optional(),
});

export type PushDecision =
  | { readonly kind: 'deploy'; readonly env: 'production'; readonly sha: string; readonly branch: string }
  | { readonly kind: 'ignore'; readonly reason: string };

export function decidePush(project: { readonly branch: string | null; readonly auto_upgrade: boolean }, payload: unknown): PushDecision {
  const p = pushPayload.safeParse(payload);
  if (!p.success) return { kind: 'ignore', reason: 'not a push payload (no ref and after)' };
  const { ref, after, deleted } = p.data;
  if (!ref.startsWith('refs/heads/')) return { kind: 'ignore', reason: `${ref} is not a branch` };
  const branch = ref.slice('refs/heads/'.length);
  if (deleted || /^0{40}$/.test(after)) return { kind: 'ignore', reason: `branch ${branch} was deleted` };
  if (!/^[0-9a-f]{40}$/.test(after)) return { kind: 'ignore', reason: `"after" is not a commit id` };
  if (project.branch === null) return { kind: 'ignore', reason: 'the project has no default branch' };
  if (branch !== project.branch) return { kind: 'ignore', reason: `push to ${branch}, not to the default branch ${project.branch}` };
  if (!project.auto_upgrade) return { kind: 'ignore', reason: 'auto_upgrade is off for this project' };
  return { kind: 'deploy', env: 'production', sha: after, branch };
}
