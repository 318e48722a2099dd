import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { LogLine } from '../../contracts/telemetry.js';
import { makeFixture, nodeService, until, type Fixture } from '../testing/fixture.js';
import { IncidentDetector } from './incident-detector.js';
import { LogCollector } from './log-collector.js';

/** Prints 1000 numbered lines at once, then one `tick` line every 50 ms. */
const CHATTY = `
for (let i = 1; i <= 1000; i++) console.log('line ' + i);
let n = 0;
setInterval(() => console.log('tick ' + ++n), 50);
`;

let fx: Fixture;
beforeEach(async () => {
  fx = await makeFixture({ min: 27000, max: 27049 });
});
afterEach(async () => {
  await fx.cleanup();
});

describe('LogCollector', () => {
  it('never holds more than 200 lines per workload, and pushes new lines only while watched', async () => {
    const rt = fx.ctx.runtime;
    const started = await rt.start({ env: 'env_a', version: 'ver_1', service: 'web', spec: nodeService(CHATTY, { kind: 'alive', for_ms: 100 }), port: 27000, datasets: {}, cwd: fx.dataDir });
    expect(started.ok).toBe(true);
    const pushed: LogLine[] = [];
    const logs = new LogCollector(rt, new IncidentDetector({ epoch: 't' }), (_env, lines) => (pushed.push(...lines), true), () => {});
    let max = 0;
    await until(async () => {
      await logs.poll();
      max = Math.max(max, logs.held('env_a', 'web'));
      return (await logs.snapshot('env_a', 200)).some((l) => l.text.startsWith('tick'));
    }, 10_000);
    expect(max).toBe(200);
    const snap = await logs.snapshot('env_a', 200);
    expect(snap).toHaveLength(200);
    expect(snap.map((l) => l.text)).not.toContain('line 1');
    expect(pushed).toEqual([]); // nobody watching

    logs.watch('env_a', 5000);
    await until(async () => {
      await logs.poll();
      return pushed.length >= 3;
    }, 5000);
    expect(pushed.every((l) => l.text.startsWith('tick') && l.service === 'web' && l.version === 'ver_1')).toBe(true);
    // Offsets identify lines: strictly increasing within one file.
    for (let i = 1; i < pushed.length; i++) expect(pushed[i]!.offset).toBeGreaterThan(pushed[i - 1]!.offset);
    logs.watch('env_a', 0);
    const before = pushed.length;
    // New lines are read (they reach the buffer) while nobody watches: none is pushed.
    const lastTick = async () => Number((await logs.snapshot('env_a', 1))[0]!.text.replace(/^tick /, ''));
    const seen = await lastTick();
    await until(async () => {
      await logs.poll();
      return (await lastTick()) > seen;
    }, 10_000);
    expect(pushed.length).toBe(before);
    expect(logs.held('env_a', 'web')).toBe(200);
  });
});
