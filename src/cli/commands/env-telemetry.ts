/**
 * Telemetry of an env from the terminal (DESIGN §12): `denv env status <env>` (live status per
 * workload, host, allowed actions), `denv env logs <env> [-f]` (the last lines of each workload;
 * with -f, new lines as they are printed, until Ctrl-C), `denv env metrics <env>` (CPU, memory
 * and uptime per service over a window).
 */
import { InvalidArgumentError, type Command } from 'commander';
import type { LogLine, WorkloadUptime } from '../../contracts/telemetry.js';
import { parseDuration } from '../../contracts/duration.js';
import { seg } from '../client.js';
import { clientFor, optionsOf } from '../config.js';
import { formatLogLine, formatMetrics, formatStatusView, type Series, type StatusView } from '../format-telemetry.js';
import { examples, note, say } from '../help.js';
import { toJson } from '../output.js';
import { onShutdown } from '../signals.js';
import { ENV_ARG_DESCRIPTION, resolveEnvId } from '../env-ref.js';

function parseLines(value: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value) || n < 1 || n > 200) throw new InvalidArgumentError('expected a number of lines from 1 to 200');
  return n;
}

function parseWindow(value: string): string {
  const ms = parseDuration(value);
  if (ms === null || ms <= 0) throw new InvalidArgumentError('expected a duration such as 15m or 1h');
  return value;
}

export function registerEnvTelemetry(env: Command): void {
  env
    .command('status')
    .description('live status of an env: each workload ready or not, pid, restarts, last exit reason (e.g. OOMKilled), volume usage')
    .argument('<env>', ENV_ARG_DESCRIPTION)
    .option('--refresh', 'ask the agent to probe now instead of showing the last status it pushed')
    .option('--json', 'print the status as JSON')
    .addHelpText('after', examples('denv env status env_0123abcd', 'denv env status shop/production --refresh --json'))
    .action(async (id: string, _o: unknown, cmd: Command) => {
      const opts = optionsOf<{ json?: boolean; refresh?: boolean }>(cmd);
      const client = clientFor(cmd);
      const view = await client.get<StatusView>(`/v1/envs/${seg(await resolveEnvId(client, id))}/status`, { refresh: opts.refresh ? 'true' : undefined });
      say(opts.json ? toJson(view) : formatStatusView(view, Date.now()));
    });

  env
    .command('logs')
    .description('the last lines each workload of an env printed (at most 200 each); -f follows new lines until Ctrl-C')
    .argument('<env>', ENV_ARG_DESCRIPTION)
    .option('-f, --follow', 'keep printing new lines as the services print them')
    .option('--service <name>', 'only this service')
    .option('--lines <n>', 'lines per workload (1-200)', parseLines, 200)
    .option('--json', 'one JSON object per line ({service, version, at, text})')
    .addHelpText('after', examples('denv env logs env_0123abcd', 'denv env logs shop/production -f --service web --lines 20'))
    .action(async (id: string, _o: unknown, cmd: Command) => {
      const opts = optionsOf<{ follow?: boolean; service?: string; lines: number; json?: boolean }>(cmd);
      const client = clientFor(cmd);
      const query = { service: opts.service, lines: opts.lines };
      const envId = await resolveEnvId(client, id);
      const print = (l: LogLine, many: boolean) => say(opts.json ? JSON.stringify(l) : formatLogLine(l, many));
      if (!opts.follow) {
        const page = await client.get<{ items: LogLine[]; error: string | null }>(`/v1/envs/${seg(envId)}/logs`, query);
        if (page.error) note(`note: the agent did not answer (${page.error}); showing the lines stored earlier`);
        const many = new Set(page.items.map((l) => l.service)).size > 1;
        for (const l of page.items) print(l, many);
        return;
      }
      const shutdown = onShutdown();
      try {
        const path = `/v1/envs/${seg(envId)}/logs/stream?lines=${opts.lines}${opts.service ? `&service=${encodeURIComponent(opts.service)}` : ''}`;
        // Several services: prefix every line (which ones will speak is not known in advance).
        const many = opts.service === undefined;
        for await (const msg of client.events(path, shutdown.signal)) {
          if (msg.event === 'line') print(JSON.parse(msg.data) as LogLine, many);
          else if (msg.event === 'notice') note(`note: ${(JSON.parse(msg.data) as { message: string }).message}`);
        }
      } catch (err) {
        if (!shutdown.signal.aborted) throw err;
      } finally {
        shutdown.dispose();
      }
    });

  env
    .command('metrics')
    .description('CPU, memory and uptime of each service of an env over a window')
    .argument('<env>', ENV_ARG_DESCRIPTION)
    .option('--window <duration>', 'how far back (e.g. 15m, 1h)', parseWindow, '15m')
    .option('--service <name>', 'only this service')
    .option('--json', 'print {metrics, uptime} as JSON')
    .addHelpText('after', examples('denv env metrics env_0123abcd', 'denv env metrics shop/production --window 1h --json'))
    .action(async (id: string, _o: unknown, cmd: Command) => {
      const opts = optionsOf<{ window: string; service?: string; json?: boolean }>(cmd);
      const client = clientFor(cmd);
      const envId = await resolveEnvId(client, id);
      const [metrics, uptime] = await Promise.all([
        client.get<{ window_ms: number; services: Series[] }>(`/v1/envs/${seg(envId)}/metrics`, { window: opts.window, service: opts.service }),
        client.get<{ window_ms: number; services: WorkloadUptime[] }>(`/v1/envs/${seg(envId)}/uptime`, { window: opts.window }),
      ]);
      if (opts.json) return say(toJson({ metrics, uptime }));
      const ups = opts.service ? uptime.services.filter((u) => u.service === opts.service) : uptime.services;
      say(formatMetrics(metrics.services, ups, metrics.window_ms));
    });
}
