/**
 * cloud-init.ts on its exact output: the whole user_data for a fixed input, each runcmd line as
 * the argv a shell makes of it (shell-quote's parse, and /bin/sh itself), the bash scripts
 * syntax-checked by bash, and values full of shell metacharacters staying single arguments.
 */
import { spawnSync } from 'node:child_process';
import { parse as parseShell } from 'shell-quote';
import { parse as parseYaml } from 'yaml';
import { describe, expect, it } from 'vitest';
import { cloudInit, METADATA_PUBLIC_IPV4, NODE_VERSION, type CloudInitInput } from './cloud-init.js';

const INPUT: CloudInitInput = { machine: 'mch_0a1b2c', name: 'hetzner-1', enrollmentKey: 'enk_s3cr3t-KEY_x', controlUrl: 'https://denv.example.com/', installDir: '/opt/denv' };

const INSTALL_NODE =
  'set -euo pipefail; ' +
  'if command -v node >/dev/null 2>&1; then v="$(node --version)"; v="${v#v}"; if [ "${v%%.*}" -ge 20 ]; then exit 0; fi; fi; ' +
  'case "$(uname -m)" in x86_64) arch=x64 ;; aarch64) arch=arm64 ;; *) echo "no Node.js build for $(uname -m)" >&2; exit 1 ;; esac; ' +
  'curl -fsSL --retry 10 "https://nodejs.org/dist/$1/node-$1-linux-$arch.tar.gz" | tar -xz -C /usr/local --strip-components=1 --no-same-owner';
const DOWNLOAD = 'set -euo pipefail; curl -fsS --retry 10 -H @"$1" "$2" | tar -x -C "$3"';
const INSTALL_AGENT =
  'set -euo pipefail; ' +
  'address="$(curl -fsS --retry 10 http://169.254.169.254/hetzner/v1/metadata/public-ipv4)"; ' +
  'key="$(cat "$1")"; ' +
  'DENV_ENROLLMENT_KEY="$key" node "$2" agent-service install --dir "$3" --control "$4" --name "$5" --address "$address"';

/** The argv each runcmd line of `input` must be (control URL without its trailing slash). */
const expectedArgv = (i: CloudInitInput, control: string) => [
  ['set', '-e'],
  ['bash', '-c', INSTALL_NODE, 'denv-install-node', NODE_VERSION],
  ['mkdir', '-p', `${i.installDir}/app`],
  ['bash', '-c', DOWNLOAD, 'denv-download', `${i.installDir}/enrollment-header`, `${control}/v1/install/denv.tar`, `${i.installDir}/app`],
  ['bash', '-c', INSTALL_AGENT, 'denv-agent-service', `${i.installDir}/enrollment-key`, `${i.installDir}/app/bin/denv`, i.installDir, control, i.name],
  ['rm', '-f', `${i.installDir}/enrollment-key`, `${i.installDir}/enrollment-header`],
];

interface Parsed {
  write_files: { path: string; content: string; permissions: string; owner: string }[];
  runcmd: string[];
}
const parsed = (text: string): Parsed => parseYaml(text) as Parsed;

/** The words /bin/sh makes of `line` (as cloud-init's runcmd script runs it), NUL-separated by printf. */
function shWords(line: string): string[] {
  const r = spawnSync('sh', ['-c', `set -- ${line}\nprintf '%s\\0' "$@"`], { encoding: 'utf8' });
  expect(r.status, r.stderr).toBe(0);
  return r.stdout.split('\0').slice(0, -1);
}

