/** The stale-build refusal of the test run (global-setup.ts): integration tests run dist/, so dist/ older than src/ or web/ stops the run. */
import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { staleBuild } from './global-setup.js';

describe('staleBuild', () => {
  const root = mkdtempSync(join(tmpdir(), 'denv-stale-'));
  afterAll(() => rmSync(root, { recursive: true, force: true }));
  const file = (rel: string, at: number) => {
    const p = join(root, rel);
    mkdirSync(dirname(p), { recursive: true });
    writeFileSync(p, '');
    utimesSync(p, at, at);
  };

  it('refuses a missing dist/, a dist/ older than src/ or a dist/web older than web/, and ignores test files', () => {
    file('src/cli/main.ts', 1000);
    file('web/src/app.tsx', 1000);
    expect(staleBuild(root)).toMatch(/^dist\/ is missing: run `npm run build`/);
    file('dist/cli/main.js', 2000);
    file('dist/web/index.html', 2000);
    expect(staleBuild(root)).toBeNull();
    file('src/cli/main.test.ts', 3000); // not built: editing a test needs no build
    expect(staleBuild(root)).toBeNull();
    file('src/cli/main.ts', 3000);
    expect(staleBuild(root)).toBe('dist/ is older than src/cli/main.ts: run `npm run build` before the tests (they run the CLI from dist/, which would be stale code)');
    file('dist/cli/main.js', 4000);
    file('web/src/app.tsx', 5000); // dist/web, not the compiled server code, is what the UI build makes
    expect(staleBuild(root)).toMatch(/^dist\/web\/ is older than web\/src\/app\.tsx: run `npm run build`/);
    file('dist/web/index.html', 6000);
    expect(staleBuild(root)).toBeNull();
  });
});
