/**
 * `denv env ls --watch`: print the env table, then print it again each time it changes (polled
 * every second), until Ctrl-C. With --json each changed page is printed as one JSON line.
 */
import { setTimeout as delay } from 'node:timers/promises';
import type { Env, Page } from '../../contracts/domain.js';
import type { ApiClient } from '../client.js';
import { say } from '../help.js';
import { formatTable } from '../output.js';
import { onShutdown } from '../signals.js';

export const ENV_LIST_POLL_MS = 1000;

export async function watchEnvList(client: ApiClient, query: { limit?: number; after?: string; project?: string }, opts: { json?: boolean; rows: (items: readonly Env[]) => string[][]; headers: readonly string[] }): Promise<void> {
  const shutdown = onShutdown();
  let last = '';
  try {
    while (!shutdown.signal.aborted) {
      const page = await client.get<Page<Env>>('/v1/envs', query, shutdown.signal).catch((err: unknown) => {
        if (shutdown.signal.aborted) return null;
        throw err;
      });
      if (!page) break;
      const text = opts.json ? JSON.stringify(page) : formatTable(opts.headers, opts.rows(page.items));
      if (text !== last) {
        if (last !== '' && !opts.json) say(`--- ${new Date().toISOString()}`);
        say(text);
        last = text;
      }
      await delay(ENV_LIST_POLL_MS, undefined, { signal: shutdown.signal }).catch(() => undefined);
    }
  } finally {
    shutdown.dispose();
  }
}
