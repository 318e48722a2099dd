/**
 * `include` (Compose specification, include.md): each entry is loaded as a project of its own,
 * with its own directory (`project_directory`, default the first file's) and variables (its
 * `env_file`, default its `.env`, under the including project's, which win); several `path`
 * files are merged in order, honouring `!reset` / `!override`.
 */
import path from 'node:path';
import { envFilesLookup, labelOf, MAX_CHAIN, mergeTagsOf, readFileText, type Loader } from './document.js';
import { needsFiles } from './file-access.js';
import type { FileContext } from './load-context.js';
import { applyMergeTags, mergeService } from './merge.js';
import { isMap } from './problems.js';
import { resolveHostPath } from './volumes.js';

type Json = Record<string, unknown>;

/** Loads one file as a project (load-compose.ts), passed in to keep the two modules acyclic. */
export type ProjectLoader = (loader: Loader, text: string, ctx: FileContext, fileName: string, stack: readonly string[]) => Promise<Json | null>;

export interface IncludeEntry {
  readonly paths: string[];
  readonly projectDirectory?: string;
  readonly envFiles?: string[];
}

export function includeEntries(value: unknown): IncludeEntry[] {
  if (!Array.isArray(value)) return [];
  return value.flatMap((e): IncludeEntry[] => {
    if (typeof e === 'string') return [{ paths: [e] }];
    if (!isMap(e)) return [];
    const paths = Array.isArray(e.path) ? e.path.map(String) : typeof e.path === 'string' ? [e.path] : [];
    const envFiles = Array.isArray(e.env_file) ? e.env_file.map(String) : typeof e.env_file === 'string' ? [e.env_file] : undefined;
    return [{ paths, ...(typeof e.project_directory === 'string' ? { projectDirectory: e.project_directory } : {}), ...(envFiles ? { envFiles } : {}) }];
  });
}

/** The model of an `include` entry: its files loaded as one project and merged in order. */
export async function loadInclude(loader: Loader, entry: IncludeEntry, parent: FileContext, at: string, stack: readonly string[], loadProject: ProjectLoader): Promise<Json | null> {
  if (!loader.files) {
    loader.problems.add(at, needsFiles('include'));
    return null;
  }
  const absPaths = entry.paths.map((p) => resolveHostPath(p, parent) ?? p);
  const first = absPaths[0];
  if (!first) return null;
  const dir = entry.projectDirectory !== undefined ? (resolveHostPath(entry.projectDirectory, parent) ?? entry.projectDirectory) : path.dirname(first);
  // The including project's variables win over the included project's env files (include.md).
  const envFiles = entry.envFiles ? entry.envFiles.map((f) => resolveHostPath(f, parent) ?? f) : [path.join(dir, '.env')];
  const lookup = await envFilesLookup(loader, envFiles, parent.lookup, at, entry.envFiles !== undefined);
  let merged: Json | null = null;
  for (const abs of absPaths) {
    if (stack.includes(abs)) {
      loader.problems.add(at, `circular include: ${[...stack, abs].map((f) => labelOf(loader, f)).join(' → ')}`);
      return null;
    }
    if (stack.length > MAX_CHAIN) {
      loader.problems.add(at, `include nested deeper than ${MAX_CHAIN}`);
      return null;
    }
    const text = await readFileText(loader, abs, 'include', at);
    if (text === null) continue;
    const ctx: FileContext = { ...parent, dir, lookup, prefix: `${labelOf(loader, abs)}: ` };
    const model = await loadProject(loader, text, ctx, labelOf(loader, abs), [...stack, abs]);
    if (model) merged = merged ? applyMergeTags(mergeService(merged, model), model, mergeTagsOf.get(model)) : model;
  }
  return merged;
}
