/**
 * What GitHub's events do to a project (DESIGN "Source", seed 002's auto-upgrade, issue 13). Pure:
 * the payloads are GitHub's, checked here only for the fields used.
 *
 *   push          to the project's default branch, with auto_upgrade on: deploy that commit to
 *                 `production`; anything else (another branch, a tag, a deletion) is ignored, with why.
 *   pull_request  opened / reopened / synchronize: deploy its head commit to its preview `pr-<n>`;
 *                 closed (merged or not): tear the preview down; other actions are ignored.
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

/** The branch and commit a push payload puts there, or why it puts none (a tag, a deletion, not a push). */
export function pushedCommit(payload: unknown): { readonly branch: string; readonly sha: string } | { readonly reason: string } {
  const p = pushPayload.safeParse(payload);
  if (!p.success) return { reason: 'not a push payload (no ref and after)' };
  const { ref, after, deleted } = p.data;
  if (!ref.startsWith('refs/heads/')) return { reason: `${ref} is not a branch` };
  const branch = ref.slice('refs/heads/'.length);
  if (deleted || /^0{40}$/.test(after)) return { reason: `branch ${branch} was deleted` };
  if (!/^[0-9a-f]{40}$/.test(after)) return { reason: `"after" is not a commit id` };
  return { branch, sha: after };
}

export function decidePush(project: { readonly branch: string | null; readonly auto_upgrade: boolean }, payload: unknown): PushDecision {
  const pushed = pushedCommit(payload);
  if ('reason' in pushed) return { kind: 'ignore', reason: pushed.reason };
  const { branch, sha } = pushed;
  if (project.branch === null) return { kind: 'ignore', reason: 'the project has no default branch' };
  if (branch !== project.branch) return { kind: 'ignore', reason: `push to ${branch}, not to the default branch ${project.branch}` };
  if (!project.auto_upgrade) return { kind: 'ignore', reason: 'auto_upgrade is off for this project' };
  return { kind: 'deploy', env: 'production', sha, branch };
}

const pullRequestPayload = z.object({
  action: z.string(),
  number: z.number().int().positive(),
  pull_request: z.object({ head: z.object({ sha: z.string(), ref: z.string() }) }).passthrough(),
});

export type PullRequestDecision =
  | { readonly kind: 'open'; readonly number: number; readonly sha: string; readonly branch: string }
  | { readonly kind: 'close'; readonly number: number }
  | { readonly kind: 'ignore'; readonly reason: string };

export function decidePullRequest(payload: unknown): PullRequestDecision {
  const p = pullRequestPayload.safeParse(payload);
  if (!p.success) return { kind: 'ignore', reason: 'not a pull_request payload (no action, number and head)' };
  const { action, number, pull_request: pr } = p.data;
  if (action === 'closed') return { kind: 'close', number };
  if (action !== 'opened' && action !== 'reopened' && action !== 'synchronize') return { kind: 'ignore', reason: `pull request action ${action} changes no preview` };
  if (!/^[0-9a-f]{40}$/.test(pr.head.sha)) return { kind: 'ignore', reason: 'the head is not a commit id' };
  return { kind: 'open', number, sha: pr.head.sha, branch: pr.head.ref };
}
