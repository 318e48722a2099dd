import { describe, expect, it } from 'vitest';
import { allowedRepository, allowedService, checkExpiry, decodeEnvelope, duplicateJsonKey, parseImageRef, peekEnvelopeService } from './envelope.js';

const DIGEST = `sha256:${'a'.repeat(64)}`;
const payload = (extra: Record<string, unknown> = {}) => ({
  service: 'web',
  repository: '127.0.0.1:5000/team/web',
  digest: DIGEST,
  host: 'host-a',
  expires_at: '2030-01-01T00:00:00Z',
  nonce: 'n-1',
  ...extra,
});
const wrap = (p: unknown, signature = 'AAAA') => ({ payload: Buffer.from(typeof p === 'string' ? p : JSON.stringify(p)).toString('base64'), signature });

describe('decodeEnvelope', () => {
  it('keeps the exact payload bytes next to the parsed payload', () => {
    const text = JSON.stringify(payload({ env: { A: 'x y' }, health: { path: '/healthz', timeout: '5s' }, edge: { hostnames: ['app.example.com'] } }));
    const res = decodeEnvelope(wrap(text));
    expect(res.ok).toBe(true);
    if (!res.ok) return;
    expect(res.value.payloadBytes.toString('utf8')).toBe(text);
    expect(res.value.payload.env).toEqual({ A: 'x y' });
    expect(res.value.signature).toEqual(Buffer.from('AAAA', 'base64'));
  });

  it.each([
    [{ ...wrap(payload()), extra: 1 }, /^envelope: unknown field "extra"/],
    [{ payload: 'not base64!', signature: 'AAAA' }, /^envelope: payload: expected canonical base64/],
    [{ payload: Buffer.from('{}').toString('base64').replace(/=+$/, ''), signature: 'AAAA' }, /canonical base64/],
    [wrap('{"service":'), /^payload: not valid JSON/],
    [wrap(payload({ admin: true })), /^payload: unknown field "admin"/],
    [wrap(payload({ digest: 'sha256:abc' })), /^payload\.digest: expected sha256:/],
    [wrap(payload({ repository: 'r/app:latest' })), /^payload\.repository: /],
    [wrap(payload({ env: { 'BAD-KEY': 'x' } })), /^payload\.env\.BAD-KEY/],
    [wrap(payload({ env: { K: 'two\nlines' } })), /line breaks/],
    [wrap(payload({ expires_at: 'tomorrow' })), /^payload\.expires_at/],
    [wrap(payload({ health: { path: '/', retries: 3 } })), /^payload\.health: unknown field "retries"/],
  ])('refuses %j', (raw, message) => {
    const res = decodeEnvelope(raw);
    expect(res.ok).toBe(false);
    if (!res.ok) expect(res.message).toMatch(message);
  });

  it('refuses invalid UTF-8 in the payload', () => {
    const res = decodeEnvelope({ payload: Buffer.from([0x7b, 0xff, 0x7d]).toString('base64'), signature: 'AAAA' });
    expect(res).toEqual({ ok: false, message: 'payload: not valid UTF-8' });
  });
});

describe('run, scope and duplicate keys', () => {
  it('accepts the optional run and scope objects (closed schemas) and refuses unknown fields in them, by path', () => {
    const run = { entrypoint: ['/bin/app'], command: ['serve'], working_dir: '/srv', user: '999:999', healthcheck: { test: ['CMD', '/bin/check'], interval: '2s', retries: 5 }, volumes: [{ source: 'data', target: '/data', read_only: true }] };
    const res = decodeEnvelope(wrap(payload({ run, scope: { project: 'shop', env: 'production' } })));
    expect(res.ok && 'run' in res.value.payload && res.value.payload.run).toEqual(run);
    expect(res.ok && res.value.payload.scope).toEqual({ project: 'shop', env: 'production' });
    expect(decodeEnvelope(wrap(payload({ run: { privileged: true } })))).toMatchObject({ ok: false, message: expect.stringMatching(/^payload\.run: unknown field "privileged"/) });
    expect(decodeEnvelope(wrap(payload({ run: { working_dir: 'relative' } })))).toMatchObject({ ok: false, message: expect.stringMatching(/^payload\.run\.working_dir: /) });
    expect(decodeEnvelope(wrap(payload({ run: { healthcheck: { test: ['sh', '-c', 'x'] } } })))).toMatchObject({ ok: false, message: expect.stringMatching(/^payload\.run\.healthcheck\.test: /) });
    expect(decodeEnvelope(wrap(payload({ scope: { team: 'x' } })))).toMatchObject({ ok: false, message: expect.stringMatching(/^payload\.scope: unknown field "team"/) });
  });

  it('refuses a payload with a duplicate key anywhere, naming the key path', () => {
    const text = JSON.stringify(payload({ env: { A: '1' } })).replace('"env":{"A":"1"}', '"env":{"A":"1","A":"2"}');
    expect(decodeEnvelope(wrap(text))).toEqual({ ok: false, message: 'payload: duplicate key "env.A": a signed payload must have one reading' });
    const top = `${JSON.stringify(payload()).slice(0, -1)},"service":"other"}`;
    expect(decodeEnvelope(wrap(top))).toMatchObject({ ok: false, message: expect.stringMatching(/^payload: duplicate key "service"/) });
    expect(duplicateJsonKey('{"a":[{"b":1},{"b":2,"c":{"d":"}\\"","d":0}}]}')).toBe('a.1.c.d');
    expect(duplicateJsonKey('{"a":{"x":1},"b":{"x":1},"s":"{\\"a\\":1,\\"a\\":2}"}')).toBeNull();
  });
});

