/**
 * usablePath drops the PATH entries a service's user cannot search, checked on real directories
 * made with the modes of the case that found it (root's pyenv shims: a 0755 dir under root's
 * 0700 home) and the owner and group cases.
 */
import { chmodSync, chownSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { buildEnvironment } from '../envs/source-build.js';
import { dirsAbove, searchable, usablePath } from './usable-path.js';

const NOBODY = { uid: 65534, gid: 65534 };

describe('searchable', () => {
  it('reads the owner’s, the group’s or the others’ x bit, whichever applies; root may always', () => {
    expect(searchable({ mode: 0o40700, uid: 0, gid: 0 }, NOBODY)).toBe(false);
    expect(searchable({ mode: 0o40701, uid: 0, gid: 0 }, NOBODY)).toBe(true);
    expect(searchable({ mode: 0o40710, uid: 0, gid: 65534 }, NOBODY)).toBe(true);
    expect(searchable({ mode: 0o40701, uid: 0, gid: 65534 }, NOBODY)).toBe(false); // the group's bits apply, not the others'
    expect(searchable({ mode: 0o40100, uid: 65534, gid: 0 }, NOBODY)).toBe(true);
    expect(searchable({ mode: 0o40011, uid: 65534, gid: 0 }, NOBODY)).toBe(false); // the owner's bits apply
    expect(searchable({ mode: 0o40000, uid: 5, gid: 5 }, { uid: 0, gid: 0 })).toBe(true);
  });

  it('checks every directory above an entry', () => {
    expect(dirsAbove('/root/.pyenv/shims')).toEqual(['/', '/root', '/root/.pyenv', '/root/.pyenv/shims']);
    expect(dirsAbove('/usr//bin/')).toEqual(['/', '/usr', '/usr/bin']);
  });
});

describe('usablePath', () => {
  const root = mkdtempSync(path.join(os.tmpdir(), 'denv-usable-path-'));
  chmodSync(root, 0o755);
  afterAll(() => rmSync(root, { recursive: true, force: true }));
  const dir = (rel: string, mode: number, gid = 0) => {
    const p = path.join(root, rel);
    mkdirSync(p);
    chownSync(p, 0, gid);
    chmodSync(p, mode);
    return p;
  };

  it('drops what the user cannot search and keeps the rest in order', () => {
    dir('home', 0o700); // root's 0700 home…
    const shims = dir('home/shims', 0o755); // …with an open directory in it
    const shared = dir('shared', 0o755);
    const team = dir('team', 0o750, NOBODY.gid);
    const closedTeam = dir('closed-team', 0o750, NOBODY.gid + 1);
    const missing = path.join(root, 'not-made');
    const pathVar = [shims, shared, team, closedTeam, missing, 'relative', '/usr/bin'].join(':');
    expect(usablePath(pathVar, NOBODY)).toBe([shared, team, missing, 'relative', '/usr/bin'].join(':'));
    expect(usablePath(pathVar, { uid: 65533, gid: NOBODY.gid + 1 })).toBe([shared, closedTeam, missing, 'relative', '/usr/bin'].join(':'));
  });

  it('leaves the agent’s own PATH as it is (null: no user of its own) and root’s', () => {
    const pathVar = `${path.join(root, 'home', 'shims')}:/usr/bin`;
    expect(usablePath(pathVar, null)).toBe(pathVar);
    expect(usablePath(pathVar, { uid: 0, gid: 0 })).toBe(pathVar);
  });

  it('gives a source build run as the service’s user the same PATH (docs/source-deploys.md)', () => {
    dir('build-home', 0o700);
    const shims = dir('build-home/shims', 0o755);
    const agentPath = process.env.PATH;
    process.env.PATH = `${shims}:/usr/bin`;
    try {
      expect(buildEnvironment({ environment: {} }, '/nonexistent', { ...NOBODY, name: null }).PATH).toBe('/usr/bin');
      expect(buildEnvironment({ environment: {} }, '/nonexistent', null).PATH).toBe(process.env.PATH);
    } finally {
      process.env.PATH = agentPath;
    }
  });
});
