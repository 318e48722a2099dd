/**
 * Entry point of the `denv` executable (`bin/denv` imports the compiled `dist/cli/main.js`).
 * Runs the command, sets the exit code, and makes sure the process ends: a long-running role that
 * has closed everything it started should not be kept alive by a stray handle.
 */
import { runCli } from './program.js';

// `denv events | head -1`: the reader went away; that is not an error worth a stack trace.
process.stdout.on('error', (err: NodeJS.ErrnoException) => {
  if (err.code === 'EPIPE') process.exit(process.exitCode ?? 0);
  throw err;
});

process.exitCode = await runCli(process.argv);
setTimeout(() => process.exit(), 3000).unref();
