import { mkdir, readFile, readdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DenvError } from '../../contracts/errors.js';
import type { Commands } from '../../contracts/protocol.js';
import { readProcStat } from '../runtimes/process/proc-stat.js';
import { HTTP_SERVER, httpHealth, makeFixture, nodeService, until, type Fixture } from '../testing/fixture.js';
import { envCreate } from './env-create.js';
import { envDestroy } from './env-destroy.js';
import { envExec } from './env-exec.js';
import { envRollback } from './env-rollback.js';
import { envSnapshot } from './env-snapshot.js';

let fx: Fixture;
beforeEach(async () => {
  fx = await makeFixture({ min: 23500, max: 23999 });
});
afterEach(async () => {
  await fx.cleanup();
});

/** A service that serves HTTP and appends a tick to $DENV_VOLUME_DATA/ticks every 5 ms. */
const WRITER = `${HTTP_SERVER}
const fs = require('fs');
setInterval(() => fs.appendFileSync(process.env.DENV_VOLUME_DATA + '/ticks', 'x'), 5);
`;
const services = { web: nodeService(WRITER, httpHealth()) };

function create(version: string, extra: Partial<Commands['env.create']['payload']> = {}) {
  return envCreate.run({ env: 'env_s', version, services, volumes: ['data'], retire_others: false, ...extra }, fx.ctx, Date.now());
}

const livePath = () => path.join(fx.dataDir, 'datasets', 'env_s', 'live', 'data');

describe('env.snapshot', () => {
  it('pauses every service, copies the datasets and resumes, measuring frozen_for', async () => {
    const created = await create('ver_1');
    const pid = created.services.web!.pid!;
    await until(async () => (await readFile(path.join(livePath(), 'ticks'), 'utf8').catch(() => '')).length > 3);
    // Enough files that the copy (the frozen window) lasts long enough to be observed.
    await mkdir(path.join(livePath(), 'rows'));
    await Promise.all(Array.from({ length: 200 }, (_, i) => writeFile(path.join(livePath(), 'rows', `r${i}`), String(i))));

    // Watch the service's state while the snapshot runs: it must be seen stopped (T).
    const states = new Set<string>();
    let watching = true;
    const watcher = (async () => {
      while (watching) {
        const s = await readProcStat(pid);
        if (s) states.add(s.state);
        await new Promise((r) => setImmediate(r));
      }
    })();
    const startedAt = Date.now();
    const res = await envSnapshot.run({ env: 'env_s', name: 'snap_1', volumes: ['data'] }, fx.ctx, startedAt);
    const tookMs = Date.now() - startedAt;
    watching = false;
    await watcher;

    expect(res).toMatchObject({ snapshot: 'snap_1', datasets: ['data'], consistent: true });
    // Frozen while 200 files were copied (more than nothing), and only within the command's own run.
    expect(res.frozen_for).toBeGreaterThan(0);
    expect(res.frozen_for).toBeLessThanOrEqual(tookMs);
    expect(states.has('T')).toBe(true);
    const snapTicks = await readFile(path.join(fx.dataDir, 'datasets', 'env_s', 'snapshots', 'snap_1', 'data', 'ticks'), 'utf8');
    expect(snapTicks.length).toBeGreaterThan(3);
    // Resumed: the service keeps writing and answering.
    await until(async () => (await readFile(path.join(livePath(), 'ticks'), 'utf8')).length > snapTicks.length);
    expect((await readProcStat(pid))!.state).not.toBe('T');
  });

  it('snapshots an env without services as consistent with frozen_for 0', async () => {
    const res = await envSnapshot.run({ env: 'env_empty', name: 's', volumes: ['data'] }, fx.ctx, Date.now());
    expect(res).toEqual({ snapshot: 's', datasets: ['data'], frozen_for: 0, consistent: true });
  });
});

