import { afterEach, describe, expect, it } from 'vitest';
import { isDenvError } from '../../contracts/errors.js';
import { loadSpec } from '../../contracts/load-spec.js';
import { SpecLoader } from './spec-loader.js';

const web = (port: number) => `services:\n  web:\n    command: ["node", "server.js"]\n    environment:\n      PORT_HINT: "${port}"\n`;
const refusal = (p: Promise<unknown>) => p.then(() => null, (err: unknown) => (isDenvError(err) ? { code: err.code, message: err.message } : { thrown: String(err) }));

describe('SpecLoader', () => {
  const lines: string[] = [];
  let loader: SpecLoader;
  afterEach(async () => {
    await loader.close();
    lines.length = 0;
  });

  it('loads in its thread what loadSpec loads here, each answer to its own request', async () => {
    loader = new SpecLoader({ log: (l) => lines.push(l) });
    const docs = Array.from({ length: 20 }, (_, i) => web(8000 + i));
    const specs = await Promise.all(docs.map((d) => loader.load(d)));
    for (let i = 0; i < docs.length; i++) expect(specs[i]).toEqual(await loadSpec(docs[i]!));
    expect(specs.map((s) => s.services.web!.environment.PORT_HINT)).toEqual(docs.map((_, i) => String(8000 + i)));
  });

  it('refuses a bad document with the code and message loadSpec refuses it with', async () => {
    loader = new SpecLoader({ log: (l) => lines.push(l) });
    const bad = 'services:\n  web:\n    command: ["node"]\n    ports: ["99999:80"]\n    bogus: 1\n';
    const here = await refusal(loadSpec(bad));
    expect(here).toMatchObject({ code: 'INVALID_COMPOSE' });
    expect(await refusal(loader.load(bad))).toEqual(here);
  });

  it('abandons a load past its deadline with a 400 naming it, and the next load gets a new thread', async () => {
    loader = new SpecLoader({ log: (l) => lines.push(l) });
    // A cold thread (its module load) cannot answer within 1 ms.
    const late = loader.load(web(1), 1);
    const next = loader.load(web(2));
    expect(await refusal(late)).toEqual({ code: 'INVALID_COMPOSE', message: 'compose: loading it took longer than 1 ms; it was abandoned (is it very large or deeply nested?)' });
    expect((await next).services.web!.environment.PORT_HINT).toBe('2');
  });

  it('starts its thread with the first load and ends it after idleMs without one; the next load starts another', async () => {
    loader = new SpecLoader({ log: (l) => lines.push(l), idleMs: 300 });
    expect(loader.threadRunning).toBe(false);
    const started = Date.now();
    expect((await loader.load(web(1))).services.web!.environment.PORT_HINT).toBe('1');
    expect(loader.threadRunning).toBe(true);
    while (loader.threadRunning) {
      expect(Date.now() - started, 'the idle thread was never ended').toBeLessThan(10_000);
      await new Promise((r) => setTimeout(r, 20));
    }
    expect(Date.now() - started).toBeGreaterThanOrEqual(300);
    expect((await loader.load(web(2))).services.web!.environment.PORT_HINT).toBe('2');
    expect(loader.threadRunning).toBe(true);
    expect(lines).toEqual([]); // a retired thread is not reported as lost
  });

  it('refuses loads once closed', async () => {
    loader = new SpecLoader({ log: (l) => lines.push(l) });
    await loader.close();
    expect(await refusal(loader.load(web(1)))).toEqual({ code: 'INTERNAL', message: 'the control plane is stopping' });
  });
});
