import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { AgentMessage } from '../../contracts/protocol.js';
import { HTTP_SERVER, httpHealth, makeFixture, nodeService, type Fixture } from '../testing/fixture.js';
import { CommandStore } from './command-store.js';
import { createDispatcher } from './dispatch.js';

let fx: Fixture;
beforeEach(async () => {
  fx = await makeFixture({ min: 25000, max: 25099 });
});
afterEach(async () => {
  await fx.cleanup();
});

type Result = Extract<AgentMessage, { type: 'result' }>;

describe('env.release (separate)', () => {
  it('leaves the processes running, forgets the env, and refuses every later command for it, across restarts', async () => {
    const sent: Result[] = [];
    const dispatcher = createDispatcher(fx.ctx, new CommandStore(path.join(fx.dataDir, 'commands')), (m) => (m.type === 'result' && sent.push(m), true));
    const services = { web: nodeService(HTTP_SERVER, httpHealth()) };
    await dispatcher.dispatch({ id: 'c1', kind: 'env.create', payload: { env: 'env_a', version: 'ver_1', services, volumes: [], retire_others: false } });
    const created = sent[0]!.result as { outcome: string; services: { web: { pid: number } } };
    expect(created.outcome).toBe('healthy');
    const pid = created.services.web.pid;

    await dispatcher.dispatch({ id: 'c2', kind: 'env.release', payload: { env: 'env_a' } });
    expect(sent[1]).toMatchObject({ ok: true, result: { released: true, left_running: [pid] } });
    expect(() => process.kill(pid, 0)).not.toThrow(); // still running
    expect(fx.ctx.runtime.list('env_a')).toEqual([]);

    await dispatcher.dispatch({ id: 'c3', kind: 'env.stop', payload: { env: 'env_a' } });
    expect(sent[2]).toMatchObject({ ok: false, error: { code: 'RELEASED' } });
    expect(() => process.kill(pid, 0)).not.toThrow(); // the refused stop touched nothing

    const restarted = await fx.reopen();
    const again = createDispatcher(restarted, new CommandStore(path.join(fx.dataDir, 'commands')), (m) => (m.type === 'result' && sent.push(m), true));
    await again.dispatch({ id: 'c4', kind: 'env.destroy', payload: { env: 'env_a' } });
    expect(sent[3]).toMatchObject({ ok: false, error: { code: 'RELEASED' } });

    const log = (await readFile(path.join(fx.dataDir, 'command-log.jsonl'), 'utf8')).trim().split('\n').map((l) => JSON.parse(l));
    expect(log.map((e: { id: string; source: string }) => [e.id, e.source])).toEqual([['c1', 'ran'], ['c2', 'ran'], ['c3', 'refused'], ['c4', 'refused']]);
    process.kill(-pid, 'SIGKILL');
  });
});
