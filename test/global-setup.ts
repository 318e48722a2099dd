/**
 * Once per test run: a refusal when dist/ is older than src/ or web/ (staleBuild), an
 * initialised, migrated PGlite data dir that test control planes copy
 * (initdb takes ~5 s and ~850 MiB; a copy takes milliseconds), and a check that the PostgreSQL
 * server the scale-out/store tests need is reachable — missing, the run fails loudly.
 * Also one temp root for the run's data dirs (freshDataDir), removed when the run ends: each
 * control plane copies ~40 MB of PGlite, so leaving them behind would fill a small disk.
 */
import { chmodSync, existsSync, mkdtempSync, readdirSync, statSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { TestProject } from 'vitest/node';
import { openPGlite } from '../src/control-plane/store/pglite-db.js';
import { migrate } from '../src/control-plane/store/migrations.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** The most recently modified file under `dir` that `keep` accepts: its path and mtime (ms); null when there is none. */
function newest(dir: string, keep: (path: string) => boolean = () => true): { path: string; mtimeMs: number } | null {
  let best: { path: string; mtimeMs: number } | null = null;
  if (!existsSync(dir)) return null;
  for (const entry of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const path = join(entry.parentPath, entry.name);
    if (!keep(path)) continue;
    const { mtimeMs } = statSync(path);
    if (!best || mtimeMs > best.mtimeMs) best = { path, mtimeMs };
  }
  return best;
}

/**
 * Integration tests run the CLI, agents and servers from dist/ (bin/denv), so a run against a
 * dist/ older than the code would test stale code: refuse it, saying what to do. `npm test`
 * builds first; a single-file `npx vitest run …` after an edit lands here. Mutation testing
 * (Stryker) is exempt: its sandbox's sources are instrumented copies, newer than the dist/ built
 * from the originals just before (`npm run mutate` builds first).
 */
export function staleBuild(root = ROOT): string | null {
  if (process.env.STRYKER_MUTATOR_WORKER !== undefined) return null;
  const pairs = [
    { sources: join(root, 'src'), keep: (p: string) => !p.endsWith('.test.ts'), built: join(root, 'dist'), builtKeep: (p: string) => !p.startsWith(join(root, 'dist', 'web')) },
    { sources: join(root, 'web'), keep: () => true, built: join(root, 'dist', 'web'), builtKeep: () => true },
  ];
  for (const { sources, keep, built, builtKeep } of pairs) {
    const source = newest(sources, keep);
    const output = newest(built, builtKeep);
    if (!source) continue;
    if (!output) return `${relative(root, built)}/ is missing: run \`npm run build\` before the tests (they run the CLI from dist/)`;
    if (source.mtimeMs > output.mtimeMs) {
      return `${relative(root, built)}/ is older than ${relative(root, source.path)}: run \`npm run build\` before the tests (they run the CLI from dist/, which would be stale code)`;
    }
  }
  return null;
}

export default async function setup(project: TestProject) {
  const stale = staleBuild();
  if (stale) throw new Error(stale);
  const root = mkdtempSync(join(tmpdir(), 'denv-template-'));
  const dir = join(root, 'pgdata');
  const db = await openPGlite(dir);
  await migrate(db);
  await db.close();
  project.provide('pgliteTemplate', dir);
  const dataRoot = mkdtempSync(join(tmpdir(), 'denv-tests-'));
  chmodSync(dataRoot, 0o711); // services run as users of their own and must reach their files below it
  project.provide('testDataRoot', dataRoot);
  // Removed without blocking vitest's event loop: the data root holds every test control plane's
  // copy of PGlite and takes ~7 s to remove. Done synchronously it blocked the loop while vitest was
  // stopping the last test file's worker, whose 10 s teardownTimeout then fired before the worker's
  // exit was seen: "Timeout terminating forks worker …" after runs that passed.
  return async () => {
    await Promise.all([rm(root, { recursive: true, force: true }), rm(dataRoot, { recursive: true, force: true })]);
  };
}

declare module 'vitest' {
  export interface ProvidedContext {
    pgliteTemplate: string;
    testDataRoot: string;
  }
}
