/**
 * The shipped code's files under `dir`, for static checks of it (no-shell.test.ts,
 * linked-abort.test.ts): sources and scripts (.ts, .mjs, .js), without tests and without the agent's
 * test support (src/agent/testing).
 */
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

export function shippedFiles(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const full = join(dir, name);
    if (statSync(full).isDirectory()) out.push(...shippedFiles(full));
    else if (/\.(ts|mjs|js)$/.test(name) && !name.endsWith('.test.ts') && !full.includes(`${join('src', 'agent', 'testing')}`)) out.push(full);
  }
  return out;
}
