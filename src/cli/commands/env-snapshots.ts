/**
 * `denv env snapshots <env>`: the env's snapshots, newest first — version, when, whether snapshot
 * retention keeps it and why, and the bytes it holds on the host (issue 9).
 */
import type { Command } from 'commander';
import type { EnvSnapshotList } from '../../contracts/snapshots.js';
import { seg } from '../client.js';
import { clientFor, optionsOf } from '../config.js';
import { examples, note, say } from '../help.js';
import { formatTable, toJson } from '../output.js';
import { formatBytes } from '../format-telemetry.js';
import { ENV_ARG_DESCRIPTION, resolveEnvId } from '../env-ref.js';

export function snapshotRows(list: EnvSnapshotList): string[][] {
  return list.items.map((s) => [
    s.number === null ? '—' : `#${s.number}`,
    s.snapshot,
    s.created_at ?? '—',
    s.kept ? `kept: ${s.reasons.join(', ')}` : s.pruned_at ? 'pruned' : 'not kept',
    `${formatBytes(s.bytes)}${s.datasets?.some((d) => d.truncated) ? '+' : ''}`,
    s.datasets?.map((d) => `${d.name}=${formatBytes(d.bytes)}`).join(' ') || '—',
  ]);
}

export function registerEnvSnapshots(env: Command): void {
  env
    .command('snapshots')
    .description('list the snapshots of an env: version, created, kept by retention and why, bytes on the host')
    .argument('<env>', ENV_ARG_DESCRIPTION)
    .option('--json', 'print the list as JSON ({items, next, keep_recent, total_bytes, error})')
    .addHelpText('after', examples('denv env snapshots env_0123abcd', 'denv env snapshots shop/production --json'))
    .action(async (id: string, _o: unknown, cmd: Command) => {
      const opts = optionsOf<{ json?: boolean }>(cmd);
      const client = clientFor(cmd);
      const list = await client.get<EnvSnapshotList>(`/v1/envs/${seg(await resolveEnvId(client, id))}/snapshots`);
      if (opts.json) return say(toJson(list));
      if (list.error) note(`note: no sizes (${list.error})`);
      if (list.items.length === 0) return say('no snapshots: `denv env snapshot <env>` takes one (deploys take one too)');
      say(formatTable(['version', 'snapshot', 'created', 'retention', 'bytes', 'datasets'], snapshotRows(list)));
      say(`total ${formatBytes(list.total_bytes)}; retention keeps the current version and the ${list.keep_recent} latest healthy ones, and any a fork or an operation needs`);
    });
}
