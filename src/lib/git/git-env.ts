/**
 * The environment every git run gets (pure builder; git-run.ts executes). Git is told nothing by
 * the machine it runs on: no system or global config, no terminal prompt, a HOME of its own, and
 * only the transports a project may link (GIT_ALLOW_PROTOCOL also covers submodules and
 * redirects). Credentials reach git without a shell and without argv (which any user can read in
 * /proc): an HTTPS token as an `http.extraHeader` through GIT_CONFIG_COUNT/KEY/VALUE, an SSH key
 * as a 0600 file named to bin/denv-git-ssh, the program git runs as `ssh`.
 */
import { sshClientOptions } from '../ssh/ssh-client.js';

export interface GitEnvInput {
  /** A directory git may use as HOME (nothing of the user's is read). */
  readonly home: string;
  readonly allowFile: boolean;
  readonly token?: { readonly username: string; readonly token: string } | null;
  /** SSH: the key file, the known-hosts file, and whether an unknown host key is pinned on first use. */
  readonly ssh?: { readonly wrapper: string; readonly keyFile: string; readonly knownHostsFile: string; readonly pinOnFirstUse: boolean } | null;
  /** PATH to find git and ssh (default: this process's). */
  readonly path?: string;
}

/** The whole environment of a git run (not merged with this process's). */
export function gitEnv(i: GitEnvInput): Record<string, string> {
  const env: Record<string, string> = {
    PATH: i.path ?? process.env.PATH ?? '/usr/local/bin:/usr/bin:/bin',
    HOME: i.home,
    LC_ALL: 'C',
    GIT_TERMINAL_PROMPT: '0',
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_GLOBAL: '/dev/null',
    GIT_ALLOW_PROTOCOL: i.allowFile ? 'https:ssh:git:file' : 'https:ssh:git',
  };
  const config: [string, string][] = [
    // A hook or filter in a fetched repository never runs: denv only fetches and checks out.
    ['core.hooksPath', '/dev/null'],
    ['advice.detachedHead', 'false'],
  ];
  if (i.token) {
    const basic = Buffer.from(`${i.token.username}:${i.token.token}`).toString('base64');
    config.push(['http.extraHeader', `Authorization: Basic ${basic}`]);
  }
  config.forEach(([key, value], n) => {
    env[`GIT_CONFIG_KEY_${n}`] = key;
    env[`GIT_CONFIG_VALUE_${n}`] = value;
  });
  env.GIT_CONFIG_COUNT = String(config.length);
  if (i.ssh) {
    env.GIT_SSH = i.ssh.wrapper;
    env.GIT_SSH_VARIANT = 'ssh';
    env.DENV_GIT_SSH_KEY = i.ssh.keyFile;
    env.DENV_GIT_KNOWN_HOSTS = i.ssh.knownHostsFile;
    env.DENV_GIT_SSH_PIN = i.ssh.pinOnFirstUse ? 'accept-new' : 'yes';
  }
  return env;
}

/**
 * The argv bin/denv-git-ssh runs in place of `ssh`, given what git passed it (`[-p port] [-o …]
 * host command`): no config file, only our key, batch mode (never a prompt), and the host key
 * checked against our file (pinned on first use when none was given). Pure.
 */
export function sshArgv(gitArgs: readonly string[], env: Readonly<Record<string, string | undefined>>): string[] {
  const key = env.DENV_GIT_SSH_KEY;
  const known = env.DENV_GIT_KNOWN_HOSTS;
  if (!key || !known) throw new Error('denv-git-ssh: DENV_GIT_SSH_KEY and DENV_GIT_KNOWN_HOSTS must be set (git runs it for denv)');
  return [
    'ssh',
    ...sshClientOptions({ keyFile: key, knownHostsFile: known, pinOnFirstUse: env.DENV_GIT_SSH_PIN === 'accept-new' }),
    ...gitArgs,
  ];
}
