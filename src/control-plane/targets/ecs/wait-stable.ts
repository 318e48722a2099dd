/**
 * After apply: polls DescribeServices until the service is stable — one deployment left, the
 * PRIMARY, with runningCount == desiredCount (seed 002 sets `running` then) — or until it cannot
 * become so. Read-only, so safe to call again after a restart of the control plane.
 *
 * Outcomes, per STYLE's failed-vs-error: `failed` when the deployment ran and failed (ECS's circuit
 * breaker marked it FAILED, or rolled the service back to another task definition); `timed_out`
 * when it is still in progress at the deadline. An AWS call that fails throws (AwsCallError), and an
 * abort throws the signal's AbortError.
 */
import type { Deployment, Service } from '@aws-sdk/client-ecs';
import { setTimeout as sleep } from 'node:timers/promises';
import type { AwsClients } from './aws-clients.js';
import { describeService } from './describe-service.js';
import type { EcsRunPlan } from './ecs-plan.js';

export type StableResult =
  | { readonly outcome: 'stable'; readonly polls: number; readonly runningCount: number }
  | { readonly outcome: 'failed'; readonly polls: number; readonly reason: string }
  | { readonly outcome: 'timed_out'; readonly polls: number; readonly detail: string };

export interface WaitStableOptions {
  readonly timeoutMs: number;
  readonly signal?: AbortSignal;
  /** Between polls (default 5 s; ECS's own waiter uses 15 s). */
  readonly intervalMs?: number;
  /** The task definition apply registered: a service that ends up running another one (rolled
   *  back, or superseded by a later apply) did not become stable with it. */
  readonly taskDefinitionArn?: string;
}

type Verdict = { readonly outcome: 'stable'; readonly runningCount: number } | { readonly outcome: 'failed'; readonly reason: string } | { readonly outcome: 'waiting'; readonly detail: string };

/** One look at the service: pure, unit-tested. */
export function judgeService(service: Service | null, taskDefinitionArn?: string): Verdict {
  if (!service) return { outcome: 'failed', reason: 'the service does not exist (deleted, or never made)' };
  const deployments: readonly Deployment[] = service.deployments ?? [];
  const primary = deployments.find((d) => d.status === 'PRIMARY');
  const ours = taskDefinitionArn ? deployments.find((d) => d.taskDefinition === taskDefinitionArn) : primary;
  if (ours?.rolloutState === 'FAILED') return { outcome: 'failed', reason: ours.rolloutStateReason ?? `deployment ${ours.id} failed` };
  if (taskDefinitionArn && primary && primary.taskDefinition !== taskDefinitionArn) {
    return { outcome: 'failed', reason: `the service now runs ${primary.taskDefinition} (rolled back or superseded), not ${taskDefinitionArn}` };
  }
  if (primary && deployments.length === 1 && primary.runningCount === primary.desiredCount) return { outcome: 'stable', runningCount: primary.runningCount ?? 0 };
  const event = service.events?.[0]?.message;
  const progress = primary ? `${primary.runningCount ?? 0}/${primary.desiredCount ?? 0} running, ${primary.pendingCount ?? 0} pending, ${deployments.length} deployment(s)` : 'no primary deployment';
  return { outcome: 'waiting', detail: event ? `${progress}; last event: ${event}` : progress };
}

export async function waitStable(aws: AwsClients, plan: EcsRunPlan, o: WaitStableOptions): Promise<StableResult> {
  const deadline = Date.now() + o.timeoutMs;
  const intervalMs = o.intervalMs ?? 5000;
  for (let polls = 1; ; polls++) {
    o.signal?.throwIfAborted();
    const verdict = judgeService(await describeService(aws, plan, o.signal), o.taskDefinitionArn);
    if (verdict.outcome !== 'waiting') return { ...verdict, polls };
    const left = deadline - Date.now();
    if (left <= 0) return { outcome: 'timed_out', polls, detail: verdict.detail };
    await sleep(Math.min(intervalMs, left), undefined, { signal: o.signal });
  }
}
