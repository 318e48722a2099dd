/**
 * The envelope's closed schema field by field, at its edges: what each field accepts, and that
 * what it refuses is refused by path with the message CI tools show. (envelope.test.ts covers
 * decoding, duplicate keys, expiry and references as wholes.)
 */
import { describe, expect, it } from 'vitest';
import { allowedRepository, allowedService, checkExpiry, decodeEnvelope, duplicateJsonKey, MAX_ENVELOPE_BYTES, parseImageRef, PASSING_STATES, peekEnvelope } from './envelope.js';

const DIGEST = `sha256:${'a'.repeat(64)}`;
const image = (extra: Record<string, unknown> = {}) => ({ service: 'web', repository: 'reg:5000/team/web', digest: DIGEST, host: 'host-a', expires_at: '2030-01-01T00:00:00Z', nonce: 'n-1', ...extra });
const process_ = (proc: Record<string, unknown> = {}, extra: Record<string, unknown> = {}) => {
  const { repository: _r, digest: _d, ...base } = image(extra);
  return { ...base, process: { command: ['node', '/srv/app.js'], ...proc } };
};
const wrap = (p: unknown, signature = 'AAAA') => ({ payload: Buffer.from(typeof p === 'string' ? p : JSON.stringify(p)).toString('base64'), signature });
const decode = (p: unknown) => decodeEnvelope(wrap(p));
const run = (r: Record<string, unknown>) => image({ run: r });

/** Accepted (true), or refused with a message matching. */
type Case = [string, unknown, true | RegExp];

