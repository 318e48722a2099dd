/**
 * Finding Compose: `docker compose` (the v2 plugin) when the docker CLI has it, else a
 * `docker-compose` binary (Debian 12's docker-compose is v1.29; a standalone v2 binary works too).
 */
import { run } from '../../../lib/exec.js';
import { composeVersionArgv, flavorOf, type ComposeCli } from './docker-argv.js';

export type { ComposeCli, ComposeFlavor } from './docker-argv.js';

const CANDIDATES: readonly (readonly string[])[] = [['docker', 'compose'], ['docker-compose']];

/** The first Compose that answers `version --short`, or null when there is none. */
export async function detectComposeCli(): Promise<ComposeCli | null> {
  for (const argv of CANDIDATES) {
    try {
      const r = await run(composeVersionArgv({ argv }), { timeoutMs: 20_000, maxOutputBytes: 4096 });
      const flavor = r.exitCode === 0 ? flavorOf(r.stdout) : null;
      if (flavor) return { argv, flavor, version: r.stdout.trim() };
    } catch {
      // not installed: try the next one
    }
  }
  return null;
}
