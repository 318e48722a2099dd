/**
 * The host-wide uid registry: distinct uids per env and per agent, the same uid on every later
 * deploy, forks inheriting, uids given back — and an env that has its uid is answered without
 * waiting for the registry's lock (a deploy after the first spawns no flock(1)).
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { acquireFileLock } from '../locks/file-lock.js';
import { DYNAMIC_UID_MIN, UidRegistry } from './uid-registry.js';

const root = mkdtempSync(join(tmpdir(), 'denv-uids-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('UidRegistry', () => {
  const file = join(root, 'uids.json');
  const agentA = mkdtempSync(join(root, 'agent-a-'));
  const agentB = mkdtempSync(join(root, 'agent-b-'));
  const a = new UidRegistry(agentA, file);
  const b = new UidRegistry(agentB, file);

  it('gives each env of each agent its own uid, the same one every time, and forks their source’s', async () => {
    const web = await a.uidFor('env_web');
    const db = await a.uidFor('env_db');
    const other = await b.uidFor('env_web');
    expect(web).toBe(DYNAMIC_UID_MIN);
    expect(new Set([web, db, other]).size).toBe(3);
    expect(await a.uidFor('env_web')).toBe(web);
    expect(await a.inherit('env_web', 'env_fork')).toBe(web);
    const table = JSON.parse(readFileSync(file, 'utf8')) as Record<string, { agent: string; envs: string[] }>;
    expect(table[String(web)]).toEqual({ agent: agentA, envs: ['env_web', 'env_fork'] });
    expect(table[String(other)]).toEqual({ agent: agentB, envs: ['env_web'] });
  });

  it('answers an env that has its uid while another process holds the lock; a new env waits for it', async () => {
    const web = await a.uidFor('env_web');
    const release = await acquireFileLock(`${file}.lock`);
    let allocated: number | null = null;
    const waiting = a.uidFor('env_new').then((uid) => (allocated = uid));
    try {
      expect(await a.uidFor('env_web')).toBe(web);
      expect(allocated).toBeNull();
    } finally {
      await release();
    }
    expect(await waiting).not.toBe(web);
  });

  it('frees a uid when its last env is released, and allocates it again', async () => {
    const web = await a.uidFor('env_web');
    expect(await a.release('env_web')).toBeNull(); // the fork still runs as it
    expect(await a.release('env_fork')).toBe(web);
    expect(await a.uidFor('env_other')).toBe(web);
  });
});
