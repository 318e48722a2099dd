import { readdir, utimes, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DenvError } from '../../contracts/errors.js';
import type { AgentMessage } from '../../contracts/protocol.js';
import { HTTP_SERVER, httpHealth, makeFixture, nodeService, type Fixture } from '../testing/fixture.js';
import { CommandStore } from './command-store.js';
import { createDispatcher } from './dispatch.js';

let fx: Fixture;
beforeEach(async () => {
  fx = await makeFixture({ min: 24000, max: 24499 });
});
afterEach(async () => {
  await fx.cleanup();
});

const storeDir = () => path.join(fx.dataDir, 'commands');

describe('CommandStore', () => {
  it('runs an id once: duplicates join the run in flight, later ones read the stored outcome', async () => {
    const store = new CommandStore(storeDir());
    let runs = 0;
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const work = async () => {
      runs++;
      await gate;
      return { n: runs };
    };
    const first = store.run('cmd_1', 'env.exec', work);
    const dup = store.run('cmd_1', 'env.exec', work);
    release();
    expect(await first).toEqual({ outcome: { ok: true, result: { n: 1 } }, source: 'ran' });
    expect(await dup).toEqual({ outcome: { ok: true, result: { n: 1 } }, source: 'joined' });

    const reopened = new CommandStore(storeDir());
    expect(await reopened.run('cmd_1', 'env.exec', work)).toEqual({ outcome: { ok: true, result: { n: 1 } }, source: 'stored' });
    expect(runs).toBe(1);
  });

  it('stores errors with their code, and prunes outcomes older than 24 h', async () => {
    const store = new CommandStore(storeDir());
    const failed = await store.run('cmd_2', 'env.exec', async () => {
      throw new DenvError('NOT_FOUND', 'no such service');
    });
    expect(failed.outcome).toEqual({ ok: false, error: { code: 'NOT_FOUND', message: 'no such service' } });
    const crashed = await store.run('weird id/../x', 'env.exec', async () => {
      throw new Error('disk on fire');
    });
    expect(crashed.outcome).toEqual({ ok: false, error: { code: 'AGENT_ERROR', message: 'disk on fire' } });

    const old = path.join(storeDir(), 'cmd_old.json');
    await writeFile(old, '{}');
    const twoDaysAgo = new Date(Date.now() - 48 * 3600 * 1000);
    await utimes(old, twoDaysAgo, twoDaysAgo);
    expect(await store.prune()).toBe(1);
    const left = await readdir(storeDir());
    expect(left).toHaveLength(2);
    expect(left).toEqual(expect.arrayContaining(['cmd_2.json', expect.stringMatching(/^h-[0-9a-f]{64}\.json$/)]));
  });
});

describe('dispatcher', () => {
  function setup(connected: { up: boolean }) {
    const sent: AgentMessage[] = [];
    const d = createDispatcher(fx.ctx, new CommandStore(storeDir()), (msg) => {
      if (!connected.up) return false;
      sent.push(msg);
      return true;
    });
    return { d, sent };
  }

  it('never starts services twice for a re-sent command id, and answers each completion once', async () => {
    const { d, sent } = setup({ up: true });
    const cmd = { id: 'cmd_c1', kind: 'env.create', payload: { env: 'env_d', version: 'ver_1', services: { web: nodeService(HTTP_SERVER, httpHealth()) }, volumes: [], retire_others: false } };
    await Promise.all([d.dispatch(cmd), d.dispatch(cmd)]);
    expect(sent).toHaveLength(1);
    expect(sent[0]).toMatchObject({ type: 'result', id: 'cmd_c1', ok: true, result: { outcome: 'healthy' } });
    await d.dispatch(cmd);
    expect(sent).toHaveLength(2);
    expect(sent[1]).toEqual(sent[0]);
    expect(fx.ctx.runtime.list('env_d')).toHaveLength(1);
  });

  it('answers unknown kinds and invalid payloads with BAD_REQUEST naming the path', async () => {
    const { d, sent } = setup({ up: true });
    await d.dispatch({ id: 'cmd_u', kind: 'env.teleport', payload: {} });
    await d.dispatch({ id: 'cmd_v', kind: 'env.exec', payload: { env: '../etc', service: 'web', command: [], timeout_ms: 1 } });
    expect(sent[0]).toEqual({ type: 'result', id: 'cmd_u', ok: false, error: { code: 'BAD_REQUEST', message: 'this agent does not know command kind "env.teleport"' } });
    expect(sent[1]).toMatchObject({ id: 'cmd_v', ok: false, error: { code: 'BAD_REQUEST', message: expect.stringMatching(/^payload\.env: expected letters/) } });
  });

  it('keeps answers until they are acknowledged, and sends them again on every flush until then', async () => {
    const connected = { up: false };
    const { d, sent } = setup(connected);
    await d.dispatch({ id: 'cmd_x', kind: 'env.destroy', payload: { env: 'env_none' } });
    expect(sent).toEqual([]);
    connected.up = true;
    d.flush();
    const answer = { type: 'result', id: 'cmd_x', ok: true, result: { removed: { processes: 0, datasets: 0, snapshots: 0, ports: 0 } } };
    expect(sent).toEqual([answer]);
    d.flush(); // sent, never acknowledged (the control plane may not have stored it): sent again
    expect(sent).toEqual([answer, answer]);
    await d.acknowledged('cmd_x');
    d.flush();
    expect(sent).toHaveLength(2);
  });
});
