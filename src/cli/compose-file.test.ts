import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readComposeFile, resolveWorkingDirs } from './compose-file.js';

describe('resolveWorkingDirs', () => {
  const dir = '/srv/app';

  it('resolves a relative working_dir against the compose directory', () => {
    const out = resolveWorkingDirs({ services: { web: { command: ['node', 'server.js'], working_dir: '.' }, api: { command: 'x', working_dir: '../api' } } }, dir);
    expect(out).toEqual({
      services: {
        web: { command: ['node', 'server.js'], working_dir: '/srv/app' },
        api: { command: 'x', working_dir: '/srv/api' },
      },
    });
  });

  it('keeps an absolute working_dir', () => {
    const out = resolveWorkingDirs({ services: { web: { command: 'x', working_dir: '/opt/web' } } }, dir);
    expect(out.services).toEqual({ web: { command: 'x', working_dir: '/opt/web' } });
  });

  it('gives a command service without working_dir the compose directory', () => {
    const out = resolveWorkingDirs({ services: { web: { command: 'x' } } }, dir);
    expect(out.services).toEqual({ web: { command: 'x', working_dir: '/srv/app' } });
  });

  it('leaves image services alone (their working_dir is inside the container)', () => {
    const svc = { image: 'busybox', command: 'httpd', working_dir: 'www' };
    expect(resolveWorkingDirs({ services: { web: svc } }, dir).services).toEqual({ web: svc });
  });

  it('keeps everything else in the document and does not mutate the input', () => {
    const input = { 'x-denv': { warm: 'x' }, volumes: { data: null }, services: { web: { command: 'x', working_dir: 'a' } } };
    const copy = structuredClone(input);
    const out = resolveWorkingDirs(input, dir);
    expect(input).toEqual(copy);
    expect(out['x-denv']).toEqual({ warm: 'x' });
    expect(out.volumes).toEqual({ data: null });
  });

  it('passes malformed services through for the validator to report', () => {
    expect(resolveWorkingDirs({ services: ['web'] }, dir)).toEqual({ services: ['web'] });
    expect(resolveWorkingDirs({ services: { web: 'nope' } }, dir)).toEqual({ services: { web: 'nope' } });
  });

  it('refuses a relative compose directory', () => {
    expect(() => resolveWorkingDirs({ services: {} }, 'rel')).toThrow(/absolute/);
  });
});

describe('readComposeFile', () => {
  let tmp = '';
  beforeAll(async () => {
    tmp = await mkdtemp(path.join(tmpdir(), 'denv-compose-'));
  });
  afterAll(async () => {
    await rm(tmp, { recursive: true, force: true });
  });

  it('reads YAML and resolves working dirs relative to the file', async () => {
    const file = path.join(tmp, 'compose.yaml');
    await writeFile(file, 'services:\n  web:\n    command: ["node", "server.js"]\n    working_dir: ./app\n');
    const compose = await readComposeFile(file);
    expect(compose.path).toBe(file);
    expect(compose.doc).toEqual({ services: { web: { command: ['node', 'server.js'], working_dir: path.join(tmp, 'app') } } });
  });

  it('reports a missing file as NOT_FOUND', async () => {
    await expect(readComposeFile(path.join(tmp, 'nope.yaml'))).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });

  it('reports invalid YAML and invalid specs as INVALID_COMPOSE with the path', async () => {
    const bad = path.join(tmp, 'bad.yaml');
    await writeFile(bad, 'services: [\n');
    await expect(readComposeFile(bad)).rejects.toMatchObject({ code: 'INVALID_COMPOSE' });
    const unknown = path.join(tmp, 'unknown.yaml');
    await writeFile(unknown, 'services:\n  web:\n    command: x\n    bogus: 1\n');
    await expect(readComposeFile(unknown)).rejects.toThrow(/services\.web\.bogus: not allowed here by the Compose specification/);
    const refused = path.join(tmp, 'refused.yaml');
    await writeFile(refused, 'services:\n  web:\n    command: x\n    privileged: true\n    cap_add: [NET_ADMIN]\n');
    await expect(readComposeFile(refused)).rejects.toThrow(/services\.web\.privileged: not supported by denv: .*\nservices\.web\.cap_add: not supported by denv: /);
  });
});
