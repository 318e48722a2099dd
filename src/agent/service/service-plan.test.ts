/**
 * service-plan.ts on its exact output: the agent's argv, the environment file and its reading
 * back, systemd's quoting and the whole unit for fixed settings, and the supervisor's waits
 * between restarts.
 */
import { describe, expect, it } from 'vitest';
import { newSecret } from '../../contracts/ids.js';
import { agentArgv, envFileText, MARKER, parseEnvFile, paths, restartDelayMs, systemdQuote, systemdUnit, UNIT_NAME, UNIT_PATH, type ServiceSettings } from './service-plan.js';

const SETTINGS: ServiceSettings = { dir: '/opt/denv', control: 'https://denv.example.com', name: 'ssh-1', address: '10.0.0.5', allowPaths: ['/srv/apps', '/home/deploy/50% off'] };

describe('layout', () => {
  it('names each file under the directory', () => {
    expect(MARKER).toBe('.denv-machine');
    expect(UNIT_NAME).toBe('denv-agent.service');
    expect(UNIT_PATH).toBe('/etc/systemd/system/denv-agent.service');
    expect(paths('/opt/denv')).toEqual({
      marker: '/opt/denv/.denv-machine',
      app: '/opt/denv/app',
      dataDir: '/opt/denv/agent',
      workloads: '/opt/denv/workloads',
      envFile: '/opt/denv/agent.env',
      record: '/opt/denv/service.json',
      pidFile: '/opt/denv/supervisor.pid',
      log: '/opt/denv/agent.log',
    });
  });
});

describe('agentArgv', () => {
  it('runs `denv agent` with its data, workloads, name, address and allowed paths', () => {
    expect(agentArgv('/usr/bin/node', '/opt/denv/app/bin/denv', SETTINGS)).toEqual([
      '/usr/bin/node', '/opt/denv/app/bin/denv', 'agent',
      '--control', 'https://denv.example.com',
      '--data-dir', '/opt/denv/agent',
      '--workloads', '/opt/denv/workloads',
      '--name', 'ssh-1',
      '--address', '10.0.0.5',
      '--allow-path', '/srv/apps',
      '--allow-path', '/home/deploy/50% off',
    ]);
  });

  it('leaves out --address and --allow-path when there are none', () => {
    expect(agentArgv('/usr/local/bin/node', '/srv/denv/app/bin/denv', { dir: '/srv/denv', control: 'http://10.0.0.1:8080', name: 'hetzner-2' })).toEqual([
      '/usr/local/bin/node', '/srv/denv/app/bin/denv', 'agent', '--control', 'http://10.0.0.1:8080', '--data-dir', '/srv/denv/agent', '--workloads', '/srv/denv/workloads', '--name', 'hetzner-2',
    ]);
    expect(agentArgv('node', 'denv', { dir: '/d/x', control: 'http://c', name: 'n', address: '', allowPaths: [] })).toEqual(['node', 'denv', 'agent', '--control', 'http://c', '--data-dir', '/d/x/agent', '--workloads', '/d/x/workloads', '--name', 'n']);
  });
});