describe('env.exec', () => {
  it('runs argv with the service cwd, environment, PORT and datasets', async () => {
    const created = await create('ver_1');
    const res = await envExec.run(
      { env: 'env_s', service: 'web', command: [process.execPath, '-e', 'console.log([process.env.PORT, process.cwd(), process.env.DENV_VOLUME_DATA].join(" ")); console.error("e")'], timeout_ms: 5000 },
      fx.ctx,
      Date.now(),
    );
    expect(res).toEqual({ exit: 0, stdout: `${created.services.web!.port} ${path.join(fx.dataDir, 'env_s', 'work', 'web')} ${livePath()}\n`, stderr: 'e\n', timed_out: false });
  });

  it('kills on timeout, answers 127 for a missing program and refuses a service that is not running', async () => {
    await create('ver_1');
    const slow = await envExec.run({ env: 'env_s', service: 'web', command: [process.execPath, '-e', 'setInterval(() => {}, 1000)'], timeout_ms: 200 }, fx.ctx, Date.now());
    expect(slow).toMatchObject({ exit: null, timed_out: true });
    const missing = await envExec.run({ env: 'env_s', service: 'web', command: ['no-such-program-denv'], timeout_ms: 1000 }, fx.ctx, Date.now());
    expect(missing.exit).toBe(127);
    const err = await envExec.run({ env: 'env_s', service: 'db', command: ['true'], timeout_ms: 1000 }, fx.ctx, Date.now()).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DenvError);
    expect((err as DenvError).code).toBe('NOT_FOUND');
  });
});

describe('env.rollback', () => {
  it('adopts a running version and stops the others', async () => {
    const v1 = await create('ver_1');
    const v2 = await create('ver_2');
    const res = await envRollback.run({ env: 'env_s', version: 'ver_1', services, volumes: ['data'], snapshot: null, restore_data: false }, fx.ctx, Date.now());
    expect(res).toMatchObject({ outcome: 'healthy', restored: null });
    expect(res.services.web!.pid).toBe(v1.services.web!.pid);
    expect(fx.ctx.runtime.list('env_s').map((r) => r.version)).toEqual(['ver_1']);
    expect(await readProcStat(v2.services.web!.pid!)).toBeNull();
  });

  it('with restore_data stops everything, restores the snapshot and starts the version', async () => {
    const v1 = await create('ver_1');
    // the service writes its first tick right after it starts; snapshot once it has
    for (let i = 0; i < 200 && !(await readFile(path.join(livePath(), 'ticks'), 'utf8').catch(() => '')); i++) await new Promise((r) => setTimeout(r, 25));
    await envSnapshot.run({ env: 'env_s', name: 'snap_1', volumes: ['data'] }, fx.ctx, Date.now());
    const snapTicks = await readFile(path.join(fx.dataDir, 'datasets', 'env_s', 'snapshots', 'snap_1', 'data', 'ticks'), 'utf8');
    await create('ver_2', { retire_others: true });
    await writeFile(path.join(livePath(), 'junk'), 'from ver_2');

    const missing = envRollback.run({ env: 'env_s', version: 'ver_1', services, volumes: ['data'], snapshot: 'nope', restore_data: true }, fx.ctx, Date.now());
    await expect(missing).rejects.toMatchObject({ code: 'NOT_FOUND' });
    expect(fx.ctx.runtime.list('env_s').map((r) => r.version)).toEqual(['ver_2']);

    const res = await envRollback.run({ env: 'env_s', version: 'ver_1', services, volumes: ['data'], snapshot: 'snap_1', restore_data: true }, fx.ctx, Date.now());
    expect(res).toMatchObject({ outcome: 'healthy', restored: 'snap_1' });
    expect(res.services.web!.pid).not.toBe(v1.services.web!.pid);
    expect(fx.ctx.runtime.list('env_s').map((r) => r.version)).toEqual(['ver_1']);
    expect(await readdir(livePath())).toEqual(['ticks']);
    // The restored file starts with exactly the snapshot's content (the new process appends after it).
    expect((await readFile(path.join(livePath(), 'ticks'), 'utf8')).startsWith(snapTicks)).toBe(true);
  });
});

describe('env.destroy', () => {
  it('stops every process and removes datasets, snapshots, logs, state and ports', async () => {
    const v1 = await create('ver_1');
    await create('ver_2');
    await envSnapshot.run({ env: 'env_s', name: 'snap_1', volumes: ['data'] }, fx.ctx, Date.now());
    const res = await envDestroy.run({ env: 'env_s' }, fx.ctx, Date.now());
    expect(res).toEqual({ removed: { processes: 2, datasets: 1, snapshots: 1, ports: 2 } });
    expect(await readProcStat(v1.services.web!.pid!)).toBeNull();
    for (const dir of ['datasets', 'logs', 'envs']) expect(await readdir(path.join(fx.dataDir, dir))).toEqual([]);
    expect(await fx.ctx.ports.read()).toEqual({});
    expect(await envDestroy.run({ env: 'env_s' }, fx.ctx, Date.now())).toEqual({ removed: { processes: 0, datasets: 0, snapshots: 0, ports: 0 } });
  });
});
