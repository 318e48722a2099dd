/**
 * Headless Chromium from Debian (`/usr/bin/chromium`) driven by playwright-core, as STACK.md
 * says: a fresh user-data dir per launch, no sandbox (tests run as root), nothing phoning home.
 * One browser per test file; `close()` removes its profile.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type BrowserContext, type Page } from 'playwright-core';

export const CHROMIUM = process.env.DENV_CHROMIUM ?? '/usr/bin/chromium';
const ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

/** Where tests save screenshots: `test-output/<sub>/` at the repository root (gitignored). */
export function outputDir(sub: string): string {
  const dir = fileURLToPath(new URL(`../../test-output/${sub}/`, import.meta.url));
  mkdirSync(dir, { recursive: true });
  return dir;
}

export interface Browser {
  readonly context: BrowserContext;
  readonly page: Page;
  close(): Promise<void>;
}

export async function launchBrowser(): Promise<Browser> {
  const profile = mkdtempSync(path.join(tmpdir(), 'denv-chromium-'));
  const context = await chromium.launchPersistentContext(profile, { executablePath: CHROMIUM, headless: true, args: ARGS, viewport: { width: 1280, height: 900 } });
  const page = context.pages()[0] ?? (await context.newPage());
  return {
    context,
    page,
    async close() {
      await context.close().catch(() => {});
      rmSync(profile, { recursive: true, force: true });
    },
  };
}