const cases: Case[] = [
  ['a service name of letters, digits, _ . -', image({ service: 'web.1_x-y' }), true],
  ['a 63-character service name', image({ service: 'w'.repeat(63) }), true],
  ['a 64-character service name', image({ service: 'w'.repeat(64) }), /^payload\.service: /],
  ['a service name starting with -', image({ service: '-web' }), /^payload\.service: service names use letters, digits, _ \. -$/],
  ['a service name with a space inside', image({ service: 'we b' }), /^payload\.service: service names use letters, digits, _ \. -$/],

  ['a registry with a port and a nested path', image({ repository: 'registry.example.com:5000/team/sub/app' }), true],
  ['a bare name', image({ repository: 'nginx' }), true],
  ['path parts joined by . _ -', image({ repository: 'reg/a.b_c-d__e' }), true],
  ['path parts of several characters after a separator', image({ repository: 'reg/team/web-app.v2_canary' }), true],
  ['a port that is not a number', image({ repository: 'reg:abc/team/web' }), /^payload\.repository: expected a repository such as registry\.example\.com\/team\/app, without tag or digest$/],
  ['upper case in the path', image({ repository: 'reg/Team/web' }), /^payload\.repository: expected a repository/],
  ['a path part ending in a separator', image({ repository: 'reg/team_/web' }), /^payload\.repository: expected a repository/],
  ['a leading slash', image({ repository: '/team/web' }), /^payload\.repository: expected a repository/],
  ['a trailing slash', image({ repository: 'reg/team/' }), /^payload\.repository: expected a repository/],
  ['a 256-character repository', image({ repository: `reg/${'a'.repeat(252)}` }), /^payload\.repository: /],

  ['a digest in upper case', image({ digest: `sha256:${'A'.repeat(64)}` }), /^payload\.digest: expected sha256: and 64 lowercase hex digits$/],
  ['a digest of 63 hex digits', image({ digest: `sha256:${'a'.repeat(63)}` }), /^payload\.digest: expected sha256: and 64 lowercase hex digits$/],
  ['a digest of 65 hex digits', image({ digest: `sha256:${'a'.repeat(65)}` }), /^payload\.digest: /],
  ['a digest behind a prefix', image({ digest: `x${DIGEST}` }), /^payload\.digest: /],
  ['a digest of another algorithm', image({ digest: `sha512:${'a'.repeat(64)}` }), /^payload\.digest: /],

  ['env keys with _ and digits', image({ env: { _A1: 'x', a: 'y' } }), true],
  ['an env key starting with a digit', image({ env: { '1A': 'x' } }), /^payload\.env\.1A: expected an environment variable name$/],
  ['an env key with a dash at its end', image({ env: { A_: 'x', 'B-': 'y' } }), /^payload\.env\.B-: /],
  ['an env value of 32 KiB', image({ env: { A: 'x'.repeat(32 * 1024) } }), true],
  ['an env value over 32 KiB', image({ env: { A: 'x'.repeat(32 * 1024 + 1) } }), /^payload\.env\.A: /],
  ['an env value with NUL', image({ env: { A: 'a\0b' } }), /^payload\.env\.A: env values cannot contain NUL or line breaks$/],
  ['an env value with a carriage return', image({ env: { A: 'a\rb' } }), /^payload\.env\.A: env values cannot contain NUL or line breaks$/],

  ['a health path and a timeout as text or seconds', image({ health: { path: '/healthz', timeout: 5 } }), true],
  ['a relative health path', image({ health: { path: 'healthz' } }), /^payload\.health\.path: /],
  ['a health timeout that is not a duration', image({ health: { path: '/', timeout: 'soon' } }), /^payload\.health\.timeout: expected a duration such as 10s$/],

  ['hostnames, a wildcard included', image({ edge: { hostnames: ['app.example.com', '*.preview.example.com', 'a-b.example.io'] } }), true],
  ['a hostname in capitals', image({ edge: { hostnames: ['App.example.com'] } }), /^payload\.edge\.hostnames\.0: expected a DNS name$/],
  ['one-letter labels', image({ edge: { hostnames: ['a.b.example.com'] } }), true],
  ['a hostname with a character past its last label', image({ edge: { hostnames: ['app.example.com_'] } }), /^payload\.edge\.hostnames\.0: expected a DNS name$/],
  ['a hostname without a dot', image({ edge: { hostnames: ['localhost'] } }), /^payload\.edge\.hostnames\.0: expected a DNS name$/],
  ['a label ending in a dash', image({ edge: { hostnames: ['ok.example.com', 'a-.example.com'] } }), /^payload\.edge\.hostnames\.1: expected a DNS name$/],
  ['a one-letter top-level domain', image({ edge: { hostnames: ['example.c'] } }), /^payload\.edge\.hostnames\.0: expected a DNS name$/],
  ['no hostname', image({ edge: { hostnames: [] } }), /^payload\.edge\.hostnames: /],

  ['an argv of 256 words', run({ command: Array.from({ length: 256 }, (_, i) => `a${i}`) }), true],
  ['an argv of 257 words', run({ command: Array.from({ length: 257 }, (_, i) => `a${i}`) }), /^payload\.run\.command: /],
  ['an empty argv', run({ entrypoint: [] }), /^payload\.run\.entrypoint: /],
  ['an argument with NUL', run({ command: ['ok', 'a\0'] }), /^payload\.run\.command\.1: NUL is not allowed$/],
  ['an argument over 32 KiB', run({ command: ['x'.repeat(32 * 1024 + 1)] }), /^payload\.run\.command\.0: /],
  ['a working dir', run({ working_dir: '/srv/app' }), true],
  ['a relative working dir', run({ working_dir: 'srv' }), /^payload\.run\.working_dir: expected an absolute path in the container$/],
  ['a working dir with a colon', run({ working_dir: '/srv:/x' }), /^payload\.run\.working_dir: paths cannot contain NUL or ":"$/],
  ['an empty working dir', run({ working_dir: '' }), /^payload\.run\.working_dir: /],
  ['users as name, uid, user:group and uid:gid', run({ user: 'app' }), true],
  ['a uid:gid', run({ user: '999:999' }), true],
  ['a 64-character user', run({ user: 'u'.repeat(64) }), true],
  ['a 65-character user', run({ user: 'u'.repeat(65) }), /^payload\.run\.user: expected user, uid, user:group or uid:gid$/],
  ['a user with an empty name', run({ user: ':999' }), /^payload\.run\.user: expected user, uid, user:group or uid:gid$/],
  ['a user with two colons', run({ user: 'a:b:c' }), /^payload\.run\.user: expected user, uid, user:group or uid:gid$/],
  ['a group starting with a dot', run({ user: 'a:.b' }), /^payload\.run\.user: expected user, uid, user:group or uid:gid$/],
  ['a healthcheck as a shell string', run({ healthcheck: { test: 'curl -f localhost', interval: '2s', timeout: 3, retries: 0, start_period: '1s' } }), true],
  ['a healthcheck as CMD-SHELL', run({ healthcheck: { test: ['CMD-SHELL', 'curl -f localhost'] } }), true],
  ['a CMD healthcheck without a command', run({ healthcheck: { test: ['CMD'] } }), /^payload\.run\.healthcheck\.test: /],
  ['an empty healthcheck string', run({ healthcheck: { test: '' } }), /^payload\.run\.healthcheck\.test: /],
  ['a NONE healthcheck', run({ healthcheck: { test: ['NONE', 'x'] } }), /^payload\.run\.healthcheck\.test: expected \["CMD", …\], \["CMD-SHELL", "…"\] or a string$/],
  ['a healthcheck interval that is not a duration', run({ healthcheck: { test: 'x', interval: 'often' } }), /^payload\.run\.healthcheck\.interval: expected a duration such as 10s$/],
  ['1001 retries', run({ healthcheck: { test: 'x', retries: 1001 } }), /^payload\.run\.healthcheck\.retries: /],
  ['negative retries', run({ healthcheck: { test: 'x', retries: -1 } }), /^payload\.run\.healthcheck\.retries: /],
  ['a dataset mount', run({ volumes: [{ source: 'data', target: '/data', read_only: true }] }), true],
  ['a mount at a relative path', run({ volumes: [{ source: 'data', target: 'data' }] }), /^payload\.run\.volumes\.0\.target: expected an absolute path in the container$/],
  ['a mount of a path, not a dataset', run({ volumes: [{ source: '../etc', target: '/etc' }] }), /^payload\.run\.volumes\.0\.source: /],
  ['65 mounts', run({ volumes: Array.from({ length: 65 }, (_, i) => ({ source: `d${i}`, target: `/d${i}` })) }), /^payload\.run\.volumes: /],

  ['a nonce of 200 printable characters', image({ nonce: '~'.repeat(200) }), true],
  ['a nonce of 201 characters', image({ nonce: 'n'.repeat(201) }), /^payload\.nonce: expected 1-200 printable characters without spaces$/],
  ['a nonce with a space', image({ nonce: 'a b' }), /^payload\.nonce: expected 1-200 printable characters without spaces$/],
  ['an expiry with an offset', image({ expires_at: '2030-01-01T02:00:00+02:00' }), true],
  ['an empty host', image({ host: '' }), /^payload\.host: /],
  ['a 254-character host', image({ host: 'h'.repeat(254) }), /^payload\.host: /],
  ['an empty scope project', image({ scope: { project: '' } }), /^payload\.scope\.project: /],
  ['a scope env of 201 characters', image({ scope: { env: 'e'.repeat(201) } }), /^payload\.scope\.env: /],

  ['a process with a host working dir, user and healthcheck', process_({ working_dir: '/srv', user: 'app:app', healthcheck: { test: ['CMD', '/srv/check'] } }), true],
  ['a process working dir with NUL', process_({ working_dir: '/srv\0' }), /^payload\.process\.working_dir: NUL is not allowed$/],
  ['a process user with a space', process_({ user: 'a b' }), /^payload\.process\.user: expected user, uid, user:group or uid:gid$/],
];

