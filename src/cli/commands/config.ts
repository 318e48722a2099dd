/**
 * `denv config -f F [--profile P]... [--format yaml|json]`: the Compose file as denv loads it,
 * printed like `docker compose config` (interpolated, env_file merged, extends/include resolved,
 * profiles applied, short syntax in long form), then checked against denv's own rules: a field
 * denv refuses is a problem, one it accepts without effect is listed as ignored on stderr. Exits
 * non-zero listing every problem. Works offline: it talks to no control plane.
 */
import { Option, type Command } from 'commander';
import { stringify as toYaml } from 'yaml';
import { examples, note, say } from '../help.js';
import { readComposeFile } from '../compose-file.js';
import { optionsOf } from '../config.js';
import { toJson } from '../output.js';

const FORMATS = ['yaml', 'json'] as const;
type Format = (typeof FORMATS)[number];

/** The model as text: YAML (block style, keys as loaded) or indented JSON; one trailing newline added by the caller. */
export function formatModel(model: Readonly<Record<string, unknown>>, format: Format): string {
  return format === 'json' ? toJson(model) : toYaml(model, { lineWidth: 0 }).trimEnd();
}

export function registerConfig(program: Command): void {
  program
    .command('config')
    .description('print a Compose file as denv loads it (like `docker compose config`); exits non-zero listing every problem')
    .option('-f, --file <path>', 'the Compose file', 'compose.yaml')
    .option('--profile <name>', 'enable a profile; repeat for several (`*` enables all)', (v: string, prev: string[] = []) => [...prev, v])
    .addOption(new Option('--format <format>', 'output format').choices(FORMATS).default('yaml'))
    .addHelpText(
      'after',
      examples(
        'denv config -f compose.yaml',
        'denv config -f compose.yaml --profile debug --format json',
        '# variables come from the environment, then the .env file beside the Compose file;',
        '# names starting with DENV_ are left as written: the host fills them in at start',
      ),
    )
    .action(async (_o: unknown, cmd: Command) => {
      const opts = optionsOf<{ file: string; profile?: string[]; format: Format }>(cmd);
      // readComposeFile loads the file the way `denv deploy` does, and applies denv's rules.
      const loaded = await readComposeFile(opts.file, { profiles: opts.profile ?? [], unsetEnv: 'warn' });
      for (const w of loaded.warnings) note(`warning: ${w}`);
      if (loaded.ignored.length > 0) note(`ignored (no effect under denv): ${loaded.ignored.join(', ')}`);
      say(formatModel(loaded.model, opts.format));
    });
}
