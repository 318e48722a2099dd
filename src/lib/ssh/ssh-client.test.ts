/**
 * ssh-client.ts on its exact output: which `user@host[:port]` texts are machines, the client
 * options and the whole `ssh` argv, and the remote command string read back as argv — by
 * shell-quote's parse and by real /bin/sh and bash — equal to the argv given, whatever it holds.
 * Also git-env.ts's sshArgv, which builds its options with sshClientOptions.
 */
import { parse } from 'shell-quote';
import { describe, expect, it } from 'vitest';
import { runOrThrow } from '../exec.js';
import { sshArgv } from '../git/git-env.js';
import { parseSshTarget, sshClientOptions, sshCommand, sshMasterCommand, type SshIdentity } from './ssh-client.js';

const PINNING: SshIdentity = { keyFile: '/run/denv-ssh-1/key', knownHostsFile: '/run/denv-ssh-1/known_hosts', pinOnFirstUse: true };
const PINNED: SshIdentity = { ...PINNING, pinOnFirstUse: false };

/** The options every ssh run gets, with the host-key policy `strict`. */
const options = (strict: 'accept-new' | 'yes', key = PINNING.keyFile, known = PINNING.knownHostsFile) => [
  '-F', '/dev/null',
  '-i', key,
  '-o', 'IdentitiesOnly=yes',
  '-o', 'BatchMode=yes',
  '-o', `UserKnownHostsFile=${known}`,
  '-o', 'GlobalKnownHostsFile=/dev/null',
  '-o', `StrictHostKeyChecking=${strict}`,
  '-o', 'ConnectTimeout=20',
  '-o', 'ServerAliveInterval=15',
];

describe('parseSshTarget', () => {
  it.each([
    ['root@example.com', { user: 'root', host: 'example.com', port: 22 }],
    ['deploy@10.0.0.5:2222', { user: 'deploy', host: '10.0.0.5', port: 2222 }],
    ['root@[2001:db8::5]:2222', { user: 'root', host: '2001:db8::5', port: 2222 }],
    ['root@[::1]', { user: 'root', host: '::1', port: 22 }],
    ['_svc.deploy-1@web-1.internal.example:1', { user: '_svc.deploy-1', host: 'web-1.internal.example', port: 1 }],
    ['root@HOST.Example.COM:65535', { user: 'root', host: 'HOST.Example.COM', port: 65535 }],
    ['root@h:022', { user: 'root', host: 'h', port: 22 }],
  ])('%s is a machine', (text, target) => {
    expect(parseSshTarget(text)).toEqual(target);
  });

  it.each([
    ['port 0', 'root@example.com:0'],
    ['port 65536', 'root@example.com:65536'],
    ['a six-digit port', 'root@example.com:100000'],
    ['an empty port', 'root@example.com:'],
    ['two ports', 'root@example.com:22:23'],
    ['no user', 'example.com'],
    ['an empty user', '@example.com'],
    ['no host', 'root@'],
    ['an uppercase user', 'Root@example.com'],
    ['a user starting with a digit', '1root@example.com'],
    ['a user of 33 characters', `${'a'.repeat(33)}@example.com`],
    ['a leading space', ' root@example.com'],
    ['a trailing space', 'root@example.com '],
    ['a space in the host', 'root@exa mple.com'],
    ['a space around the @', 'root @example.com'],
    ['a newline after it', 'root@example.com\n'],
    ['an IPv6 host without brackets', 'root@2001:db8::5'],
    ['an IPv6 host with a zone', 'root@[fe80::1%eth0]'],
    ['a port inside the brackets', 'root@[2001:db8::5:2222'],
    ['two @', 'root@jump@example.com'],
  ])('refuses %s', (_why, text) => {
    expect(parseSshTarget(text)).toBeNull();
  });

  // A host name never starts with "-" (RFC 1123); sshCommand puts the host where ssh reads
  // options, so `-V`, `-Jjump.example` or `-Eside-file` would be taken as ssh options.
  it('refuses a host starting with "-", which ssh would read as an option', () => {
    expect(['root@-V', 'root@-Jjump.example', 'root@-Eside-file:2222'].map(parseSshTarget)).toEqual([null, null, null]);
  });

  it('a user of 32 characters is one', () => {
    expect(parseSshTarget(`${'a'.repeat(32)}@example.com`)).toEqual({ user: 'a'.repeat(32), host: 'example.com', port: 22 });
  });
});

describe('sshClientOptions', () => {
  it('pins an unknown host key on first use', () => {
    expect(sshClientOptions(PINNING)).toEqual(options('accept-new'));
  });

  it('refuses an unknown host key when pinning is off', () => {
    expect(sshClientOptions(PINNED)).toEqual(options('yes'));
  });
});

