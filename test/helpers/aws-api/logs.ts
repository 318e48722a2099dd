/**
 * CloudWatch Logs (AWS JSON 1.1, `Logs_20140328.<Op>`) in one account of the local AWS API server.
 * Timestamps are epoch milliseconds, as Logs' longs are.
 */
import { arnIn, type AccountContext } from './account.js';
import { bad, now } from './codec.js';
import type { FakeLogStream } from './types.js';

export function logsApi(ctx: AccountContext): Record<string, (i: any) => unknown> {
  const { state } = ctx;
  const arn = (service: string, resource: string) => arnIn(ctx, service, resource);

  const groupOf = (name: unknown) => {
    const g = state.logGroups.get(String(name));
    if (!g) throw bad('ResourceNotFoundException', 'The specified log group does not exist.');
    return g;
  };
  const logs: Record<string, (i: any) => unknown> = {
    CreateLogGroup(i) {
      if (typeof i.logGroupName !== 'string' || !/^[.\-_/#A-Za-z0-9]{1,512}$/.test(i.logGroupName)) throw bad('InvalidParameterException', '1 validation error detected: Value at \'logGroupName\' failed to satisfy constraint');
      if (state.logGroups.has(i.logGroupName)) throw bad('ResourceAlreadyExistsException', 'The specified log group already exists');
      state.logGroups.set(i.logGroupName, { name: i.logGroupName, createdAt: now(), streams: new Map(), tags: i.tags ?? {} });
      return {};
    },
    DescribeLogStreams(i) {
      const g = groupOf(i.logGroupName);
      if (i.orderBy === 'LastEventTime' && i.logStreamNamePrefix) throw bad('InvalidParameterException', 'Cannot order by LastEventTime with a logStreamNamePrefix.');
      const limit = i.limit ?? 50;
      if (limit < 1 || limit > 50) throw bad('InvalidParameterException', 'limit must be between 1 and 50');
      const last = (s: FakeLogStream) => s.events.at(-1)?.timestamp ?? 0;
      let streams = [...g.streams.values()].filter((s) => !i.logStreamNamePrefix || s.name.startsWith(i.logStreamNamePrefix));
      streams.sort(i.orderBy === 'LastEventTime' ? (a, b) => last(a) - last(b) : (a, b) => (a.name < b.name ? -1 : 1));
      if (i.descending) streams = streams.reverse();
      return {
        logStreams: streams.slice(0, limit).map((s) => ({
          logStreamName: s.name, creationTime: s.createdAt, arn: arn('logs', `log-group:${g.name}:log-stream:${s.name}`), storedBytes: 0,
          ...(s.events.length > 0 ? { firstEventTimestamp: s.events[0]!.timestamp, lastEventTimestamp: last(s), lastIngestionTime: s.events.at(-1)!.ingestionTime } : {}),
        })),
      };
    },
    GetLogEvents(i) {
      const g = groupOf(i.logGroupName);
      const s = g.streams.get(i.logStreamName);
      if (!s) throw bad('ResourceNotFoundException', 'The specified log stream does not exist.');
      const limit = i.limit ?? 10000;
      if (limit < 1 || limit > 10000) throw bad('InvalidParameterException', 'limit must be between 1 and 10000');
      const events = i.startFromHead ? s.events.slice(0, limit) : s.events.slice(-limit);
      return { events, nextForwardToken: `f/${s.events.length}`, nextBackwardToken: `b/${Math.max(0, s.events.length - events.length)}` };
    },
  };

  return logs;
}
