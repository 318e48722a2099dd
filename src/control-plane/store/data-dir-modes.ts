import { chmodSync, lstatSync, mkdirSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';

/**
 * The control plane's data dir holds the embedded database (both teams' secrets live in its
 * tables and WAL) and the admin token: it is the owner's alone. `ensurePrivateDir` creates it
 * 0700, and re-applies 0700 when it already existed with a wider mode (a dir made by an older
 * version, or by hand).
 */
export function ensurePrivateDir(dir: string): void {
  // Only the dir itself is private: parents it creates get the usual mode, so a sibling such as
  // `denv dev`'s `<data-dir>-workloads` stays reachable by services' users.
  mkdirSync(dirname(dir), { recursive: true });
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  chmodSync(dir, 0o700);
}

/**
 * PGlite creates its files 0666 and its dirs 0777 (it ignores the umask's intent): on every open
 * the whole tree is set owner-only (dirs 0700, files 0600). Symlinks are left alone (never
 * followed). Files PGlite creates later are still unreachable by others: every dir above them is
 * 0700. Called with the data-dir lock held, so nothing else is writing the tree.
 */
export function tightenTree(root: string): void {
  const walk = (path: string): void => {
    let st;
    try {
      st = lstatSync(path);
    } catch {
      return; // removed while we walked (PGlite's temp files)
    }
    if (st.isSymbolicLink()) return;
    if (st.isDirectory()) {
      if ((st.mode & 0o777) !== 0o700) chmodSync(path, 0o700);
      for (const name of readdirSync(path)) walk(join(path, name));
    } else if ((st.mode & 0o777) !== 0o600) {
      chmodSync(path, 0o600);
    }
  };
  walk(root);
}
