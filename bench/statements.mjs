#!/usr/bin/env node
// bench/statements — what a statement costs on the embedded database: PGlite's own query() (a
// fresh parse and plan, six calls into PostgreSQL) against denv's prepared statements
// (store/pglite-statements.ts: prepared once, then Bind + Execute + Sync in one message).
//
//   node bench/statements.mjs [--runs 2000] [--blocks 5]
//
// One PGlite, on this thread, holding a copy of the migrated template (dist/pgdata-template,
// `npm run build` first) with 60 envs and deployments; each statement below is a kind the control
// plane sends on every deploy. The two ways run in alternating blocks of --runs runs (the first block
// of each is a warm-up, not counted); printed: the median ms per statement of each way and the ratio.
import { cpSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PGlite } from '@electric-sql/pglite';
import { median } from './helpers.mjs';

const root = dirname(dirname(fileURLToPath(import.meta.url)));
const { PreparedStatements } = await import(join(root, 'dist/control-plane/store/pglite-statements.js'));
const arg = (name, dflt) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : dflt;
};
const RUNS = arg('runs', 2000);
const BLOCKS = arg('blocks', 5);

const dir = mkdtempSync(join(tmpdir(), 'denv-statements-'));
cpSync(join(root, 'dist', 'pgdata-template'), join(dir, 'pgdata'), { recursive: true });
const db = await PGlite.create({ dataDir: join(dir, 'pgdata') });
const prepared = new PreparedStatements(db);

await db.query("insert into teams (id, name) values ('team_b', 'b')");
await db.query("insert into projects (id, team, name) values ('prj_b', 'team_b', 'bench')");
const phases = (mark) => JSON.stringify(Array.from({ length: 11 }, (_, k) => ({ name: `phase${k}`, status: 'ok', evidence: { note: mark.repeat(80), k }, started_at: null, finished_at: null })));
for (let i = 0; i < 60; i++) {
  await db.query("insert into envs (id, team, project, name, stage, status) values ($1, 'team_b', 'prj_b', $1, 'preview', 'running')", [`env_${i}`]);
  await db.query("insert into deployments (id, team, env, kind, status, phases, lease_owner) values ($1, 'team_b', $2, 'deploy', 'running', $3, 'cp_b')", [`dep_${i}`, `env_${i}`, phases('a')]);
}

const cases = [
  ['a phase commit (engine.ts)', `update deployments set phases = $3, state = $4, status = $5, error = $6,
      started_at = case when $7 then coalesce(started_at, now()) else started_at end,
      lease_until = now() + ($8 || ' milliseconds')::interval
    where id = $1 and lease_owner = $2 returning id`, (i) => [`dep_${i % 60}`, 'cp_b', phases('b'), '{}', 'running', null, false, '30000']],
  ['an env by id', 'select * from envs where id = $1', (i) => [`env_${i % 60}`]],
  ['an event', 'insert into events (team, subject, type, data) values ($1, $2, $3, $4) returning id', (i) => ['team_b', `env:env_${i % 60}`, 'bench', '{"n":1}']],
  ['the env list (GET /v1/envs)', "select id, team, project, name, stage, status, current_version, endpoints, created_at from envs where team = $1 order by created_at desc, id desc limit 51", () => ['team_b']],
];

const ways = { 'PGlite query()': (sql, params) => db.query(sql, params), prepared: (sql, params) => prepared.query(sql, params) };
const pgliteVersion = JSON.parse(readFileSync(join(root, 'node_modules/@electric-sql/pglite/package.json'), 'utf8')).version;
console.log(`denv statements bench — PGlite ${pgliteVersion}; node ${process.version}; ${RUNS} runs a block, ${BLOCKS} blocks a way (alternating)`);
for (const [label, sql, params] of cases) {
  const perRun = { 'PGlite query()': [], prepared: [] };
  for (let b = 0; b <= BLOCKS; b++) {
    for (const [way, run] of Object.entries(ways)) {
      const t0 = performance.now();
      for (let i = 0; i < RUNS; i++) await run(sql, params(i));
      if (b > 0) perRun[way].push((performance.now() - t0) / RUNS);
    }
  }
  const [q, p] = [median(perRun['PGlite query()']), median(perRun.prepared)];
  console.log(`  ${label.padEnd(30)} PGlite query() ${q.toFixed(3)} ms   prepared ${p.toFixed(3)} ms   ×${(q / p).toFixed(2)} faster`);
}
await db.close();
rmSync(dir, { recursive: true, force: true });
