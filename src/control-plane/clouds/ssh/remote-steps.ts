/**
 * What an ssh cloud runs on a machine, step by step (pure: each step's remote argv is tested
 * exactly; ssh-provider.ts runs them through ssh-session.ts). `dir` is the cloud's install_dir.
 *
 *   probe      node's version, and whether `dir` is absent, empty, denv's (has the marker) or someone else's
 *   remove     stop an agent installed there before and delete `dir` (denv's `agent-service remove`,
 *              or `rm -rf` of a denv directory whose upload never finished)
 *   claim      create `dir` with denv's marker
 *   unpack     tar from stdin into `dir` (the installation arrives as `app/…`)
 *   install    `denv agent-service install` from the uploaded app, the enrollment key on stdin
 */
import path from 'node:path';

/** The oldest Node a machine may have (package.json's engines). */
export const MIN_NODE_MAJOR = 20;

/** Run by the machine's `node`; prints one JSON line. No shell: it is node's `-e` argument. */
const PROBE = [
  "const fs = require('fs'), path = require('path');",
  'const dir = process.argv[1];',
  "let state = 'absent';",
  "if (fs.existsSync(dir)) state = fs.existsSync(path.join(dir, '.denv-machine')) ? 'denv' : fs.readdirSync(dir).length ? 'foreign' : 'empty';",
  "console.log(JSON.stringify({ node: process.versions.node, dir: state, app: fs.existsSync(path.join(dir, 'app', 'bin', 'denv')), uid: process.getuid() }));",
].join(' ');

export interface Probe {
  readonly node: string;
  readonly dir: 'absent' | 'empty' | 'denv' | 'foreign';
  readonly app: boolean;
  /** The login's uid: denv installs a service and runs its agent as root, so only root logs in. */
  readonly uid: number;
}

const denv = (dir: string) => path.posix.join(dir, 'app', 'bin', 'denv');

export const probeArgv = (dir: string): string[] => ['node', '-e', PROBE, dir];

/** The probe's output, or why the machine cannot take an agent. */
export function readProbe(stdout: string, target: string, dir: string): Probe {
  const line = stdout.trim().split('\n').pop() ?? '';
  let probe: Probe | null = null;
  try {
    probe = JSON.parse(line) as Probe;
  } catch {
    // said below
  }
  const states: readonly string[] = ['absent', 'empty', 'denv', 'foreign'];
  if (!probe || typeof probe !== 'object' || typeof probe.node !== 'string' || !states.includes(probe.dir) || typeof probe.app !== 'boolean' || typeof probe.uid !== 'number') {
    throw new Error(`${target}: the probe printed ${JSON.stringify(line.slice(0, 200))}, not its JSON`);
  }
  const major = Number(probe.node.split('.')[0]);
  if (!(major >= MIN_NODE_MAJOR)) throw new Error(`${target} has Node ${probe.node}; denv needs Node ${MIN_NODE_MAJOR} or newer there`);
  if (probe.uid !== 0) throw new Error(`${target} logs in as uid ${probe.uid}: denv installs its agent as a root service (systemd unit, process users), so the cloud must log in as root`);
  if (probe.dir === 'foreign') throw new Error(`${target}: ${dir} exists and was not made by denv; choose another install_dir`);
  return probe;
}

/** The steps that clear what an earlier install left (none when `dir` is not denv's). */
export function removeArgv(dir: string, probe: Probe): string[][] {
  if (probe.dir !== 'denv') return [];
  return probe.app ? [['node', denv(dir), 'agent-service', 'remove', '--dir', dir, '--json']] : [['rm', '-rf', '--', dir]];
}

export const claimArgv = (dir: string): string[] => ['install', '-D', '-m', '0644', '/dev/null', path.posix.join(dir, '.denv-machine')];

export const unpackArgv = (dir: string): string[] => ['tar', '-x', '-f', '-', '-C', dir, '--no-same-owner'];

export interface InstallSettings {
  readonly dir: string;
  readonly control: string;
  readonly name: string;
  readonly address: string;
  readonly allowPaths?: readonly string[];
}

export function installArgv(s: InstallSettings): string[] {
  return [
    'node', denv(s.dir), 'agent-service', 'install', '--dir', s.dir, '--control', s.control, '--name', s.name, '--address', s.address,
    ...(s.allowPaths ?? []).flatMap((p) => ['--allow-path', p]),
    '--key-stdin', '--json',
  ];
}
