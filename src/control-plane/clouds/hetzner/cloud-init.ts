/**
 * What a Hetzner machine does at first boot: the `#cloud-config` user_data the hetzner provider
 * sends with the server (pure: the same input gives the same text, byte for byte).
 *
 *   write_files  <dir>/.denv-machine (denv's marker: `agent-service install` only takes a
 *                directory that is absent or marked), and the enrollment key twice, root-only
 *                (0600): bare for the agent's environment, and as curl's Authorization header
 *   runcmd       set -e                      a failed step stops the ones after it
 *                install Node.js             when `node` is missing or older than 20
 *                mkdir -p <dir>/app
 *                download denv               GET <control>/v1/install/denv.tar → tar -x -C <dir>/app
 *                agent-service install       the agent as a service, enrolled with the key, its
 *                                            address the public IPv4 from Hetzner's metadata service
 *                rm the key files            `agent-service install` keeps the key in its own agent.env
 *
 * cloud-init writes the runcmd entries as lines of a /bin/sh script. Each line here is one argv
 * written by shell-quote's `quote`. A step that needs a pipe or $(…) is
 * `bash -c <constant script> <$0> <values…>`: the values reach the script as "$1", "$2" …, so a
 * value is never read as shell text, whatever characters it holds. The key is in no line (no
 * runcmd script, no process list): the scripts read it from the files.
 */
import path from 'node:path';
import { quote } from 'shell-quote';
import { stringify } from 'yaml';

/**
 * The Node.js a machine gets when its image has none (or one older than 20): pinned, so every
 * machine runs the same build, to the newest 20.x LTS release when this was written. Bump it by
 * hand with the 20.x line's security releases.
 */
export const NODE_VERSION = 'v20.19.5';

/** Hetzner's metadata service: the server's public IPv4, as plain text. */
export const METADATA_PUBLIC_IPV4 = 'http://169.254.169.254/hetzner/v1/metadata/public-ipv4';

export interface CloudInitInput {
  /** The machine's record id (written to the machine's marker file, for whoever logs in). */
  readonly machine: string;
  /** The host's name (the agent's `--name`). */
  readonly name: string;
  /** Single-use: the agent enrolls with it; the install download is authorised by it without spending it. */
  readonly enrollmentKey: string;
  /** The control plane's URL as the machine reaches it. */
  readonly controlUrl: string;
  /** Where denv lives on the machine (the caller's default: /opt/denv). */
  readonly installDir: string;
}

/** Install Node.js ($1: the version) into /usr/local unless a `node` of 20 or newer is already there. */
const INSTALL_NODE = [
  'set -euo pipefail',
  'if command -v node >/dev/null 2>&1; then v="$(node --version)"; v="${v#v}"; if [ "${v%%.*}" -ge 20 ]; then exit 0; fi; fi',
  'case "$(uname -m)" in x86_64) arch=x64 ;; aarch64) arch=arm64 ;; *) echo "no Node.js build for $(uname -m)" >&2; exit 1 ;; esac',
  'curl -fsSL --retry 10 "https://nodejs.org/dist/$1/node-$1-linux-$arch.tar.gz" | tar -xz -C /usr/local --strip-components=1 --no-same-owner',
].join('; ');

/** Download denv ($2) with the Authorization header in file $1, unpacked into $3. pipefail: a failed download fails the step. */
const DOWNLOAD_DENV = ['set -euo pipefail', 'curl -fsS --retry 10 -H @"$1" "$2" | tar -x -C "$3"'].join('; ');

/** `agent-service install` from denv at $2: key file $1, --dir $3, --control $4, --name $5; the address from the metadata service. */
const INSTALL_AGENT = [
  'set -euo pipefail',
  `address="$(curl -fsS --retry 10 ${METADATA_PUBLIC_IPV4})"`,
  'key="$(cat "$1")"',
  'DENV_ENROLLMENT_KEY="$key" node "$2" agent-service install --dir "$3" --control "$4" --name "$5" --address "$address"',
].join('; ');

/** The cloud-config as data (what `cloudInit` serialises). */
export function cloudConfig(input: CloudInitInput) {
  const dir = input.installDir;
  const app = path.posix.join(dir, 'app');
  const keyFile = path.posix.join(dir, 'enrollment-key');
  const headerFile = path.posix.join(dir, 'enrollment-header');
  const control = input.controlUrl.replace(/\/+$/, '');
  return {
    write_files: [
      { path: path.posix.join(dir, '.denv-machine'), content: `made by denv for machine ${input.machine}\n`, permissions: '0644', owner: 'root:root' },
      { path: keyFile, content: input.enrollmentKey, permissions: '0600', owner: 'root:root' },
      { path: headerFile, content: `Authorization: Bearer ${input.enrollmentKey}\n`, permissions: '0600', owner: 'root:root' },
    ],
    runcmd: [
      // A line of cloud-init's runcmd script like the others: later lines do not run after a failure.
      quote(['set', '-e']),
      quote(['bash', '-c', INSTALL_NODE, 'denv-install-node', NODE_VERSION]),
      quote(['mkdir', '-p', app]),
      quote(['bash', '-c', DOWNLOAD_DENV, 'denv-download', headerFile, `${control}/v1/install/denv.tar`, app]),
      quote(['bash', '-c', INSTALL_AGENT, 'denv-agent-service', keyFile, path.posix.join(app, 'bin', 'denv'), dir, control, input.name]),
      quote(['rm', '-f', keyFile, headerFile]),
    ],
  };
}

/** The user_data text: `#cloud-config` and the config as YAML (no line folding, so each runcmd entry stays one line). */
export function cloudInit(input: CloudInitInput): string {
  return `#cloud-config\n${stringify(cloudConfig(input), { lineWidth: 0 })}`;
}
