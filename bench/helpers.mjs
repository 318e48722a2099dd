// Small helpers shared by the bench scripts (newer ones import them; older ones keep their own copies).
import { closeSync, mkdirSync, openSync, truncateSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';

export const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
/** A port free on 127.0.0.1 (bound, then released). */
export const freePort = () => new Promise((r) => { const s = createServer().listen(0, '127.0.0.1', () => { const p = s.address().port; s.close(() => r(p)); }); });
/** Poll `check` until it returns something truthy (a throw counts as "not yet"); fail after `timeoutMs`. */
export async function until(check, timeoutMs, what, everyMs = 5) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await check().catch(() => undefined);
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out: ${what}`);
    await sleep(everyMs);
  }
}

/** A btrfs of `bytes` (sparse image) made and loop-mounted at `<dir>/btrfs`; its mount point. `run`: dist/lib/exec's runOrThrow. */
export async function mountLoopBtrfs(dir, bytes, runOrThrow) {
  const image = join(dir, 'btrfs.img');
  const mnt = join(dir, 'btrfs');
  mkdirSync(mnt);
  closeSync(openSync(image, 'w'));
  truncateSync(image, bytes);
  await runOrThrow(['mkfs.btrfs', '-q', image]);
  await runOrThrow(['mount', '-o', 'loop', image, mnt]);
  return mnt;
}

/** `api(method, path, body?)` → the parsed answer, with the control plane's admin token. */
export function adminApi(cp) {
  const auth = { authorization: `Bearer ${cp.adminToken}` };
  return async (method, path, body) => {
    const res = await fetch(cp.url + path, { method, headers: body === undefined ? auth : { ...auth, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
    return res.json();
  };
}
