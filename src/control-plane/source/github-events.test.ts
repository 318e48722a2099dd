import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { decidePullRequest, decidePush } from './github-events.js';

// GitHub's own payloads (@octokit/webhooks-examples): a branch push, a tag push, a deleted tag.
const examples = createRequire(import.meta.url)('@octokit/webhooks-examples/api.github.com/index.json') as { name: string; examples: Record<string, unknown>[] }[];
const pushes = examples.find((e) => e.name === 'push')!.examples;
const branchPush = pushes.find((p) => p.ref === 'refs/heads/master' && p.deleted === false)!;
const tagPush = pushes.find((p) => p.ref === 'refs/tags/simple-tag' && p.deleted === false)!;
const deletedTag = pushes.find((p) => p.deleted === true)!;

describe('decidePush', () => {
  const project = { branch: 'master', auto_upgrade: true };
  it('a push to the default branch of an auto-upgrade project deploys that commit to production', () => {
    expect(decidePush(project, branchPush)).toEqual({ kind: 'deploy', env: 'production', sha: branchPush.after, branch: 'master' });
  });
  it('ignores, with the reason: another branch, auto_upgrade off, no default branch, a tag, a deletion, not a push', () => {
    expect(decidePush({ ...project, branch: 'main' }, branchPush)).toEqual({ kind: 'ignore', reason: 'push to master, not to the default branch main' });
    expect(decidePush({ ...project, auto_upgrade: false }, branchPush)).toEqual({ kind: 'ignore', reason: 'auto_upgrade is off for this project' });
    expect(decidePush({ ...project, branch: null }, branchPush)).toEqual({ kind: 'ignore', reason: 'the project has no default branch' });
    expect(decidePush(project, tagPush)).toEqual({ kind: 'ignore', reason: 'refs/tags/simple-tag is not a branch' });
    expect(decidePush(project, { ...deletedTag, ref: 'refs/heads/master' })).toEqual({ kind: 'ignore', reason: 'branch master was deleted' });
    expect(decidePush(project, { zen: 'hi' })).toEqual({ kind: 'ignore', reason: 'not a push payload (no ref and after)' });
    expect(decidePush(project, { ...branchPush, after: 'HEAD~1' })).toEqual({ kind: 'ignore', reason: '"after" is not a commit id' });
  });
});

describe('decidePullRequest', () => {
  const prs = examples.find((e) => e.name === 'pull_request')!.examples as { action: string; number: number; pull_request: { head: { sha: string; ref: string } } }[];
  const of = (action: string) => prs.find((p) => p.action === action)!;
  it('opened, reopened and synchronize deploy the head commit to the PR\'s preview; closed closes it', () => {
    for (const action of ['opened', 'reopened', 'synchronize']) {
      const p = of(action);
      expect(decidePullRequest(p), action).toEqual({ kind: 'open', number: p.number, sha: p.pull_request.head.sha, branch: p.pull_request.head.ref });
    }
    expect(decidePullRequest(of('closed'))).toEqual({ kind: 'close', number: of('closed').number });
  });
  it('other actions and other payloads change nothing', () => {
    expect(decidePullRequest(of('labeled'))).toEqual({ kind: 'ignore', reason: 'pull request action labeled changes no preview' });
    expect(decidePullRequest({ zen: 'hi' })).toEqual({ kind: 'ignore', reason: 'not a pull_request payload (no action, number and head)' });
  });
});