describe('cloudInit (a Hetzner machine’s first boot)', () => {
  it('is exactly this #cloud-config for a fixed input', () => {
    expect(cloudInit(INPUT)).toBe(
      [
        '#cloud-config',
        'write_files:',
        '  - path: /opt/denv/.denv-machine',
        '    content: |',
        '      made by denv for machine mch_0a1b2c',
        '    permissions: "0644"',
        '    owner: root:root',
        '  - path: /opt/denv/enrollment-key',
        '    content: enk_s3cr3t-KEY_x',
        '    permissions: "0600"',
        '    owner: root:root',
        '  - path: /opt/denv/enrollment-header',
        '    content: |',
        '      Authorization: Bearer enk_s3cr3t-KEY_x',
        '    permissions: "0600"',
        '    owner: root:root',
        'runcmd:',
        '  - set -e',
        `  - bash -c '${INSTALL_NODE}' denv-install-node ${NODE_VERSION}`,
        '  - mkdir -p /opt/denv/app',
        `  - bash -c '${DOWNLOAD}' denv-download /opt/denv/enrollment-header https\\://denv.example.com/v1/install/denv.tar /opt/denv/app`,
        `  - bash -c '${INSTALL_AGENT}' denv-agent-service /opt/denv/enrollment-key /opt/denv/app/bin/denv /opt/denv https\\://denv.example.com hetzner-1`,
        '  - rm -f /opt/denv/enrollment-key /opt/denv/enrollment-header',
        '',
      ].join('\n'),
    );
  });

  it('parses back: the marker, the key files root-only, the steps in order', () => {
    const c = parsed(cloudInit(INPUT));
    expect(c.write_files).toEqual([
      { path: '/opt/denv/.denv-machine', content: 'made by denv for machine mch_0a1b2c\n', permissions: '0644', owner: 'root:root' },
      { path: '/opt/denv/enrollment-key', content: 'enk_s3cr3t-KEY_x', permissions: '0600', owner: 'root:root' },
      { path: '/opt/denv/enrollment-header', content: 'Authorization: Bearer enk_s3cr3t-KEY_x\n', permissions: '0600', owner: 'root:root' },
    ]);
    expect(c.runcmd.map((line) => parseShell(line))).toEqual(expectedArgv(INPUT, 'https://denv.example.com'));
    expect(c.runcmd.map(shWords)).toEqual(expectedArgv(INPUT, 'https://denv.example.com'));
    expect(INSTALL_AGENT).toContain(METADATA_PUBLIC_IPV4);
  });

  it('the key is in no runcmd line: the steps read it from the 0600 files', () => {
    for (const line of parsed(cloudInit(INPUT)).runcmd) expect(line).not.toContain(INPUT.enrollmentKey);
  });

  it('each bash script is valid bash (bash -n)', () => {
    for (const script of [INSTALL_NODE, DOWNLOAD, INSTALL_AGENT]) {
      const r = spawnSync('bash', ['-n', '-c', script], { encoding: 'utf8' });
      expect(r.status, r.stderr).toBe(0);
    }
  });

  it('values with shell metacharacters stay one argument each, to shell-quote and to /bin/sh', () => {
    const nasty: CloudInitInput = {
      machine: "mch_'x",
      name: 'web;reboot',
      enrollmentKey: "k'$(id)`id`;x",
      controlUrl: "https://cp.example/'; rm -rf / #$(touch /tmp/owned)`id`!\\\"",
      installDir: "/opt/de nv'$(id)",
    };
    const c = parsed(cloudInit(nasty));
    const want = expectedArgv(nasty, nasty.controlUrl);
    expect(c.runcmd.map((line) => parseShell(line))).toEqual(want);
    expect(c.runcmd.map(shWords)).toEqual(want);
    expect(c.write_files[1]!.content).toBe(nasty.enrollmentKey);
    expect(c.write_files[2]!.content).toBe(`Authorization: Bearer ${nasty.enrollmentKey}\n`);
  });

  it('install_dir and the control URL are taken as given (one trailing slash dropped)', () => {
    const c = parsed(cloudInit({ ...INPUT, installDir: '/srv/denv', controlUrl: 'http://10.0.0.2:8080' }));
    expect(c.runcmd.map((line) => parseShell(line))).toEqual(expectedArgv({ ...INPUT, installDir: '/srv/denv' }, 'http://10.0.0.2:8080'));
    expect(c.write_files.map((f) => f.path)).toEqual(['/srv/denv/.denv-machine', '/srv/denv/enrollment-key', '/srv/denv/enrollment-header']);
  });
});
