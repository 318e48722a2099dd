/**
 * recent_logs of an ECS env (seed 002: "AWS deployments pull from CloudWatch"): the last lines of
 * the env's log group, at most LOG_RING_LINES (200), oldest first. The awslogs driver writes one
 * stream per task (`<prefix>/<container>/<task id>`); the streams written last are read backwards
 * (GetLogEvents from the end) and merged by time, so the cost does not grow with the group's age,
 * as a FilterLogEvents scan from the start would. Read-only.
 */
import { DescribeLogStreamsCommand, GetLogEventsCommand } from '@aws-sdk/client-cloudwatch-logs';
import { LOG_LINE_MAX_CHARS, LOG_RING_LINES } from '../../../contracts/telemetry.js';
import { awsCall, awsCallExpecting } from './aws-call.js';
import type { AwsClients } from './aws-clients.js';
import type { EcsRunPlan } from './ecs-plan.js';

/** Streams read: the current task's and a few it replaced (a crash loop's reasons included). */
export const STREAMS_READ = 5;

export interface EcsLogLine {
  readonly at: string;
  /** The stream (`<container>/<container>/<task id>`): which task printed it. */
  readonly stream: string;
  readonly text: string;
}

const cut = (text: string) => (text.length > LOG_LINE_MAX_CHARS ? `${text.slice(0, LOG_LINE_MAX_CHARS)}…` : text);

export async function ecsLogs(aws: AwsClients, plan: EcsRunPlan, lines: number, signal?: AbortSignal): Promise<EcsLogLine[]> {
  const limit = Math.max(0, Math.min(LOG_RING_LINES, Math.floor(lines)));
  if (limit === 0) return [];
  const opts = { abortSignal: signal };
  const logGroupName = plan.logGroup;
  const streams = await awsCallExpecting('logs:DescribeLogStreams', ['ResourceNotFoundException'], () =>
    aws.logs.send(new DescribeLogStreamsCommand({ logGroupName, orderBy: 'LastEventTime', descending: true, limit: STREAMS_READ }), opts),
  );
  if (!('ok' in streams)) return [];
  const events: { readonly ts: number; readonly seq: number; readonly line: EcsLogLine }[] = [];
  for (const s of streams.ok.logStreams ?? []) {
    const logStreamName = s.logStreamName;
    if (!logStreamName) continue;
    const out = await awsCall('logs:GetLogEvents', () => aws.logs.send(new GetLogEventsCommand({ logGroupName, logStreamName, startFromHead: false, limit }), opts));
    for (const e of out.events ?? []) {
      const ts = e.timestamp ?? 0;
      events.push({ ts, seq: events.length, line: { at: new Date(ts).toISOString(), stream: logStreamName, text: cut((e.message ?? '').replace(/\n$/, '')) } });
    }
  }
  events.sort((a, b) => a.ts - b.ts || a.seq - b.seq);
  return events.slice(-limit).map((e) => e.line);
}
