/**
 * The pure parts of a source deploy's docker build (image-build.ts): where the context and the
 * Dockerfile are (inside the checkout, symlinks followed), the key that decides reuse, and the
 * argv (no shell; the context after `--`).
 */
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { dockerBuildArgv } from '../runtimes/docker/docker-argv.js';
import { buildPaths, imageBuildKey } from './image-build.js';

const checkout = mkdtempSync(join(tmpdir(), 'denv-image-build-'));
const outside = mkdtempSync(join(tmpdir(), 'denv-image-build-outside-'));
afterAll(() => {
  rmSync(checkout, { recursive: true, force: true });
  rmSync(outside, { recursive: true, force: true });
});
mkdirSync(join(checkout, 'app', 'docker'), { recursive: true });
writeFileSync(join(checkout, 'app', 'Dockerfile'), 'FROM scratch\n');
writeFileSync(join(checkout, 'app', 'docker', 'prod.Dockerfile'), 'FROM scratch\n');
writeFileSync(join(checkout, 'Dockerfile.root'), 'FROM scratch\n');
writeFileSync(join(outside, 'Dockerfile'), 'FROM scratch\n');
symlinkSync(outside, join(checkout, 'escape'));
symlinkSync(join(outside, 'Dockerfile'), join(checkout, 'app', 'linked.Dockerfile'));

const build = (context: string, dockerfile: string | null = 'Dockerfile') => ({ context, dockerfile, args: {}, target: null });

describe('buildPaths', () => {
  it('takes the context as a repository path (/ = the checkout) and the Dockerfile from the context, or from the root when absolute', () => {
    expect(buildPaths(checkout, build('/app'))).toEqual({ context: join(checkout, 'app'), dockerfile: join(checkout, 'app', 'Dockerfile') });
    expect(buildPaths(checkout, build('/app', 'docker/prod.Dockerfile')).dockerfile).toBe(join(checkout, 'app', 'docker', 'prod.Dockerfile'));
    expect(buildPaths(checkout, build('/app', '/Dockerfile.root')).dockerfile).toBe(join(checkout, 'Dockerfile.root'));
    // `..` never climbs out of the repository's root.
    expect(buildPaths(checkout, build('/../../app')).context).toBe(join(checkout, 'app'));
  });

  it('refuses a URL context, a missing context or Dockerfile, and a symlink out of the checkout', () => {
    expect(() => buildPaths(checkout, build('https://github.com/x/y.git'))).toThrow(/a URL context is not fetched/);
    expect(() => buildPaths(checkout, build('git@github.com:x/y.git'))).toThrow(/a URL context is not fetched/);
    expect(() => buildPaths(checkout, build('/nope'))).toThrow('build.context /nope is not a directory of the commit\'s checkout');
    expect(() => buildPaths(checkout, build('/app', 'Missing'))).toThrow('build: no Missing in /app at this commit');
    expect(() => buildPaths(checkout, build('/escape'))).toThrow('build.context /escape leaves the checkout');
    expect(() => buildPaths(checkout, build('/app', 'linked.Dockerfile'))).toThrow('build.dockerfile linked.Dockerfile leaves the checkout');
  });
});

describe('imageBuildKey', () => {
  const base = { args: { A: '1', B: '2' }, target: null };
  const key = imageBuildKey('c'.repeat(40), { context: 'app', dockerfile: 'app/Dockerfile' }, base);
  it('is the same for the same commit and inputs (args in any order), and differs when any of them changes', () => {
    expect(key).toMatch(/^[0-9a-f]{24}$/);
    expect(imageBuildKey('c'.repeat(40), { context: 'app', dockerfile: 'app/Dockerfile' }, { args: { B: '2', A: '1' }, target: null })).toBe(key);
    for (const other of [
      imageBuildKey('d'.repeat(40), { context: 'app', dockerfile: 'app/Dockerfile' }, base),
      imageBuildKey('c'.repeat(40), { context: '.', dockerfile: 'app/Dockerfile' }, base),
      imageBuildKey('c'.repeat(40), { context: 'app', dockerfile: 'app/other' }, base),
      imageBuildKey('c'.repeat(40), { context: 'app', dockerfile: 'app/Dockerfile' }, { args: { A: '1', B: '3' }, target: null }),
      imageBuildKey('c'.repeat(40), { context: 'app', dockerfile: 'app/Dockerfile' }, { ...base, target: 'run' }),
    ]) expect(other).not.toBe(key);
  });
});

describe('dockerBuildArgv', () => {
  it('passes every value as its own argument, build args as KEY=value, and the context after --', () => {
    expect(dockerBuildArgv({ context: '/c/app', dockerfile: '/c/app/Dockerfile', tag: 'denv-build/web:k', target: 'run', args: { GREETING: 'a b; $(x)' }, labels: { 'dev.denv.build.key': 'k' } })).toEqual([
      'docker', 'build', '--file', '/c/app/Dockerfile', '--tag', 'denv-build/web:k', '--target', 'run', '--build-arg', 'GREETING=a b; $(x)', '--label', 'dev.denv.build.key=k', '--', '/c/app',
    ]);
  });
});
