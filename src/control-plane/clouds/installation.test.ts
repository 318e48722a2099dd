/**
 * installation.ts: what of this checkout a machine gets (the production dependencies, found the
 * way Node resolves them; no dev tools), on the real package and on a small package tree made for
 * the test, and the tar argv on its exact output — run for real, unpacked as an ssh cloud does.
 */
import { existsSync, readdirSync, mkdirSync, mkdtempSync, readFileSync, readlinkSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { runPipedOrThrow } from '../../lib/exec.js';
import { unpackArgv } from './ssh/remote-steps.js';
import { installationPaths, installationTarArgv, PACKAGE_ROOT } from './installation.js';

describe('installationPaths of this package', () => {
  const paths = installationPaths(PACKAGE_ROOT);
  const pkg = JSON.parse(readFileSync(path.join(PACKAGE_ROOT, 'package.json'), 'utf8')) as { dependencies: Record<string, string>; devDependencies: Record<string, string> };
  /** Where `name` sits when required from the package directory `from` (relative to the root), as Node finds it. */
  const carried = (name: string, from: string) => paths.includes(`node_modules/${name}`) || existsSync(path.join(PACKAGE_ROOT, from, 'node_modules', name, 'package.json'));

  it('is rooted at the checkout', () => {
    expect(PACKAGE_ROOT).toBe(fileURLToPath(new URL('../../../', import.meta.url)).replace(/\/$/, ''));
  });

  it("starts with denv's own files, then the packages sorted", () => {
    expect(paths.slice(0, 3)).toEqual(['bin', 'dist', 'package.json']);
    const packages = paths.slice(3);
    expect(packages.every((p) => p.startsWith('node_modules/'))).toBe(true);
    expect(packages).toEqual([...packages].sort());
    expect(new Set(paths).size).toBe(paths.length);
  });

  it('holds every production dependency, and the runtime packages by name', () => {
    for (const name of Object.keys(pkg.dependencies)) expect(paths, name).toContain(`node_modules/${name}`);
    expect(paths).toEqual(expect.arrayContaining(['node_modules/fastify', 'node_modules/ws', 'node_modules/@electric-sql/pglite']));
  });

  it("holds fastify's dependencies and theirs (hoisted, or nested inside a package it holds)", () => {
    expect(paths).toEqual(expect.arrayContaining(['node_modules/avvio', 'node_modules/find-my-way', 'node_modules/pino', 'node_modules/light-my-request', 'node_modules/sonic-boom']));
    const fastify = JSON.parse(readFileSync(path.join(PACKAGE_ROOT, 'node_modules/fastify/package.json'), 'utf8')) as { dependencies: Record<string, string> };
    for (const name of Object.keys(fastify.dependencies)) expect(carried(name, 'node_modules/fastify'), name).toBe(true);
    const pino = JSON.parse(readFileSync(path.join(PACKAGE_ROOT, 'node_modules/pino/package.json'), 'utf8')) as { dependencies: Record<string, string> };
    for (const name of Object.keys(pino.dependencies)) expect(carried(name, 'node_modules/pino'), name).toBe(true);
  });

  it('leaves the dev tools behind', () => {
    for (const dev of ['vitest', 'typescript', 'vite', 'playwright-core', 'tsx', 'esbuild', 'preact', '@types/node']) expect(paths, dev).not.toContain(`node_modules/${dev}`);
    expect(paths.filter((p) => p.startsWith('node_modules/@stryker-mutator/'))).toEqual([]);
    for (const name of Object.keys(pkg.devDependencies)) expect(paths, name).not.toContain(`node_modules/${name}`);
  });

  it('lists only paths that exist', () => {
    expect(paths.filter((p) => !existsSync(path.join(PACKAGE_ROOT, p)))).toEqual([]);
  });

  it('lists no path inside another listed path', () => {
    const nested = paths.flatMap((p) => paths.filter((q) => q !== p && p.startsWith(`${q}/`)).map((q) => `${p} inside ${q}`));
    expect(nested).toEqual([]);
  });
});

describe('installationPaths of a package tree', () => {
  const base = mkdtempSync(path.join(tmpdir(), 'denv-installation-test-'));
  afterAll(() => rmSync(base, { recursive: true, force: true }));

  const write = (root: string, rel: string, content: string) => {
    mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
    writeFileSync(path.join(root, rel), content);
  };
  const pkg = (root: string, rel: string, deps: Record<string, string> = {}, optional: Record<string, string> = {}) =>
    write(root, path.join(rel, 'package.json'), JSON.stringify({ name: path.basename(rel), version: '1.0.0', dependencies: deps, optionalDependencies: optional }));

  /**
   * denv → a, @s/b, optional opt-here (present) and gone-opt (missing); dev tool devtool.
   * a → c, nested at node_modules/a/node_modules/c (a hoisted c of another version is unused).
   * @s/b → d and a (already found), optional also-gone (missing); d → @s/b (a cycle).
   */
  const tree = (name: string) => {
    const root = path.join(base, name);
    write(root, 'package.json', JSON.stringify({ name: 'app', dependencies: { a: '1', '@s/b': '1' }, optionalDependencies: { 'opt-here': '1', 'gone-opt': '1' }, devDependencies: { devtool: '1' } }));
    write(root, 'bin/denv', '#!/usr/bin/env node\n');
    write(root, 'dist/main.js', 'export {};\n');
    pkg(root, 'node_modules/a', { c: '2' });
    write(root, 'node_modules/a/index.js', 'module.exports = 1;\n');
    symlinkSync('index.js', path.join(root, 'node_modules/a/link.js'));
    pkg(root, 'node_modules/a/node_modules/c');
    pkg(root, 'node_modules/c');
    pkg(root, 'node_modules/@s/b', { d: '1', a: '1' }, { 'also-gone': '1' });
    pkg(root, 'node_modules/d', { '@s/b': '1' });
    pkg(root, 'node_modules/opt-here');
    pkg(root, 'node_modules/devtool');
    return root;
  };

  it('follows dependencies the way Node resolves them; nested packages travel with their parent; missing optional ones are skipped', () => {
    expect(installationPaths(tree('ok'))).toEqual(['bin', 'dist', 'package.json', 'node_modules/@s/b', 'node_modules/a', 'node_modules/d', 'node_modules/opt-here']);
  });

  it('takes the hoisted copy when there is no nested one', () => {
    const root = tree('hoisted');
    rmSync(path.join(root, 'node_modules/a/node_modules'), { recursive: true });
    expect(installationPaths(root)).toEqual(['bin', 'dist', 'package.json', 'node_modules/@s/b', 'node_modules/a', 'node_modules/c', 'node_modules/d', 'node_modules/opt-here']);
  });

  it('throws naming a required dependency that is not installed, and who needs it', () => {
    const root = tree('missing-deep');
    rmSync(path.join(root, 'node_modules/d'), { recursive: true });
    expect(() => installationPaths(root)).toThrow(new Error('d (needed by node_modules/@s/b) is not installed: run npm ci'));
    const top = tree('missing-top');
    rmSync(path.join(top, 'node_modules/a'), { recursive: true });
    expect(() => installationPaths(top)).toThrow(new Error('a (needed by denv) is not installed: run npm ci'));
  });

  it('does not look above the root for a dependency', () => {
    const outer = path.join(base, 'outer');
    pkg(outer, 'node_modules/above');
    write(outer, 'inner/package.json', JSON.stringify({ name: 'inner', dependencies: { above: '1' } }));
    expect(() => installationPaths(path.join(outer, 'inner'))).toThrow(new Error('above (needed by denv) is not installed: run npm ci'));
  });

  it('the tar of it unpacks under app/ as an ssh cloud unpacks it, symlinks unchanged', async () => {
    const root = tree('tar');
    const dest = path.join(base, 'machine');
    mkdirSync(dest);
    await runPipedOrThrow(installationTarArgv(root, installationPaths(root), 'app/'), unpackArgv(dest), { producerCwd: root, timeoutMs: 60_000 });
    expect(readFileSync(path.join(dest, 'app/bin/denv'), 'utf8')).toBe('#!/usr/bin/env node\n');
    expect(existsSync(path.join(dest, 'app/dist/main.js'))).toBe(true);
    expect(existsSync(path.join(dest, 'app/node_modules/a/node_modules/c/package.json'))).toBe(true);
    expect(existsSync(path.join(dest, 'app/node_modules/@s/b/package.json'))).toBe(true);
    expect(readlinkSync(path.join(dest, 'app/node_modules/a/link.js'))).toBe('index.js');
    expect(readFileSync(path.join(dest, 'app/node_modules/a/link.js'), 'utf8')).toBe('module.exports = 1;\n');
    expect(existsSync(path.join(dest, 'app/node_modules/devtool'))).toBe(false);
    expect(existsSync(path.join(dest, 'app/node_modules/c'))).toBe(false);
    expect(existsSync(path.join(dest, 'bin'))).toBe(false);
  });

  it('leaves out what nothing runs: source maps, type declarations, Markdown', async () => {
    const root = tree('slim');
    for (const f of ['index.js.map', 'index.d.ts', 'index.d.mts', 'index.d.cts', 'README.md']) write(root, `node_modules/a/${f}`, 'x');
    const dest = path.join(base, 'slim-machine');
    mkdirSync(dest);
    await runPipedOrThrow(installationTarArgv(root, installationPaths(root)), unpackArgv(dest), { producerCwd: root, timeoutMs: 60_000 });
    expect(readdirSync(path.join(dest, 'node_modules/a')).sort()).toEqual(readdirSync(path.join(root, 'node_modules/a')).filter((f) => !/\.(map|d\.[mc]?ts|md)$/.test(f)).sort());
    expect(existsSync(path.join(dest, 'node_modules/a/package.json'))).toBe(true);
  });
});

describe('installationTarArgv', () => {
  const EXCLUDES = ['--owner=0', '--group=0', '--numeric-owner', '--mode=go-w', '--exclude=*.map', '--exclude=*.d.ts', '--exclude=*.d.mts', '--exclude=*.d.cts', '--exclude=*.md'];
  it('writes the paths from the root to stdout', () => {
    expect(installationTarArgv('/srv/denv', ['bin', 'dist', 'package.json', 'node_modules/ws'])).toEqual(['tar', '-c', '-f', '-', '-C', '/srv/denv', ...EXCLUDES, '--', 'bin', 'dist', 'package.json', 'node_modules/ws']);
  });

  it('puts each path under the prefix, leaving symlink targets as they are', () => {
    expect(installationTarArgv('/srv/denv', ['bin', 'dist'], 'app/')).toEqual(['tar', '-c', '-f', '-', '-C', '/srv/denv', ...EXCLUDES, '--transform', 's,^,app/,S', '--', 'bin', 'dist']);
  });
});
