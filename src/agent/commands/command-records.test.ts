/**
 * The command record across restarts (issue 11, item 1): a run an agent restart cut short is
 * listed and, delivered again, runs again as `resumed`; a result stays in the outbox and on disk
 * until the control plane acknowledges it, and is sent again after a restart until then.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { AgentMessage } from '../../contracts/protocol.js';
import { makeFixture, type Fixture } from '../testing/fixture.js';
import { CommandStore } from './command-store.js';
import { createDispatcher } from './dispatch.js';

let fx: Fixture;
beforeEach(async () => {
  fx = await makeFixture({ min: 24600, max: 24699 });
});
afterEach(async () => {
  await fx.cleanup();
});

const storeDir = () => path.join(fx.dataDir, 'commands');

describe('CommandStore across restarts', () => {
  it('lists a run a restart cut short, and runs it again as resumed when it is delivered again', async () => {
    await mkdir(storeDir(), { recursive: true });
    // What a SIGKILLed agent leaves: the record written before the work, no outcome.
    await writeFile(path.join(storeDir(), 'cmd_cut.json'), JSON.stringify({ id: 'cmd_cut', kind: 'env.snapshot', env: 'env_a', started_at: '2026-01-01T00:00:00.000Z' }));
    const store = new CommandStore(storeDir());
    expect(await store.interrupted()).toEqual([{ id: 'cmd_cut', kind: 'env.snapshot', env: 'env_a', started_at: '2026-01-01T00:00:00.000Z' }]);

    let runs = 0;
    const work = async () => ({ n: ++runs });
    expect(await store.run('cmd_cut', 'env.snapshot', work, 'env_a')).toEqual({ outcome: { ok: true, result: { n: 1 } }, source: 'resumed' });
    expect(await store.run('cmd_cut', 'env.snapshot', work, 'env_a')).toEqual({ outcome: { ok: true, result: { n: 1 } }, source: 'stored' });
    expect(runs).toBe(1);
    expect(await store.interrupted()).toEqual([]);
  });

  it('records a run as started before its work, so a crash in the work leaves it interrupted', async () => {
    const store = new CommandStore(storeDir());
    let seen: Awaited<ReturnType<CommandStore['interrupted']>> = [];
    await store.run('cmd_w', 'env.create', async () => {
      seen = await new CommandStore(storeDir()).interrupted();
      return null;
    }, 'env_b');
    expect(seen).toEqual([{ id: 'cmd_w', kind: 'env.create', env: 'env_b', started_at: expect.any(String) }]);
  });

  it('keeps a result unacknowledged until ack; records older than acknowledgements count as acknowledged', async () => {
    const store = new CommandStore(storeDir());
    await store.run('cmd_1', 'env.exec', async () => 'one');
    await store.run('cmd_2', 'env.exec', async () => {
      throw new Error('no');
    });
    await writeFile(path.join(storeDir(), 'cmd_old.json'), JSON.stringify({ id: 'cmd_old', kind: 'env.exec', finished_at: '2026-01-01T00:00:00.000Z', outcome: { ok: true, result: 1 } }));
    const reopened = new CommandStore(storeDir());
    expect(await reopened.unacked()).toEqual([
      { id: 'cmd_1', outcome: { ok: true, result: 'one' } },
      { id: 'cmd_2', outcome: { ok: false, error: { code: 'AGENT_ERROR', message: 'no' } } },
    ]);
    await reopened.ack('cmd_1');
    await reopened.ack('cmd_1');
    await reopened.ack('cmd_unknown');
    expect((await new CommandStore(storeDir()).unacked()).map((r) => r.id)).toEqual(['cmd_2']);
    // An acknowledged result still answers a re-delivery.
    expect(await reopened.run('cmd_1', 'env.exec', async () => 'again')).toEqual({ outcome: { ok: true, result: 'one' }, source: 'stored' });
  });
});

describe('dispatcher outbox', () => {
  it('starts with the results a previous agent left unacknowledged, and sends them on flush', async () => {
    const store = new CommandStore(storeDir());
    await store.run('cmd_prev', 'env.exec', async () => 'done before the restart');
    const sent: AgentMessage[] = [];
    const d = createDispatcher(fx.ctx, store, (m) => (sent.push(m), true), await store.unacked());
    d.flush();
    expect(sent).toEqual([{ type: 'result', id: 'cmd_prev', ok: true, result: 'done before the restart' }]);
    await d.acknowledged('cmd_prev');
    expect(await store.unacked()).toEqual([]);
    d.flush();
    expect(sent).toHaveLength(1);
  });

  it('retransmits only what has waited longer than asked for its ack', async () => {
    const sent: AgentMessage[] = [];
    const d = createDispatcher(fx.ctx, new CommandStore(storeDir()), (m) => (sent.push(m), true));
    await d.dispatch({ id: 'cmd_r', kind: 'env.destroy', payload: { env: 'env_none' } });
    expect(sent).toHaveLength(1);
    d.retransmit(60_000);
    expect(sent).toHaveLength(1);
    await new Promise((r) => setTimeout(r, 20));
    d.retransmit(10);
    expect(sent).toHaveLength(2);
    expect(sent[1]).toEqual(sent[0]);
    await d.acknowledged('cmd_r');
    d.retransmit(0);
    expect(sent).toHaveLength(2);
  });
});
