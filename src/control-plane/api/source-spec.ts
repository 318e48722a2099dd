/**
 * A source deploy's Spec: the Compose file of the commit a ref names, loaded like any Compose
 * document, with that commit as its `source` (contracts/spec-types.ts SourceRef).
 */
import path from 'node:path';
import { DenvError } from '../../contracts/errors.js';
import type { Spec } from '../../contracts/spec.js';
import type { SpecLoader } from './spec-loader.js';
import type { ProjectRow } from '../store/rows.js';
import type { SourceResolver } from '../source/source-resolver.js';

export async function sourceSpec(specs: SpecLoader, sources: SourceResolver, project: ProjectRow, source: { readonly repo?: string; readonly ref?: string }): Promise<Spec> {
  if (source.repo !== undefined && source.repo !== project.repo) {
    throw new DenvError('BAD_REQUEST', `source.repo: "${source.repo}" is not the repository linked to project "${project.name}"${project.repo ? ` (${project.repo})` : ''}`);
  }
  const resolved = await sources.resolve(project, source.ref ?? null);
  // Build contexts resolve against the Compose file's directory, `/` being the repository's root.
  const spec = await specs.load(resolved.compose, undefined, path.posix.join('/', path.posix.dirname(resolved.source.compose_path))).catch((err: unknown) => {
    if (err instanceof DenvError) throw new DenvError(err.code, `${resolved.source.compose_path} at ${resolved.source.commit.slice(0, 12)}: ${err.message}`);
    throw err;
  });
  return { ...spec, source: resolved.source };
}
