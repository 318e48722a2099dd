// Small helpers shared by the bench scripts (newer ones import them; older ones keep their own copies).
import { createServer } from 'node:net';

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
