/**
 * Once per test run: an initialised, migrated PGlite data dir that test control planes copy
 * (initdb takes ~5 s and ~850 MiB; a copy takes milliseconds), and a check that the PostgreSQL
 * server the scale-out/store tests need is reachable — missing, the run fails loudly.
 */
import { mkdtempSync, rmSync } from 'node:fs';
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
  return () => rmSync(root, { recursive: true, force: true });
}

declare module 'vitest' {
  export interface ProvidedContext {
    pgliteTemplate: string;
  }
}
