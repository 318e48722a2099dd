/**
 * Repository addresses a project may link (DESIGN "Source"): `https://`, `ssh://` (or scp-like
 * `user@host:path`), `git://`, and `file://` only where the caller allows it (`denv dev`,
 * `denv server --allow-file-repos`). Everything else is refused here, before git sees it: git's
 * own transports include `ext::`, which runs a command, and a leading `-` would read as an option.
 * Credentials never live in the address (they would be echoed wherever the address is shown):
 * they are the project's `git_credentials`. Pure.
 */

export type RepoTransport = 'https' | 'ssh' | 'git' | 'file';

export interface RepoUrl {
  readonly transport: RepoTransport;
  /** The address as git is given it (scp-like addresses are kept as written). */
  readonly url: string;
}

export type RepoUrlResult = { readonly ok: true; readonly value: RepoUrl } | { readonly ok: false; readonly message: string };

/** `user@host:path` (git's scp-like syntax): a user and host without `/` before the first `:`. */
const SCP_LIKE = /^([A-Za-z0-9._-]+)@([A-Za-z0-9.-]+):(?!\/\/)(.+)$/;
const CONTROL = /[\0-\x1f\x7f]/;

const fail = (message: string): RepoUrlResult => ({ ok: false, message });

/** Check `raw` as a repository address; `allowFile` admits `file://` paths. */
export function parseRepoUrl(raw: string, o: { readonly allowFile: boolean }): RepoUrlResult {
  if (raw.length === 0 || raw.length > 2048) return fail('expected a repository address of 1 to 2048 characters');
  if (CONTROL.test(raw) || /\s/.test(raw)) return fail('a repository address cannot contain spaces or control characters');
  if (raw.startsWith('-')) return fail('a repository address cannot start with "-"');
  const scp = SCP_LIKE.exec(raw);
  if (scp) return { ok: true, value: { transport: 'ssh', url: raw } };
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return fail(`"${raw}" is not a repository address: use https://, ssh://, git://, user@host:path${o.allowFile ? ' or file://' : ''}`);
  }
  const scheme = url.protocol.slice(0, -1);
  if (scheme === 'file') {
    if (!o.allowFile) return fail('file:// repositories are allowed only under `denv dev` or `denv server --allow-file-repos`');
    if (url.host !== '' || !url.pathname.startsWith('/')) return fail('a file:// address names an absolute path on this machine: file:///path/to/repo');
    return { ok: true, value: { transport: 'file', url: raw } };
  }
  if (scheme !== 'https' && scheme !== 'ssh' && scheme !== 'git') {
    return fail(`the ${scheme}:// transport is not supported: use https://, ssh://, git://, user@host:path${o.allowFile ? ' or file://' : ''}`);
  }
  if (url.hostname === '') return fail(`${scheme}:// needs a host`);
  if (url.password !== '' || (scheme !== 'ssh' && url.username !== '')) {
    return fail('credentials do not belong in the repository address (it is shown in events and the UI): set git_credentials instead');
  }
  if (url.search !== '' || url.hash !== '') return fail('a repository address has no query or fragment');
  return { ok: true, value: { transport: scheme, url: raw } };
}
