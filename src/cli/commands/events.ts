/** `denv events --subject S`: the append-only event log of one subject (`env:<id>`, `dep:<id>` …). */
import type { Command } from 'commander';
import type { DenvEvent, Page } from '../../contracts/domain.js';
import { clientFor, optionsOf, parseNonNegativeInt, parsePositiveInt } from '../config.js';
import { summarizeEvidence } from '../evidence.js';
import { examples, say } from '../help.js';
import { formatTable, toJson } from '../output.js';
import { noteNextPage } from './list-options.js';
import { resolveEnvId } from '../env-ref.js';

export function eventRows(items: readonly DenvEvent[]): string[][] {
  return items.map((e) => [String(e.id), e.at, e.type, summarizeEvidence(e.data, { maxTotal: 120 })]);
}

export function registerEvents(program: Command): void {
  program
    .command('events')
    .description('list the events of a subject, oldest first')
    .requiredOption('--subject <subject>', 'e.g. env:<env id>, env:<project>/<env>, dep:<deployment id>')
    .option('--after <id>', 'only events with an id greater than this', parseNonNegativeInt)
    .option('--limit <n>', 'at most this many events', parsePositiveInt)
    .option('--json', 'print the page as JSON ({items, next})')
    .addHelpText('after', examples('denv events --subject dep:dep_0123abcd', 'denv events --subject env:shop/production', 'denv events --subject env:env_0123abcd --after 120 --limit 20 --json'))
    .action(async (_o: unknown, cmd: Command) => {
      const opts = optionsOf<{ subject: string; after?: number; limit?: number; json?: boolean }>(cmd);
      const client = clientFor(cmd);
      // `env:<project>/<env>` (or an env name) becomes `env:<id>`, the subject events are stored under.
      const subject = opts.subject.startsWith('env:') ? `env:${await resolveEnvId(client, opts.subject.slice(4))}` : opts.subject;
      const page = await client.get<Page<DenvEvent>>('/v1/events', { subject, after: opts.after, limit: opts.limit });
      if (opts.json) return say(toJson(page));
      if (page.items.length === 0) return say(`no events for ${subject}`);
      say(formatTable(['id', 'at', 'type', 'data'], eventRows(page.items)));
      noteNextPage(page);
    });
}
