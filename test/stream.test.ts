/** `GET /v1/deployments/{id}/stream`: server-sent events that follow a deployment to its end. */
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Deployment } from '../src/contracts/domain.js';
import { waitFor } from './helpers/api.js';
import { startHarness, type Harness } from './helpers/harness.js';

const APP = fileURLToPath(new URL('./fixtures/app.js', import.meta.url));

/** Reads the stream to its end; `onDeployment` is awaited at each `deployment` event as it arrives. */
async function readStream(url: string, token: string, onDeployment?: (d: Deployment) => Promise<void> | void): Promise<{ events: string[]; deployments: Deployment[] }> {
  const res = await fetch(url, { headers: { authorization: `Bearer ${token}` } });
  expect(res.headers.get('content-type')).toContain('text/event-stream');
  const decoder = new TextDecoder();
  let buffer = '';
  const events: string[] = [];
  const deployments: Deployment[] = [];
  for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
    buffer += decoder.decode(chunk, { stream: true });
    let end: number;
    while ((end = buffer.indexOf('\n\n')) >= 0) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const event = /^event: (.*)$/m.exec(block)?.[1];
      const data = /^data: (.*)$/m.exec(block)?.[1];
      if (!event) continue;
      events.push(event);
      if (event === 'deployment') {
        deployments.push(JSON.parse(data!));
        await onDeployment?.(deployments.at(-1)!);
      }
    }
  }
  return { events, deployments };
}

describe('deployment stream', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(async () => {
    await h?.close();
  });

  it('sends every change as it happens and ends after the terminal status', async () => {
    await h.api.post('/v1/projects', { name: 'sse' });
    const compose = { services: { web: { command: ['node', APP], environment: { STARTUP_DELAY_MS: '300' }, 'x-denv': { health: { path: '/healthz' } } } } };
    const res = await h.api.post('/v1/projects/sse/deploy', { compose });
    const { events, deployments } = await readStream(`${h.cp.url}/v1/deployments/${res.body.deployment.id}/stream`, h.cp.adminToken);
    expect(events.at(-1)).toBe('end');
    expect(deployments.at(-1)!.status).toBe('succeeded');
    // the phases were seen turning ok one by one, not only at the end
    const okCounts = deployments.map((d) => d.phases.filter((p) => p.status === 'ok').length);
    expect(new Set(okCounts).size).toBeGreaterThan(3);
    expect(okCounts).toEqual([...okCounts].sort((a, b) => a - b));
    expect(deployments.some((d) => d.phases.some((p) => p.status === 'running'))).toBe(true);
  });

  it('answers a finished deployment with its state and end at once', async () => {
    const { body } = await h.api.get('/v1/deployments?limit=1');
    const { events } = await readStream(`${h.cp.url}/v1/deployments/${body.items[0].id}/stream`, h.cp.adminToken);
    expect(events).toEqual(['deployment', 'end']);
  });
  it('carries what a pending deployment waits for while it waits, and not once it runs', async () => {
    await h.api.post('/v1/projects', { name: 'sse-gated', approval: 'required' });
    const compose = { services: { web: { command: ['node', APP], 'x-denv': { health: { path: '/healthz' } } } } };
    const res = await h.api.post('/v1/projects/sse-gated/deploy', { compose });
    const envId = res.body.env.id as string;
    await waitFor(async () => (await h.api.get(`/v1/envs/${envId}`)).body.status === 'awaiting_approval', 30_000, 'awaiting approval');
    const name = `sse-gated/${res.body.env.name as string}`;
    // Approved once the stream's first event has arrived.
    let approved = false;
    const reading = readStream(`${h.cp.url}/v1/deployments/${res.body.deployment.id}/stream`, h.cp.adminToken, async () => {
      if (approved) return;
      approved = true;
      expect((await h.api.post(`/v1/envs/${envId}/approve`, {})).status).toBe(202);
    });
    const { deployments } = await reading;
    expect(deployments[0]).toMatchObject({ status: 'pending', waiting: `approval of env ${name}'s plan (denv env approve ${name})` });
    expect(deployments.at(-1)!.status).toBe('succeeded');
    for (const d of deployments.filter((x) => x.status !== 'pending')) expect(d).not.toHaveProperty('waiting');
  });
});
