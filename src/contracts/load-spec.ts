/**
 * A Compose document as the API receives it (YAML text, or the object the CLI sends: the loaded
 * model plus the files it packed) → denv's Spec. The server loads it again per the Compose
 * specification without file access and without its own environment (no variable of the server
 * leaks into an app; the CLI interpolated the user's), then applies denv's rules (spec.ts).
 *
 * `x-denv-packed` (secrets, configs and bind-mounted files the CLI read) bypasses the YAML loader
 * and its size cap: it is data, bounded by the body limit, never interpolated.
 */
import { loadCompose } from './compose/load-compose.js';
import { parseSpec } from './spec.js';
import type { Spec } from './spec-types.js';

export const PACKED_KEY = 'x-denv-packed';

/**
 * `projectDir` is where relative paths resolve, as a Compose file's own directory: `/` for a
 * document sent to the API; for a source deploy the Compose file's directory in the repository
 * (`/` being the repository's root), so a build context is the repository path it names.
 */
export async function loadSpec(compose: string | Readonly<Record<string, unknown>>, o: { readonly projectDir?: string } = {}): Promise<Spec> {
  let packed: unknown;
  let text: string;
  if (typeof compose === 'string') text = compose;
  else {
    const { [PACKED_KEY]: files, ...rest } = compose;
    packed = files;
    text = JSON.stringify(rest); // JSON is YAML
  }
  const { model } = await loadCompose({ text, projectDir: o.projectDir ?? '/', env: {}, files: null });
  return parseSpec(packed === undefined ? model : { ...model, [PACKED_KEY]: packed });
}
