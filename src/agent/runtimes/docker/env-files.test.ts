import { mkdtempSync, rmSync, statSync, readFileSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { EnvFiles, envFileText } from './env-files.js';

const shm = mkdtempSync('/dev/shm/denv-envfiles-test-');
const disk = mkdtempSync(join(tmpdir(), 'denv-envfiles-'));
afterAll(() => {
  rmSync(shm, { recursive: true, force: true });
  rmSync(disk, { recursive: true, force: true });
});

describe('envFileText', () => {
  const env = { B: 'say "hi" \\ $HOME #x', A: "it's" };
  it('v1: double quotes, backslash and quote escaped, sorted keys', () => {
    expect(envFileText(env, 'v1')).toBe(`A="it's"\nB="say \\"hi\\" \\\\ $HOME #x"\n`);
  });
  it("v2: single quotes (literal); a value holding ' is refused", () => {
    expect(envFileText({ B: 'x $HOME "q"' }, 'v2')).toBe(`B='x $HOME "q"'\n`);
    expect(() => envFileText(env, 'v2')).toThrow(/env A: a value containing ' cannot/);
  });
  it('refuses line breaks and NUL', () => {
    expect(() => envFileText({ K: 'a\nb' }, 'v1')).toThrow(/line breaks/);
    expect(envFileText({}, 'v1')).toBe('');
  });
});

describe('EnvFiles', () => {
  it('writes 0600 files in a 0700 dir on tmpfs, prunes and removes them', async () => {
    const files = new EnvFiles(join(shm, 'root'));
    const a = await files.write('slot-1', 'hmac-sha256:aaaa', 'A="1"\n');
    const b = await files.write('slot-1', 'hmac-sha256:bbbb', 'B="2"\n');
    expect(statSync(a).mode & 0o777).toBe(0o600);
    expect(statSync(join(shm, 'root')).mode & 0o777).toBe(0o700);
    expect(readFileSync(a, 'utf8')).toBe('A="1"\n');
    expect(await files.prune('slot-1', [b])).toBe(1);
    expect(readdirSync(files.dirOf('slot-1'))).toEqual(['bbbb.env']);
    await files.removeSlot('slot-1');
    expect(readdirSync(join(shm, 'root'))).toEqual([]);
  });

  it('refuses a root that is not on tmpfs', async () => {
    await expect(new EnvFiles(join(disk, 'env')).ensureRoot()).rejects.toThrow(/is not on tmpfs/);
  });
});