describe('sshCommand', () => {
  it('is ssh, the options, the port and user, the host, and the remote command after --', () => {
    expect(sshCommand(PINNING, { user: 'deploy', host: '10.0.0.5', port: 2222 }, ['tar', '-x', '-f', '-', '-C', '/opt/denv'])).toEqual([
      'ssh', ...options('accept-new'), '-p', '2222', '-l', 'deploy', '10.0.0.5', '--', 'tar -x -f - -C /opt/denv',
    ]);
  });

  it('with a control path, shares a master connection when there is one (ControlMaster=no: else it connects by itself)', () => {
    expect(sshCommand(PINNED, { user: 'root', host: 'h', port: 22 }, ['true'], '/tmp/s/master')).toEqual(['ssh', ...options('yes'), '-o', 'ControlMaster=no', '-o', 'ControlPath=/tmp/s/master', '-p', '22', '-l', 'root', 'h', '--', 'true']);
    expect(sshMasterCommand(PINNED, { user: 'root', host: 'h', port: 2222 }, '/tmp/s/master')).toEqual(['ssh', ...options('yes'), '-o', 'ControlMaster=yes', '-o', 'ControlPath=/tmp/s/master', '-N', '-p', '2222', '-l', 'root', 'h']);
  });

  it('gives an IPv6 host without brackets (the port goes in -p)', () => {
    expect(sshCommand(PINNED, parseSshTarget('root@[2001:db8::5]')!, ['true'])).toEqual(['ssh', ...options('yes'), '-p', '22', '-l', 'root', '2001:db8::5', '--', 'true']);
  });

  const NASTY = [
    'node',
    "it's",
    'a;b',
    '$(x)',
    '`id`',
    'two words',
    'line one\nline two',
    "all of it: 'q' ; $(rm -rf /) \"dq\" \\ back\nslash",
    "'!",
    '',
    '$HOME',
    'a|b&c>d<e',
    '-',
    '--',
    '# not a comment',
  ];

  it('quotes the remote argv so that shell-quote reads it back exactly', () => {
    const command = sshCommand(PINNING, { user: 'root', host: 'h', port: 22 }, NASTY).at(-1)!;
    expect(parse(command)).toEqual(NASTY);
  });

  it.each([["'"], [';'], ['$(x)'], [' '], ['\n']])('one argument holding %j stays one argument', (nasty) => {
    const remote = ['printf', `a${nasty}b`, nasty, `${nasty}${nasty}`];
    expect(parse(sshCommand(PINNED, { user: 'root', host: 'h', port: 22 }, remote).at(-1)!)).toEqual(remote);
  });

  // What the remote user's shell makes of the command string is what counts: sh and bash run it,
  // and node (the command) prints the argv it was given. `*` and `?` too: shell-quote's parse
  // reads `\*` as a glob, a real shell does not.
  it.each(['sh', 'bash'])('%s runs the command string with exactly the remote argv', async (shell) => {
    const remote = [process.execPath, '-e', 'process.stdout.write(JSON.stringify(process.argv.slice(1)))', ...NASTY, '*', 'a?', '~', '{a,b}', '[x]'];
    const command = sshCommand(PINNING, { user: 'root', host: 'h', port: 22 }, remote).at(-1)!;
    const out = await runOrThrow([shell, '-c', command], { cwd: '/', env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: '/nonexistent' } });
    expect(JSON.parse(out.stdout)).toEqual(remote.slice(3));
  });
});

describe("git-env's sshArgv (built on sshClientOptions)", () => {
  const env = { DENV_GIT_SSH_KEY: '/tmp/m/denv_key', DENV_GIT_KNOWN_HOSTS: '/tmp/m/denv_known_hosts' };
  const gitArgs = ['-p', '2222', '-o', 'SendEnv=GIT_PROTOCOL', 'git@example.com', "git-upload-pack '/app.git'"];

  it('pins on first use when DENV_GIT_SSH_PIN is accept-new, and puts git’s arguments after the options', () => {
    expect(sshArgv(gitArgs, { ...env, DENV_GIT_SSH_PIN: 'accept-new' })).toEqual(['ssh', ...options('accept-new', env.DENV_GIT_SSH_KEY, env.DENV_GIT_KNOWN_HOSTS), ...gitArgs]);
  });

  it.each([['yes'], [undefined], ['no']])('checks the host key strictly when DENV_GIT_SSH_PIN is %s', (pin) => {
    expect(sshArgv(gitArgs, { ...env, DENV_GIT_SSH_PIN: pin })).toEqual(['ssh', ...options('yes', env.DENV_GIT_SSH_KEY, env.DENV_GIT_KNOWN_HOSTS), ...gitArgs]);
  });

  it('gives the same options as sshClientOptions for the same identity', () => {
    const id: SshIdentity = { keyFile: env.DENV_GIT_SSH_KEY, knownHostsFile: env.DENV_GIT_KNOWN_HOSTS, pinOnFirstUse: true };
    expect(sshArgv([], { ...env, DENV_GIT_SSH_PIN: 'accept-new' })).toEqual(['ssh', ...sshClientOptions(id)]);
  });

  it('refuses to run without the key and known-hosts files', () => {
    const message = 'denv-git-ssh: DENV_GIT_SSH_KEY and DENV_GIT_KNOWN_HOSTS must be set (git runs it for denv)';
    expect(() => sshArgv(gitArgs, { DENV_GIT_KNOWN_HOSTS: env.DENV_GIT_KNOWN_HOSTS })).toThrow(message);
    expect(() => sshArgv(gitArgs, { DENV_GIT_SSH_KEY: env.DENV_GIT_SSH_KEY })).toThrow(message);
    expect(() => sshArgv(gitArgs, { DENV_GIT_SSH_KEY: '', DENV_GIT_KNOWN_HOSTS: env.DENV_GIT_KNOWN_HOSTS })).toThrow(message);
  });
});
