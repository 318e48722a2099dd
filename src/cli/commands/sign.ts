/**
 * `denv sign`: make a signed envelope (docs/envelope.md) — ECDSA P-256 over SHA-256 of the
 * payload bytes, DER, base64, what `cosign sign-blob --key` makes — and print it as JSON, ready
 * for `POST /deploy`, `denv preflight --envelope` or the control plane's deploy `envelope`.
 */
import { writeFile } from 'node:fs/promises';
import type { Command } from 'commander';
import { optionsOf } from '../config.js';
import { addEnvelopeOptions, envelopeFromOptions, type EnvelopeOptions } from '../envelope-options.js';
import { examples, say } from '../help.js';

export function registerSign(program: Command): void {
  const cmd = program.command('sign').description('sign a deploy envelope for an image digest, or for what a process service runs, with a PEM key (prints the envelope JSON)');
  addEnvelopeOptions(cmd)
    .option('--out <file>', 'write the envelope there (mode 0600) instead of printing it')
    .addHelpText(
      'after',
      examples(
        'denv sign --key ci.pem --service web --image registry.example.com/web@sha256:… --host host-a --env-file prod.env > envelope.json',
        `denv sign --key ci.pem --service api --host host-a --process-json '{"command": ["node", "/srv/api/server.js"], "working_dir": "/srv/api"}'`,
        'denv sign --key ci.pem --payload payload.json     # sign an existing payload byte for byte',
      ),
    )
    .action(async (_o: unknown, c: Command) => {
      const opts = optionsOf<EnvelopeOptions & { out?: string }>(c);
      const envelope = JSON.stringify(await envelopeFromOptions(opts));
      // The payload may carry secrets (env): a file gets 0600.
      if (opts.out) await writeFile(opts.out, `${envelope}\n`, { mode: 0o600 });
      else say(envelope);
    });
}
