/**
 * `denv preflight`: post a signed envelope to an agent's standalone `POST /preflight` and print
 * the per-stage table. Exits 0 on `preflight_ok`, 1 otherwise. The envelope is read from a file
 * (`--envelope`, `-` for stdin) or signed on the spot with the `denv sign` options.
 */
import { readFile } from 'node:fs/promises';
import type { Command } from 'commander';
import type { PipelineAnswer } from '../../contracts/envelope.js';
import { CliError } from '../cli-error.js';
import { optionsOf, parseHttpUrl } from '../config.js';
import { addEnvelopeOptions, envelopeFromOptions, type EnvelopeOptions } from '../envelope-options.js';
import { formatStages } from '../format-stages.js';
import { examples, say } from '../help.js';
import { toJson } from '../output.js';

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

export function registerPreflight(program: Command): void {
  const cmd = program.command('preflight').description("check a signed deploy against an agent without deploying (its standalone POST /preflight)");
  addEnvelopeOptions(cmd)
    .requiredOption('--agent <url>', "the agent's standalone address (its config's listen), e.g. http://127.0.0.1:7070", parseHttpUrl)
    .option('--envelope <file>', 'an envelope made by denv sign ("-" reads stdin)')
    .option('--json', 'print the answer as JSON')
    .addHelpText(
      'after',
      examples(
        'denv preflight --agent http://127.0.0.1:7070 --envelope envelope.json',
        'denv sign --key ci.pem --service web --image … --host host-a | denv preflight --agent http://127.0.0.1:7070 --envelope -',
      ),
    )
    .action(async (_o: unknown, c: Command) => {
      const opts = optionsOf<EnvelopeOptions & { agent: string; envelope?: string; json?: boolean }>(c);
      const body = opts.envelope ? (opts.envelope === '-' ? await readStdin() : await readFile(opts.envelope, 'utf8')) : JSON.stringify(await envelopeFromOptions(opts));
      let res: Response;
      try {
        res = await fetch(`${opts.agent}/preflight`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
      } catch (err) {
        throw new CliError('UNREACHABLE', `cannot reach the agent at ${opts.agent}: ${(err as Error).cause instanceof Error ? ((err as Error).cause as Error).message : (err as Error).message}`);
      }
      const answer = (await res.json().catch(() => null)) as (PipelineAnswer & { error?: { code: string; message: string } }) | null;
      if (!answer || answer.error || !Array.isArray(answer.stages)) {
        throw new CliError(answer?.error?.code ?? 'AGENT_ERROR', answer?.error?.message ?? `the agent answered HTTP ${res.status} without a pipeline answer`, res.status);
      }
      say(opts.json ? toJson(answer) : formatStages(answer));
      if (answer.state !== 'preflight_ok') process.exitCode = 1;
    });
}
