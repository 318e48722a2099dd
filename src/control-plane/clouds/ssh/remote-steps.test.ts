/**
 * remote-steps.ts on its exact output: each step's argv for each state the probe can report, and
 * readProbe's verdicts. The probe script itself runs for real with this machine's node against a
 * directory in each state, as it runs on a machine over ssh.
 */
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { run } from '../../../lib/exec.js';
import { claimArgv, installArgv, MIN_NODE_MAJOR, probeArgv, readProbe, removeArgv, unpackArgv, type Probe } from './remote-steps.js';

const DIR = '/opt/denv';
const TARGET = 'root@10.0.0.5';

const PROBE_SCRIPT = [
  "const fs = require('fs'), path = require('path');",
  'const dir = process.argv[1];',
  "let state = 'absent';",
  "if (fs.existsSync(dir)) state = fs.existsSync(path.join(dir, '.denv-machine')) ? 'denv' : fs.readdirSync(dir).length ? 'foreign' : 'empty';",
  "console.log(JSON.stringify({ node: process.versions.node, dir: state, app: fs.existsSync(path.join(dir, 'app', 'bin', 'denv')), uid: process.getuid() }));",
].join(' ');

const probe = (dir: Probe['dir'], app: boolean): Probe => ({ node: '20.11.1', dir, app, uid: 0 });

describe('step argv', () => {
  it('probe: node -e <script> <dir>', () => {
    expect(probeArgv(DIR)).toEqual(['node', '-e', PROBE_SCRIPT, DIR]);
  });

  it('claim: the marker made with its parent directories', () => {
    expect(claimArgv(DIR)).toEqual(['install', '-D', '-m', '0644', '/dev/null', '/opt/denv/.denv-machine']);
  });

  it('unpack: tar from stdin into dir, owned by the user unpacking', () => {
    expect(unpackArgv(DIR)).toEqual(['tar', '-x', '-f', '-', '-C', '/opt/denv', '--no-same-owner']);
  });

  it('install: the uploaded denv installs the agent service, the key on stdin', () => {
    expect(installArgv({ dir: DIR, control: 'https://denv.example.com', name: 'ssh-1', address: '10.0.0.5' })).toEqual([
      'node', '/opt/denv/app/bin/denv', 'agent-service', 'install', '--dir', '/opt/denv', '--control', 'https://denv.example.com', '--name', 'ssh-1', '--address', '10.0.0.5', '--key-stdin', '--json',
    ]);
  });

  it('install: each allowed path as its own --allow-path', () => {
    expect(installArgv({ dir: '/srv/denv', control: 'http://10.0.0.1:8080', name: 'ssh-2', address: '2001:db8::5', allowPaths: ['/srv/apps', '/home/deploy/work dir'] })).toEqual([
      'node', '/srv/denv/app/bin/denv', 'agent-service', 'install', '--dir', '/srv/denv', '--control', 'http://10.0.0.1:8080', '--name', 'ssh-2', '--address', '2001:db8::5',
      '--allow-path', '/srv/apps', '--allow-path', '/home/deploy/work dir', '--key-stdin', '--json',
    ]);
  });

  it.each([
    ['absent', false],
    ['absent', true],
    ['empty', false],
    ['foreign', false],
    ['foreign', true],
  ] as const)('remove: nothing to clear when dir is %s (app: %s)', (dir, app) => {
    expect(removeArgv(DIR, probe(dir, app))).toEqual([]);
  });

  it("remove: denv's directory with the app stops the agent through it and deletes the directory", () => {
    expect(removeArgv(DIR, probe('denv', true))).toEqual([['node', '/opt/denv/app/bin/denv', 'agent-service', 'remove', '--dir', '/opt/denv', '--json']]);
  });

  it("remove: denv's directory without the app (an upload that never finished) is deleted", () => {
    expect(removeArgv(DIR, probe('denv', false))).toEqual([['rm', '-rf', '--', '/opt/denv']]);
  });
});

