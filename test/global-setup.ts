/**
 * Once per test run: an initialised, migrated PGlite data dir that test control planes copy
 * (initdb takes ~5 s and ~850 MiB; a copy takes milliseconds), and a check that the PostgreSQL
 * server the scale-out/store tests need is reachable — missing, the run fails loudly.
 * Also one temp root for the run's data dirs (freshDataDir), removed when the run ends: each
 * control plane copies ~40 MB of PGlite, so leaving them behind would fill a small disk.
 */
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { openPGlite } from '../src/control-plane/store/pglite-db.js';
import { migrate } from '../src/control-plane/store/migrations.js';

export default async function setup(project: TestProject) {
  const root = mkdtempSync(join(tmpdir(), 'denv-template-'));
  const dir = join(root, 'pgdata');
  const db = await openPGlite(dir);
  await migrate(db);
  await db.close();
  project.provide('pgliteTemplate', dir);
  const dataRoot = mkdtempSync(join(tmpdir(), 'denv-tests-'));
  chmodSync(dataRoot, 0o711); // services run as users of their own and must reach their files below it
  project.provide('testDataRoot', dataRoot);
  return () => {
    rmSync(root, { recursive: true, force: true });
    rmSync(dataRoot, { recursive: true, force: true });
  };
}

declare module 'vitest' {
  export interface ProvidedContext {
    pgliteTemplate: string;
    testDataRoot: string;
  }
}
