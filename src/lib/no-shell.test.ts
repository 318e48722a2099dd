/**
 * DESIGN §14: every external program is started as an argv array, never through a shell. This is
 * the static half of the proof: in the shipped code (src without tests, bin, the Action) only a
 * few modules may touch `child_process` at all, they import `spawn` and nothing that takes a
 * command string (exec, execSync …), and no spawn passes `shell`. The dynamic half records every
 * program a real agent starts during docker deploys (test/docker-standalone.test.ts).
 */
import { readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { shippedFiles } from '../../test/helpers/shipped-files.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** The modules allowed to start programs, each for a reason stated in the module. */
const SPAWNERS = new Set([
  'src/lib/exec.ts', // the executor: run, runOrThrow, startProgram
  'src/agent/runtimes/process/spawn-detached.ts', // service processes that outlive the agent (log file as stdio)
  'src/cli/agent-child.ts', // `denv dev`'s local agent, a child with piped output
  'src/lib/git/git-ssh-main.ts', // bin/denv-git-ssh: ssh with git's own stdio, in place of git's `ssh`
  'src/agent/service/supervise.ts', // denv's supervisor: the agent as its child, sharing its log as stdio
]);

describe('no shell', () => {
  const files = [...shippedFiles(join(ROOT, 'src')), ...shippedFiles(join(ROOT, 'action')), join(ROOT, 'bin', 'denv'), join(ROOT, 'bin', 'denv-git-ssh')];

  it('only the executor modules import child_process, and only spawn from it', () => {
    const importers: string[] = [];
    for (const file of files) {
      const text = readFileSync(file, 'utf8');
      const imports = [...text.matchAll(/import\s+(type\s+)?\{([^}]*)\}\s+from\s+'(?:node:)?child_process'/g)];
      if (/require\(['"](?:node:)?child_process['"]\)|import\s+\*\s+as\s+\w+\s+from\s+'(?:node:)?child_process'/.test(text)) importers.push(`${relative(ROOT, file)} (namespace import)`);
      for (const m of imports) {
        if (m[1]) continue; // type-only
        importers.push(relative(ROOT, file));
        const names = m[2]!.split(',').map((n) => n.trim().replace(/^type\s+/, '')).filter((n) => n && !/^[A-Z]/.test(n));
        expect(names, relative(ROOT, file)).toEqual(['spawn']);
      }
    }
    for (const f of importers) expect(SPAWNERS.has(f), `${f} starts programs outside the executor modules`).toBe(true);
  });

  it('no spawn is given a shell', () => {
    for (const file of files) {
      // Comments may say "shell: true is never used"; only code counts.
      const text = readFileSync(file, 'utf8').replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:'"`])\/\/.*$/gm, '$1');
      expect(/shell\s*:\s*(true|['"`])/.test(text), `${relative(ROOT, file)} passes shell`).toBe(false);
      for (const call of text.matchAll(/\bspawn\(([^;]*?)\{([^}]*)\}/g)) {
        expect(call[2]!.includes('shell: false') || !call[2]!.includes('shell'), relative(ROOT, file)).toBe(true);
      }
    }
  });
});
