import { describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseEnvLines, payloadFromOptions, readEnvelopeFiles } from './envelope-options.js';

const DIGEST = `sha256:${'d'.repeat(64)}`;

describe('denv sign options', () => {
  it('builds the payload DESIGN fixes from flags', () => {
    const payload = payloadFromOptions(
      { service: 'web', image: `127.0.0.1:5000/web@${DIGEST}`, host: 'host-a', expiresIn: '10m', healthPath: '/healthz', healthTimeout: '15s', hostname: ['app.example.com'] },
      { TOKEN: 'x=y' },
      Date.parse('2030-01-01T00:00:00Z'),
      'n1',
    );
    expect(payload).toEqual({
      service: 'web',
      repository: '127.0.0.1:5000/web',
      digest: DIGEST,
      host: 'host-a',
      expires_at: '2030-01-01T00:10:00.000Z',
      nonce: 'n1',
      env: { TOKEN: 'x=y' },
      health: { path: '/healthz', timeout: '15s' },
      edge: { hostnames: ['app.example.com'] },
    });
  });

  it('builds a process payload from --process-json and refuses image flags beside it', () => {
    const process = { command: ['node', '/srv/api/server.js'], working_dir: '/srv/api' };
    const payload = payloadFromOptions({ service: 'api', host: 'host-a', expiresIn: '5m' }, { MODE: 'prod' }, Date.parse('2030-01-01T00:00:00Z'), 'n2', undefined, process);
    expect(payload).toEqual({ service: 'api', process, host: 'host-a', expires_at: '2030-01-01T00:05:00.000Z', nonce: 'n2', env: { MODE: 'prod' } });
    expect(() => payloadFromOptions({ service: 'api', host: 'h', expiresIn: '5m', image: `r/x@${DIGEST}` }, {}, 0, 'n', undefined, process)).toThrow(/--process-json signs a process service: leave out --image/);
    expect(() => payloadFromOptions({ service: 'api', host: 'h', expiresIn: '5m' }, {}, 0, 'n', undefined, { command: ['x'], shell: true })).toThrow(/payload\.process: unknown field "shell"/);
  });

  it('says what is missing, refuses tags, and parses env files literally', () => {
    expect(() => payloadFromOptions({ expiresIn: '10m' }, {}, 0, 'n')).toThrow(/missing --service, --repository \(or --image\), --digest \(or --image\), --host/);
    expect(() => payloadFromOptions({ service: 'web', image: 'r/web:1', host: 'h', expiresIn: '10m' }, {}, 0, 'n')).toThrow(/a digest, not a tag/);
    expect(() => payloadFromOptions({ service: 'web', image: `r/web@${DIGEST}`, host: 'h', expiresIn: '2h' }, {}, 0, 'n')).not.toThrow(); // the agent refuses > 1 h
    expect(parseEnvLines('# c\nA=1\n\nB="quoted $X"\n', 'f')).toEqual({ A: '1', B: '"quoted $X"' });
    expect(() => parseEnvLines('NOPE', 'f')).toThrow(/f:1: expected KEY=VALUE/);
  });

  it('adds run and scope (closed schemas, refused by path) ', () => {
    const base = { service: 'web', image: `r/web@${DIGEST}`, host: 'h', expiresIn: '10m' } as const;
    const payload = payloadFromOptions({ ...base, scopeProject: 'shop', scopeEnv: 'production' }, {}, 0, 'n', { command: ['serve'], user: '1000' });
    expect(payload).toMatchObject({ run: { command: ['serve'], user: '1000' }, scope: { project: 'shop', env: 'production' } });
    expect(() => payloadFromOptions(base, {}, 0, 'n', { privileged: true })).toThrow(/payload\.run: unknown field "privileged"/);
  });
});

describe('denv deploy --envelope', () => {
  it('reads one envelope per file and names a file that is not one', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'denv-envelopes-'));
    try {
      writeFileSync(join(dir, 'web.json'), JSON.stringify({ payload: 'e30=', signature: 'AAAA' }));
      writeFileSync(join(dir, 'bad.json'), JSON.stringify({ payload: 'e30=' }));
      expect(await readEnvelopeFiles([join(dir, 'web.json'), join(dir, 'web.json')])).toEqual([{ payload: 'e30=', signature: 'AAAA' }, { payload: 'e30=', signature: 'AAAA' }]);
      await expect(readEnvelopeFiles([join(dir, 'bad.json')])).rejects.toThrow(/--envelope .*bad\.json: expected/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