describe('readProbe', () => {
  it('reads the JSON line (the last line: a login banner may come first)', () => {
    expect(readProbe('{"node":"20.11.1","dir":"empty","app":false,"uid":0}\n', TARGET, DIR)).toEqual(probe('empty', false));
    expect(readProbe('Welcome to the machine\n\n{"node":"22.3.0","dir":"denv","app":true,"uid":0}\n', TARGET, DIR)).toEqual({ node: '22.3.0', dir: 'denv', app: true, uid: 0 });
  });

  it(`accepts Node ${MIN_NODE_MAJOR}.0.0 and anything newer`, () => {
    expect(MIN_NODE_MAJOR).toBe(20);
    expect(readProbe('{"node":"20.0.0","dir":"absent","app":false,"uid":0}', TARGET, DIR)).toEqual({ node: '20.0.0', dir: 'absent', app: false, uid: 0 });
    expect(readProbe('{"node":"100.1.0","dir":"absent","app":false,"uid":0}', TARGET, DIR).node).toBe('100.1.0');
  });

  it('refuses a machine whose Node is older than 20, naming its version', () => {
    expect(() => readProbe('{"node":"18.19.1","dir":"absent","app":false,"uid":0}', TARGET, DIR)).toThrow(new Error('root@10.0.0.5 has Node 18.19.1; denv needs Node 20 or newer there'));
    expect(() => readProbe('{"node":"19.9.0","dir":"denv","app":true,"uid":0}', TARGET, DIR)).toThrow(new Error('root@10.0.0.5 has Node 19.9.0; denv needs Node 20 or newer there'));
  });

  it("refuses a directory someone else made", () => {
    expect(() => readProbe('{"node":"20.11.1","dir":"absent","app":false,"uid":1000}', TARGET, DIR)).toThrow(new Error('root@10.0.0.5 logs in as uid 1000: denv installs its agent as a root service (systemd unit, process users), so the cloud must log in as root'));
    expect(() => readProbe('{"node":"20.11.1","dir":"foreign","app":false,"uid":0}', TARGET, DIR)).toThrow(new Error('root@10.0.0.5: /opt/denv exists and was not made by denv; choose another install_dir'));
  });

  it('says what the probe printed when it is not JSON', () => {
    expect(() => readProbe('bash: node: command not found\n', TARGET, DIR)).toThrow(new Error('root@10.0.0.5: the probe printed "bash: node: command not found", not its JSON'));
    expect(() => readProbe('', TARGET, DIR)).toThrow(new Error('root@10.0.0.5: the probe printed "", not its JSON'));
    expect(() => readProbe(`${'x'.repeat(300)}\n`, TARGET, DIR)).toThrow(new Error(`root@10.0.0.5: the probe printed "${'x'.repeat(200)}", not its JSON`));
  });

  // A last line that is JSON but not the probe's object (a stray number, null, another tool's
  // output) should be reported like any other unexpected output, naming the machine.
  it('names the machine when the last line is JSON but not the probe’s object', () => {
    for (const line of ['42', 'null', '{}', '"20.11.1"']) {
      expect(() => readProbe(`${line}\n`, TARGET, DIR), line).toThrow(/^root@10\.0\.0\.5: /);
    }
  });
});

describe('the probe, run by node', () => {
  const root = mkdtempSync(path.join(tmpdir(), 'denv-probe-test-'));
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  const probeOf = async (dir: string): Promise<Probe> => {
    const out = await run(probeArgv(dir), { env: { PATH: path.dirname(process.execPath) } });
    expect(out.exitCode, out.stderr).toBe(0);
    expect(out.stdout.endsWith('\n')).toBe(true);
    return readProbe(out.stdout, 'local', dir);
  };
  const node = process.versions.node;

  it('an absent directory', async () => {
    expect(await probeOf(path.join(root, 'absent', 'denv'))).toEqual({ node, dir: 'absent', app: false, uid: 0 });
  });

  it('an empty directory', async () => {
    const dir = path.join(root, 'empty');
    mkdirSync(dir);
    expect(await probeOf(dir)).toEqual({ node, dir: 'empty', app: false, uid: 0 });
  });

  it("denv's directory: the marker, no app yet", async () => {
    const dir = path.join(root, 'claimed');
    mkdirSync(dir);
    writeFileSync(path.join(dir, '.denv-machine'), '');
    expect(await probeOf(dir)).toEqual({ node, dir: 'denv', app: false, uid: 0 });
  });

  it("denv's directory with app/bin/denv", async () => {
    const dir = path.join(root, 'installed');
    mkdirSync(path.join(dir, 'app', 'bin'), { recursive: true });
    writeFileSync(path.join(dir, '.denv-machine'), '');
    writeFileSync(path.join(dir, 'app', 'bin', 'denv'), '#!/usr/bin/env node\n');
    chmodSync(path.join(dir, 'app', 'bin', 'denv'), 0o755);
    expect(await probeOf(dir)).toEqual({ node, dir: 'denv', app: true, uid: 0 });
  });

  it("someone else's directory (files, no marker)", async () => {
    const dir = path.join(root, 'foreign');
    mkdirSync(dir);
    writeFileSync(path.join(dir, 'data.db'), 'theirs');
    const out = await run(probeArgv(dir), { env: { PATH: path.dirname(process.execPath) } });
    expect(JSON.parse(out.stdout)).toEqual({ node, dir: 'foreign', app: false, uid: 0 });
    expect(() => readProbe(out.stdout, 'local', dir)).toThrow(new Error(`local: ${dir} exists and was not made by denv; choose another install_dir`));
  });

  it('a directory whose name needs quoting is one argument', async () => {
    const dir = path.join(root, "it's a dir; $(x)");
    mkdirSync(dir);
    writeFileSync(path.join(dir, '.denv-machine'), '');
    expect(await probeOf(dir)).toEqual({ node, dir: 'denv', app: false, uid: 0 });
  });
});
