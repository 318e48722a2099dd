/**
 * bin/denv-git-ssh: run ssh as sshArgv says, with git's stdin/stdout (the git protocol flows
 * through them), and exit as ssh did. Started by git only (GIT_SSH); no shell anywhere.
 */
import { spawn } from 'node:child_process';
import { sshArgv } from './git-env.js';

let argv: string[];
try {
  argv = sshArgv(process.argv.slice(2), process.env);
} catch (err) {
  process.stderr.write(`${(err as Error).message}\n`);
  process.exit(255);
}
const [program, ...args] = argv;
const child = spawn(program!, args, { stdio: 'inherit', shell: false });
child.on('error', (err) => {
  process.stderr.write(`denv-git-ssh: cannot run ssh: ${err.message}\n`);
  process.exit(255);
});
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 255 : 0)));