describe('process payloads', () => {
  const processPayload = (extra: Record<string, unknown> = {}) => {
    const { repository: _r, digest: _d, ...base } = payload();
    return { ...base, process: { command: ['node', '/srv/app/server.js'], working_dir: '/srv/app', user: 'app', healthcheck: { test: ['CMD', 'true'] } }, ...extra };
  };

  it('decodes `process` in place of repository, digest and run', () => {
    const res = decodeEnvelope(wrap(processPayload({ env: { PORT_NAME: 'web' } })));
    expect(res.ok).toBe(true);
    if (!res.ok) return;
    expect(res.value.payload).toMatchObject({ service: 'web', process: { command: ['node', '/srv/app/server.js'], working_dir: '/srv/app', user: 'app' }, env: { PORT_NAME: 'web' } });
  });

  it.each([
    [{ repository: 'r/x' }, /^payload: unknown field "repository"/],
    [{ run: { command: ['x'] } }, /^payload: unknown field "run"/],
    [{ process: { command: [] } }, /^payload\.process\.command: /],
    [{ process: { command: ['x'], working_dir: 'rel' } }, /^payload\.process\.working_dir: expected an absolute path on the host/],
    [{ process: { command: ['x'], entrypoint: ['y'] } }, /^payload\.process: unknown field "entrypoint"/],
    [{ process: { command: ['x'], healthcheck: { test: ['sh', '-c', 'x'] } } }, /^payload\.process\.healthcheck\.test: /],
  ])('refuses %j by path', (extra, message) => {
    expect(decodeEnvelope(wrap(processPayload(extra)))).toMatchObject({ ok: false, message: expect.stringMatching(message) });
  });
});

describe('checkExpiry', () => {
  const now = Date.parse('2030-01-01T00:00:00Z');
  it('refuses expired envelopes and envelopes more than 1 h (plus 30 s of skew) ahead', () => {
    expect(checkExpiry('2029-12-31T23:59:59Z', now)).toMatch(/^expired at/);
    expect(checkExpiry('2030-01-01T00:00:00Z', now)).toMatch(/^expired at/);
    expect(checkExpiry('2030-01-01T01:00:00Z', now)).toBeNull();
    expect(checkExpiry('2030-01-01T01:00:30Z', now)).toBeNull();
    expect(checkExpiry('2030-01-01T01:00:31Z', now)).toMatch(/more than 1 h ahead/);
  });
});

describe('image references and allowlists', () => {
  it('splits repository, tag and digest without normalising', () => {
    expect(parseImageRef('127.0.0.1:5000/team/web')).toEqual({ repository: '127.0.0.1:5000/team/web', tag: null, digest: null });
    expect(parseImageRef(`127.0.0.1:5000/web:1.2@${DIGEST}`)).toEqual({ repository: '127.0.0.1:5000/web', tag: '1.2', digest: DIGEST });
    expect(parseImageRef('nginx:latest')).toEqual({ repository: 'nginx', tag: 'latest', digest: null });
  });

  it('matches repository prefixes at path boundaries and service prefixes as strings', () => {
    expect(allowedRepository('reg:5000/team/web', ['reg:5000/team'])).toBe(true);
    expect(allowedRepository('reg:5000/team', ['reg:5000/team'])).toBe(true);
    expect(allowedRepository('reg:5000/teamster/web', ['reg:5000/team'])).toBe(false);
    expect(allowedRepository('reg:5000/teamster/web', ['reg:5000/'])).toBe(true);
    expect(allowedRepository('reg:5000/web', [])).toBe(false);
    expect(allowedRepository('reg:5000/web', [''])).toBe(false);
    expect(allowedService('web-canary', ['web'])).toBe(true);
    expect(allowedService('api', ['web'])).toBe(false);
  });

  it('peeks the service of an envelope without trusting it', () => {
    expect(peekEnvelopeService(wrap(payload()))).toBe('web');
    expect(peekEnvelopeService(wrap(payload({ service: '../etc' })))).toBeNull();
    expect(peekEnvelopeService({ payload: 42 })).toBeNull();
    expect(peekEnvelopeService(null)).toBeNull();
  });
});
