/**
 * One agent per data dir. Two `denv agent` processes on one data dir would both present its host
 * credential, take the host's link from each other in turn (close code 4000) and both start what
 * its command log and env state say to run. So the agent holds a `flock(2)` on
 * `<dataDir>/agent.lock` while it runs (file-lock.ts: the kernel drops it when the agent goes,
 * however it goes) and writes its pid into the file for the error a second agent gives.
 *
 * A second agent waits up to WAIT_MS for it: an agent started again right after a crash may find
 * the dead one's lock helper (`flock … cat`) still exiting.
 */
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { DenvError } from '../../contracts/errors.js';
import { acquireFileLock } from './file-lock.js';

const WAIT_MS = 5000;

/** Hold the agent's lock on `dataDir`; resolves with its release. Throws STORE_LOCKED while another agent holds it. */
export async function lockAgentDataDir(dataDir: string, waitMs = WAIT_MS): Promise<() => Promise<void>> {
  const file = path.join(dataDir, 'agent.lock');
  let release: () => Promise<void>;
  try {
    release = await acquireFileLock(file, { waitMs });
  } catch (err) {
    if (!(err instanceof DenvError && err.code === 'TIMEOUT')) throw err;
    const holder = (await readFile(file, 'utf8').catch(() => '')).trim();
    const pid = /^\d+$/.test(holder) ? ` (pid ${holder})` : '';
    throw new DenvError('STORE_LOCKED', `the data dir ${dataDir} is in use by another denv agent${pid}; stop it or use another --data-dir`);
  }
  await writeFile(file, `${process.pid}\n`);
  return release;
}
