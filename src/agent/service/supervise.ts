/**
 * denv's supervisor, where systemd does not run (install.ts): starts the agent (service.json's
 * argv, with agent.env's variables) and starts it again whenever it exits, waiting 1 s, doubling
 * to 30 s while it keeps failing. SIGTERM or SIGINT stops the agent and then the supervisor. Its
 * output and the agent's go to agent.log (the supervisor's stdout, set by install).
 */
import { spawn } from 'node:child_process';
import { readFile, rm } from 'node:fs/promises';
import { parseEnvFile, paths, restartDelayMs, type ServiceRecord } from './service-plan.js';

export async function supervise(dir: string, log: (line: string) => void): Promise<void> {
  const p = paths(dir);
  const record = JSON.parse(await readFile(p.record, 'utf8')) as ServiceRecord;
  const [program, ...args] = record.argv;
  if (!program) throw new Error(`${p.record} has no argv`);
  let stopping = false;
  let wake = () => {};
  let child: ReturnType<typeof spawn> | null = null;
  const stop = () => {
    stopping = true;
    child?.kill('SIGTERM');
    wake();
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
  let delay = 0;
  try {
    while (!stopping) {
      const env = { ...process.env, ...parseEnvFile(await readFile(p.envFile, 'utf8').catch(() => '')) };
      if (stopping) break; // stopped while the file was read
      const started = Date.now();
      const running = spawn(program, args, { cwd: dir, env, stdio: ['ignore', 'inherit', 'inherit'] });
      child = running;
      const how = await new Promise<string>((resolve) => {
        running.once('error', (err) => resolve(`could not start: ${err.message}`));
        running.once('exit', (code, signal) => resolve(signal ? `killed by ${signal}` : `exited with code ${code}`));
      });
      child = null;
      if (stopping) break;
      delay = restartDelayMs(delay, Date.now() - started);
      log(`denv supervisor: the agent ${how}; starting it again in ${delay / 1000} s`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, delay);
        wake = () => (clearTimeout(timer), resolve());
      });
    }
  } finally {
    await rm(p.pidFile, { force: true });
  }
}
