/**
 * A migrated, empty embedded database made once at build time (`npm run build` runs this file:
 * `dist/pgdata-template`). A control plane's first start on an empty data dir copies it instead of
 * running initdb there: initdb costs seconds of CPU and peaks at ~850 MiB, a copy of ~40 MB costs
 * neither (bench/load.mjs "empty data dir"). Without a template (a source checkout never built, a
 * template removed) the first start runs initdb as before. Migrations newer than the template are
 * applied when the database opens, as on every start.
 *
 *   node dist/control-plane/store/pglite-template.js   makes it, unless it was made from these migrations
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { runOrThrow } from '../../lib/exec.js';
import { moduleExecArgv, moduleScript } from '../../lib/module-worker.js';

/** `<package>/dist/pgdata-template`, from dist/ and from src/ alike (both three levels below the package). */
export const PGDATA_TEMPLATE = fileURLToPath(new URL('../../../dist/pgdata-template', import.meta.url));

/** Whether `dir` holds a database (initdb leaves PG_VERSION). */
export const holdsDatabase = (dir: string): boolean => existsSync(`${dir}/PG_VERSION`);

/** initdb and the migrations into `dir`, in a child process (pglite-init.ts says why). */
export async function initialiseDatabase(dir: string): Promise<void> {
  await runOrThrow([process.execPath, ...moduleExecArgv(import.meta.url), fileURLToPath(moduleScript(import.meta.url, 'pglite-init')), dir], { timeoutMs: 5 * 60_000 });
}

/** Made again only when the migrations change (their file's SHA-256 is kept beside the template). */
async function makeTemplate(): Promise<void> {
  const migrations = createHash('sha256').update(readFileSync(fileURLToPath(moduleScript(import.meta.url, 'migrations')))).digest('hex');
  const stamp = `${PGDATA_TEMPLATE}.migrations-sha256`;
  if (holdsDatabase(PGDATA_TEMPLATE) && existsSync(stamp) && readFileSync(stamp, 'utf8') === migrations) return;
  const staging = `${PGDATA_TEMPLATE}.init`;
  rmSync(staging, { recursive: true, force: true });
  await initialiseDatabase(staging);
  rmSync(PGDATA_TEMPLATE, { recursive: true, force: true });
  renameSync(staging, PGDATA_TEMPLATE);
  writeFileSync(stamp, migrations);
  console.error(`made ${PGDATA_TEMPLATE}`);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) await makeTemplate();
