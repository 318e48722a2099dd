import { describe, expect, it } from 'vitest';
import { backoffDelay } from './backoff.js';
import { agentSocketUrl } from './socket-url.js';

describe('agentSocketUrl', () => {
  it('maps http to ws and https to wss under /agent/ws, keeping a base path', () => {
    expect(agentSocketUrl('http://127.0.0.1:8080')).toBe('ws://127.0.0.1:8080/agent/ws');
    expect(agentSocketUrl('https://denv.example.com/')).toBe('wss://denv.example.com/agent/ws');
    expect(agentSocketUrl('https://example.com/denv/?x=1#y')).toBe('wss://example.com/denv/agent/ws');
    expect(() => agentSocketUrl('ftp://x')).toThrow(/http\(s\) or ws\(s\)/);
  });

  it('maps unix:<absolute socket path> to ws+unix, and refuses a relative path', () => {
    expect(agentSocketUrl('unix:/var/lib/denv/clouds/control.sock')).toBe('ws+unix:///var/lib/denv/clouds/control.sock:/agent/ws');
    expect(() => agentSocketUrl('unix:control.sock')).toThrow(/absolute path/);
  });
});

describe('backoffDelay', () => {
  it('doubles from 200 ms to a 10 s cap with ±50 % jitter', () => {
    const mid = () => 0.5;
    expect([0, 1, 2, 5, 6, 20].map((a) => backoffDelay(a, undefined, mid))).toEqual([200, 400, 800, 6400, 10000, 10000]);
    expect(backoffDelay(0, undefined, () => 0)).toBe(100);
    expect(backoffDelay(10, undefined, () => 1)).toBe(15000);
  });
});
