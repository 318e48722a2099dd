/**
 * Bytes used by a dataset directory (live status "volume usage"). A walk of the tree, bounded: it
 * stops after `MAX_ENTRIES` entries (the answer then says `truncated`), and each directory's
 * answer is cached for `CACHE_MS`, so live status every few seconds does not re-walk big trees.
 * Symlinks are counted as links, never followed.
 */
import { lstat, readdir } from 'node:fs/promises';
import path from 'node:path';

const MAX_ENTRIES = 20_000;
const CACHE_MS = 60_000;
const MAX_CACHED = 500;

export interface Usage {
  readonly bytes: number;
  readonly truncated: boolean;
}

const cache = new Map<string, { at: number; usage: Usage }>();

export async function directoryUsage(dir: string, now = Date.now()): Promise<Usage> {
  const hit = cache.get(dir);
  if (hit && now - hit.at < CACHE_MS) return hit.usage;
  const usage = await measureTree(dir);
  cache.delete(dir);
  cache.set(dir, { at: now, usage });
  while (cache.size > MAX_CACHED) cache.delete(cache.keys().next().value!);
  return usage;
}

/** The same walk, uncached, stopping after `maxEntries` entries (snapshot sizes, freed bytes). */
export async function measureTree(dir: string, maxEntries = MAX_ENTRIES): Promise<Usage> {
  let bytes = 0;
  let seen = 0;
  let truncated = false;
  const stack = [dir];
  while (stack.length > 0) {
    const d = stack.pop()!;
    const entries = await readdir(d, { withFileTypes: true }).catch(() => []);
    for (const e of entries) {
      if (++seen > maxEntries) {
        truncated = true;
        break;
      }
      const p = path.join(d, e.name);
      if (e.isDirectory()) stack.push(p);
      else bytes += (await lstat(p).catch(() => null))?.size ?? 0;
    }
    if (truncated) break;
  }
  return { bytes, truncated };
}
