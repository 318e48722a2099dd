import { closeSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { DenvError } from '../../contracts/errors.js';
import { ensurePrivateDir } from './data-dir-modes.js';

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * PGlite takes no lock on its directory, and two processes writing one would corrupt it. The
 * control plane holds `<dataDir>/control-plane.lock` (created exclusively, holding its pid) while
 * it runs. A lock left by a dead process (SIGKILL) is taken over.
 */
export function lockDataDir(dataDir: string): { release(): void } {
  ensurePrivateDir(dataDir);
  const path = join(dataDir, 'control-plane.lock');
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(path, 'wx', 0o600);
      writeSync(fd, String(process.pid));
      closeSync(fd);
      return { release: () => rmSync(path, { force: true }) };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const pid = Number.parseInt(readFileSync(path, 'utf8'), 10);
      if (Number.isInteger(pid) && alive(pid)) {
        throw new DenvError('STORE_LOCKED', `the data dir ${dataDir} is in use by another denv process (pid ${pid}); stop it or use another --data-dir`);
      }
      rmSync(path, { force: true });
    }
  }
  throw new DenvError('STORE_LOCKED', `could not lock ${dataDir}`);
}
