import { describe, expect, it } from 'vitest';
import { DenvError } from '../contracts/errors.js';
import { CliError } from './cli-error.js';
import { errorFromBody, unreachable, withQuery } from './client.js';
import { formatAge, formatDuration, formatError, formatFields, formatTable, truncate } from './output.js';
import { formatUsageError } from './program.js';

describe('formatError', () => {
  it('prints error (CODE): message for our errors', () => {
    expect(formatError(new CliError('NOT_FOUND', 'no deployment dep_1', 404))).toBe('error (NOT_FOUND): no deployment dep_1');
    expect(formatError(new DenvError('INVALID_COMPOSE', 'services.web: needs an image or a command'))).toBe(
      'error (INVALID_COMPOSE): services.web: needs an image or a command',
    );
  });

  it('keeps Node system error codes and calls anything else INTERNAL', () => {
    const inUse = Object.assign(new Error('listen EADDRINUSE: address already in use 127.0.0.1:4600'), { code: 'EADDRINUSE' });
    expect(formatError(inUse)).toBe('error (EADDRINUSE): listen EADDRINUSE: address already in use 127.0.0.1:4600');
    expect(formatError(new TypeError('x is not a function'))).toBe('error (INTERNAL): x is not a function');
    expect(formatError(Object.assign(new Error('m'), { code: 'ERR_lower' }))).toBe('error (INTERNAL): m');
    expect(formatError('plain string')).toBe('error (INTERNAL): plain string');
  });

  it('adds the stack only with verbose', () => {
    const err = new CliError('CONFLICT', 'busy');
    expect(formatError(err, true)).toMatch(/^error \(CONFLICT\): busy\nCliError: busy\n\s+at /);
  });

  it('formats commander usage errors the same way', () => {
    expect(formatUsageError("error: unknown option '--x'\n")).toBe("error (USAGE): unknown option '--x'\n");
  });
});

describe('API error answers', () => {
  it('uses the API code and message', () => {
    const err = errorFromBody({ status: 409, statusText: 'Conflict' }, '{"error":{"code":"INVALID_TRANSITION","message":"env is stopped"}}', 'POST', '/v1/envs/e/stop');
    expect(err).toMatchObject({ code: 'INVALID_TRANSITION', message: 'env is stopped', status: 409 });
  });

  it('falls back to HTTP_<status> for answers that are not the error shape', () => {
    const err = errorFromBody({ status: 502, statusText: 'Bad Gateway' }, '<html>upstream down</html>', 'GET', '/v1/hosts');
    expect(err).toMatchObject({ code: 'HTTP_502', message: 'GET /v1/hosts answered 502 Bad Gateway: <html>upstream down</html>', status: 502 });
  });

  it('words a refused connection exactly', () => {
    const refused = Object.assign(new TypeError('fetch failed'), { cause: Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }) });
    expect(formatError(unreachable('http://127.0.0.1:4600', refused))).toBe(
      'error (UNREACHABLE): cannot reach the control plane at http://127.0.0.1:4600: is `denv dev` or `denv server` running?',
    );
    const dns = Object.assign(new TypeError('fetch failed'), { cause: Object.assign(new Error('getaddrinfo ENOTFOUND cp.example'), { code: 'ENOTFOUND' }) });
    expect(formatError(unreachable('http://cp.example', dns))).toBe('error (UNREACHABLE): cannot reach the control plane at http://cp.example: getaddrinfo ENOTFOUND cp.example');
  });

  it('builds query strings without undefined values', () => {
    expect(withQuery('/v1/events', { subject: 'env:e 1', after: 3, limit: undefined })).toBe('/v1/events?subject=env%3Ae+1&after=3');
    expect(withQuery('/v1/hosts', { limit: undefined })).toBe('/v1/hosts');
  });
});

describe('formatting helpers', () => {
  it('formats durations', () => {
    expect(formatDuration(0)).toBe('0 ms');
    expect(formatDuration(412)).toBe('412 ms');
    expect(formatDuration(3249)).toBe('3.2 s');
    expect(formatDuration(125_000)).toBe('2m05s');
    expect(formatDuration(3_720_000)).toBe('1h02m');
    expect(formatDuration(-1)).toBe('?');
  });

  it('formats ages', () => {
    const now = Date.parse('2025-01-01T01:00:00Z');
    expect(formatAge('2025-01-01T00:59:55Z', now)).toBe('5s ago');
    expect(formatAge('2025-01-01T00:57:00Z', now)).toBe('3m ago');
    expect(formatAge('2024-12-31T23:00:00Z', now)).toBe('2h ago');
    expect(formatAge('2024-12-28T01:00:00Z', now)).toBe('4d ago');
    expect(formatAge(null, now)).toBe('never');
  });

  it('truncates with an ellipsis', () => {
    expect(truncate('abcdef', 6)).toBe('abcdef');
    expect(truncate('abcdef', 4)).toBe('abc…');
  });

  it('aligns tables without trailing blanks', () => {
    expect(formatTable(['id', 'status', 'note'], [['h_1', 'connected', ''], ['host_22', 'degraded', 'slow']])).toBe(
      ['ID       STATUS     NOTE', 'h_1      connected', 'host_22  degraded   slow'].join('\n'),
    );
  });

  it('aligns fields; an empty key continues the previous one', () => {
    expect(formatFields([['id', 'env_1'], ['endpoints', 'a'], ['', 'b']])).toBe(['id:         env_1', 'endpoints:  a', '            b'].join('\n'));
  });
});
