/**
 * Issue 10, item 4: anyone who can reach the port can open `/agent/ws`. Before `welcome` a socket
 * gets a small frame limit (a larger frame is refused from its header, never parsed), a hello
 * deadline, and a cap on how many such sockets are held. Real sockets (`ws` client) against a real
 * control plane; `/healthz` keeps answering meanwhile.
 */
import { join } from 'node:path';
import WebSocket from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startControlPlane, type ControlPlane } from '../../src/control-plane/control-plane.js';
import { PROTOCOL_VERSION } from '../../src/contracts/protocol.js';
import { freshDataDir, storeOptions } from '../helpers/stores.js';

const HELLO_TIMEOUT_MS = 800;
const MAX_UNAUTHENTICATED = 5;

function open(cp: ControlPlane): Promise<WebSocket> {
  const ws = new WebSocket(`${cp.url.replace('http', 'ws')}/agent/ws`);
  return new Promise((resolve, reject) => {
    ws.once('open', () => resolve(ws));
    ws.once('error', reject);
  });
}

function closed(ws: WebSocket): Promise<{ code: number; reason: string; at: number }> {
  if (ws.readyState === WebSocket.CLOSED) return Promise.resolve({ code: -1, reason: 'already closed', at: Date.now() });
  return new Promise((resolve) => ws.once('close', (code, reason) => resolve({ code, reason: reason.toString(), at: Date.now() })));
}

describe('/agent/ws before welcome', () => {
  let cp: ControlPlane;
  beforeAll(async () => {
    cp = await startControlPlane({
      port: 0, ...(await storeOptions('pglite', join(freshDataDir(), 'cp'))), log: () => {},
      agentAdmission: { helloTimeoutMs: HELLO_TIMEOUT_MS, maxUnauthenticated: MAX_UNAUTHENTICATED },
    });
  });
  afterAll(async () => {
    await cp?.close();
  });

  it('refuses a frame over 16 KiB before hello without reading it, and /healthz is not held up', async () => {
    const ws = await open(cp);
    const done = closed(ws);
    ws.on('error', () => {});
    const sentAt = Date.now();
    ws.send(JSON.stringify({ type: 'hello', pad: 'x'.repeat(1024 * 1024) }));
    const health = await fetch(`${cp.url}/healthz`);
    expect(health.status).toBe(200);
    const c = await done;
    expect(c.code).toBe(1009); // message too big
    expect(c.at - sentAt).toBeLessThan(5000);
  });

  it('closes a socket whose first frame is not a valid hello', async () => {
    const ws = await open(cp);
    const done = closed(ws);
    ws.send(JSON.stringify({ type: 'heartbeat' }));
    expect((await done).code).toBe(1008);
  });

  it('closes a socket that says nothing within the hello deadline', async () => {
    const ws = await open(cp);
    const openedAt = Date.now();
    const c = await closed(ws);
    expect(c.code).toBe(4008);
    expect(c.at - openedAt).toBeGreaterThanOrEqual(HELLO_TIMEOUT_MS - 50);
    expect(c.at - openedAt).toBeLessThan(HELLO_TIMEOUT_MS + 2000);
  });

  it('holds at most the configured number of unauthenticated sockets; a refused hello frees its slot', async () => {
    const held = await Promise.all(Array.from({ length: MAX_UNAUTHENTICATED }, () => open(cp)));
    // over the cap: refused on the upgrade request itself (no WebSocket handshake)
    await expect(open(cp)).rejects.toThrow(/Unexpected server response: 503/);
    // a real hello (refused: unknown key) is answered, and its close frees a slot
    const ws = held[0]!;
    const refused = new Promise<{ type: string; code: string }>((resolve) => ws.once('message', (d) => resolve(JSON.parse(String(d)))));
    const done = closed(ws);
    ws.send(JSON.stringify({ type: 'hello', protocol: PROTOCOL_VERSION, name: 'x', enrollment_key: 'denr_nope', facts: { hostname: 'x', platform: 'linux', arch: 'x64', runtimes: [], dataset_driver: 'copy', agent_version: '0' } }));
    expect(await refused).toMatchObject({ type: 'refused', code: 'UNAUTHORIZED' });
    await done;
    const again = await open(cp);
    const before = Date.now();
    // accepted: it is closed by the hello deadline (4008), not refused at once (1013)
    expect((await closed(again)).code).toBe(4008);
    expect(Date.now() - before).toBeGreaterThan(HELLO_TIMEOUT_MS / 2);
    await Promise.all(held.slice(1).map((w) => closed(w)));
  });

  it('raises the frame limit for a welcomed agent', async () => {
    const ws = await open(cp);
    const frames: { type: string }[] = [];
    ws.on('message', (d) => frames.push(JSON.parse(String(d))));
    const welcomed = new Promise<void>((resolve) => ws.once('message', () => resolve()));
    ws.send(JSON.stringify({ type: 'hello', protocol: PROTOCOL_VERSION, name: 'big', enrollment_key: await cp.createEnrollmentKey(), facts: { hostname: 'x', platform: 'linux', arch: 'x64', runtimes: [], dataset_driver: 'copy', agent_version: '0' } }));
    await welcomed;
    expect(frames[0]).toMatchObject({ type: 'welcome' });
    ws.send(JSON.stringify({ type: 'heartbeat', pad: 'x'.repeat(1024 * 1024) }));
    const pong = new Promise<void>((resolve) => ws.once('pong', () => resolve()));
    ws.ping();
    await pong;
    expect(ws.readyState).toBe(WebSocket.OPEN);
    const done = closed(ws);
    ws.close();
    expect((await done).code).toBe(1005);
  });
});