describe('the environment file', () => {
  it('holds the enrollment key as one line', () => {
    expect(envFileText('denr_AbC-12_x.y~z+/=')).toBe('DENV_ENROLLMENT_KEY=denr_AbC-12_x.y~z+/=\n');
  });

  it.each([
    ['a newline', 'denr_abcdefgh\nDENV_OTHER=1'],
    ['a trailing newline', 'denr_abcdefgh\n'],
    ['a space', 'denr_abcd efgh'],
    ['a tab', 'denr_abcd\tefgh'],
    ['a quote', 'denr_abcd"efgh'],
    ['a dollar', 'denr_abcd$efgh'],
    ['a backslash', 'denr_abcd\\efgh'],
    ['a percent', 'denr_abcd%efgh'],
    ['too few characters', 'denr_ab'],
    ['nothing', ''],
    ['too many characters', `denr_${'a'.repeat(508)}`],
  ])('refuses a key with %s', (_why, key) => {
    expect(() => envFileText(key)).toThrow(new Error('the enrollment key has characters an enrollment key never has'));
  });

  it('takes a key of 512 characters', () => {
    const key = `denr_${'a'.repeat(507)}`;
    expect(envFileText(key)).toBe(`DENV_ENROLLMENT_KEY=${key}\n`);
  });

  it('reads back what it wrote, for keys the control plane makes', () => {
    for (let n = 0; n < 50; n++) {
      const key = newSecret('denr');
      expect(parseEnvFile(envFileText(key))).toEqual({ DENV_ENROLLMENT_KEY: key });
    }
  });

  it('reads KEY=value lines only, the last of a name winning; a value keeps its = signs', () => {
    expect(parseEnvFile('# a comment\nDENV_ENROLLMENT_KEY=a=b==\n\nlower=x\n not=indented\nEMPTY=\nDENV_ENROLLMENT_KEY=second\n1BAD=x\nA_1=y')).toEqual({
      DENV_ENROLLMENT_KEY: 'second',
      EMPTY: '',
      A_1: 'y',
    });
    expect(parseEnvFile('')).toEqual({});
  });
});

describe('systemdQuote', () => {
  it.each([
    ['plain', '"plain"'],
    ['', '""'],
    ['two words', '"two words"'],
    ['$HOME', '"$$HOME"'],
    ['${HOME}$', '"$${HOME}$$"'],
    ['50%', '"50%%"'],
    ['%n%%', '"%%n%%%%"'],
    ['say "hi"', '"say \\"hi\\""'],
    ['C:\\dir\\', '"C:\\\\dir\\\\"'],
    ['\\"', '"\\\\\\""'],
    ["it's", '"it\'s"'],
    ['a $b %c "d" \\e', '"a $$b %%c \\"d\\" \\\\e"'],
  ])('%j → %s', (arg, quoted) => {
    expect(systemdQuote(arg)).toBe(quoted);
  });
});

describe('systemdUnit', () => {
  it('is the whole unit for fixed settings', () => {
    const argv = agentArgv('/usr/bin/node', '/opt/denv/app/bin/denv', SETTINGS);
    expect(systemdUnit(SETTINGS, argv)).toBe(
      [
        '[Unit]',
        'Description=denv agent ssh-1',
        'After=network-online.target',
        'Wants=network-online.target',
        '',
        '[Service]',
        'EnvironmentFile=-/opt/denv/agent.env',
        'ExecStart="/usr/bin/node" "/opt/denv/app/bin/denv" "agent" "--control" "https://denv.example.com" "--data-dir" "/opt/denv/agent" "--workloads" "/opt/denv/workloads" "--name" "ssh-1" "--address" "10.0.0.5" "--allow-path" "/srv/apps" "--allow-path" "/home/deploy/50%% off"',
        'Restart=always',
        'RestartSec=2',
        'KillMode=process',
        '',
        '[Install]',
        'WantedBy=multi-user.target',
        '',
      ].join('\n'),
    );
  });
});

describe('restartDelayMs', () => {
  it('waits 1 s after the first failure, doubling to a 30 s cap while the agent keeps failing', () => {
    const delays: number[] = [];
    let delay = 0;
    for (let n = 0; n < 8; n++) {
      delay = restartDelayMs(delay, 500);
      delays.push(delay);
    }
    expect(delays).toEqual([1000, 2000, 4000, 8000, 16000, 30000, 30000, 30000]);
  });

  it('goes back to 1 s after a run of a minute or more', () => {
    expect(restartDelayMs(30_000, 60_000)).toBe(1000);
    expect(restartDelayMs(16_000, 3_600_000)).toBe(1000);
    expect(restartDelayMs(0, 60_000)).toBe(1000);
    expect(restartDelayMs(30_000, 59_999)).toBe(30_000);
    expect(restartDelayMs(8000, 59_999)).toBe(16_000);
  });
});