describe('envelope payload fields', () => {
  it.each(cases)('%s', (_what, payload, expected) => {
    const res = decode(payload);
    if (expected === true) expect(res, JSON.stringify(res)).toMatchObject({ ok: true });
    else expect(res).toMatchObject({ ok: false, message: expect.stringMatching(expected) });
  });
});

describe('the envelope around the payload', () => {
  const good = wrap(image());

  it.each<Case>([
    ['a signature with one padding character', { ...good, signature: 'AAA=' }, true],
    ['a signature with two padding characters', { ...good, signature: 'AA==' }, true],
    ['a signature using + and /', { ...good, signature: '+/+/' }, true],
    ['an empty signature', { ...good, signature: '' }, /^envelope: signature: /],
    ['a signature of 5 characters', { ...good, signature: 'AAAAA' }, /^envelope: signature: expected canonical base64$/],
    ['a signature with three padding characters', { ...good, signature: 'A===' }, /^envelope: signature: expected canonical base64$/],
    ['a signature with a character outside base64', { ...good, signature: 'AAA!' }, /^envelope: signature: expected canonical base64$/],
    ['a signature behind a space', { ...good, signature: ' AAAA' }, /^envelope: signature: expected canonical base64$/],
    ['a signature with a trailing newline', { ...good, signature: 'AAAA\n' }, /^envelope: signature: expected canonical base64$/],
    ['an empty payload', { ...good, payload: '' }, /^envelope: payload: /],
    ['a payload that is not a string', { ...good, payload: 42 }, /^envelope: payload: /],
    ['no envelope at all', null, /^envelope: /],
  ])('%s', (_what, raw, expected) => {
    const res = decodeEnvelope(raw);
    if (expected === true) expect(res, JSON.stringify(res)).toMatchObject({ ok: true });
    else expect(res).toMatchObject({ ok: false, message: expect.stringMatching(expected) });
  });

  it(`refuses a payload larger than ${MAX_ENVELOPE_BYTES} bytes before reading it, and takes one of exactly that size`, () => {
    const base = JSON.stringify(image({ env: { A: '' } }));
    const exactly = base.replace('"A":""', `"A":"${'x'.repeat(MAX_ENVELOPE_BYTES - base.length)}"`);
    expect(Buffer.byteLength(exactly)).toBe(MAX_ENVELOPE_BYTES);
    // 64 KiB in one value is over the 32 KiB a value may hold: refused by the schema, not by size.
    expect(decodeEnvelope(wrap(exactly))).toMatchObject({ ok: false, message: expect.stringMatching(/^payload\.env\.A: /) });
    expect(decodeEnvelope(wrap(`${exactly} `))).toEqual({ ok: false, message: `payload: larger than ${MAX_ENVELOPE_BYTES} bytes` });
    expect(MAX_ENVELOPE_BYTES).toBe(65_536);
  });

  it('reads the payload as JSON only when it is an object, and tells image from process payloads', () => {
    expect(decodeEnvelope(wrap('[]'))).toMatchObject({ ok: false, message: expect.stringMatching(/^payload: /) });
    expect(decodeEnvelope(wrap('null'))).toMatchObject({ ok: false, message: expect.stringMatching(/^payload: /) });
    const proc = decode(process_());
    expect(proc.ok && 'process' in proc.value.payload).toBe(true);
    // An image payload naming `process: undefined` is an image payload: JSON drops the key.
    expect(decode({ ...image(), process: undefined })).toMatchObject({ ok: true });
    expect(peekEnvelope(wrap(process_()))).toEqual({ service: 'web', kind: 'process' });
    expect(peekEnvelope(wrap(image()))).toEqual({ service: 'web', kind: 'image' });
    expect(peekEnvelope(wrap('not json'))).toBeNull();
    expect(peekEnvelope(wrap({ ...image(), service: 42 }))).toBeNull();
    expect(peekEnvelope({ payload: wrap(image()).payload, signature: 'x' })).toEqual({ service: 'web', kind: 'image' });
    expect(peekEnvelope('a string')).toBeNull();
    expect(peekEnvelope({})).toBeNull();
  });
});

describe('duplicate keys, references, allowlists and expiry at their edges', () => {
  it('finds a duplicate key only among the keys of one object, whatever the values, nesting and arrays around it', () => {
    expect(duplicateJsonKey('{"a":"a","b":"b"}')).toBeNull(); // a value is not a key
    expect(duplicateJsonKey('{"a":{"x":1},"x":2}')).toBeNull(); // keys of the inner object are its own
    expect(duplicateJsonKey('{"a":[{"x":1},{"x":1}],"x":["x","x"]}')).toBeNull();
    expect(duplicateJsonKey('{"a":[1,2],"b":[3],"b":4}')).toBe('b');
    expect(duplicateJsonKey('{"a":[{"b":1},{"b":2,"b":3}]}')).toBe('a.1.b');
    expect(duplicateJsonKey('[{"a":1},[{"c":1,"c":2}]]')).toBe('1.0.c');
    expect(duplicateJsonKey('{"k\\"":1,"k\\"":2}')).toBe('k"'); // an escaped quote inside a key
  });

  it('splits references at their own separators only', () => {
    expect(parseImageRef('nginx')).toEqual({ repository: 'nginx', tag: null, digest: null });
    expect(parseImageRef('reg:5000/web')).toEqual({ repository: 'reg:5000/web', tag: null, digest: null });
    expect(parseImageRef(`@${DIGEST}`)).toEqual({ repository: '', tag: null, digest: DIGEST });
  });

  it('an empty allowlist entry allows nothing; any one matching entry is enough', () => {
    expect(allowedService('web', [''])).toBe(false);
    expect(allowedService('web', ['api', 'web'])).toBe(true);
    expect(allowedRepository('reg/team/web', ['other/', 'reg/team'])).toBe(true);
    expect(allowedRepository('reg/team/web', ['', 'other'])).toBe(false);
  });

  it('refuses an expiry that is not a time', () => {
    expect(checkExpiry('not a time', Date.parse('2030-01-01T00:00:00Z'))).toBe('expires_at: not a time');
  });

  it('a CI job passes on exactly these terminal states', () => {
    expect(PASSING_STATES).toEqual(['success', 'no_op', 'success_degraded', 'preflight_ok']);
  });
});
