/**
 * This installation of denv as a machine needs it (issue 14): what an ssh cloud uploads and what
 * `GET /v1/install/denv.tar` serves to a hetzner machine's cloud-init, so every machine runs
 * exactly the control plane's version. That is `package.json`, `bin/`, `dist/` and the packages
 * the production dependencies need (found by following `dependencies` through node_modules the
 * way Node resolves them); dev tools (TypeScript, vite, vitest, Stryker, Playwright) stay behind.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** This installation's root (dist/control-plane/clouds/ → the package root). */
export const PACKAGE_ROOT = path.resolve(fileURLToPath(new URL('../../../', import.meta.url)));

interface PackageJson {
  readonly dependencies?: Record<string, string>;
  readonly optionalDependencies?: Record<string, string>;
}

const readPackage = (dir: string): PackageJson => JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8')) as PackageJson;

/** Where Node finds `name` required from `from`: the nearest node_modules/<name> at or above it, within `root`. */
function resolvePackage(root: string, from: string, name: string): string | null {
  for (let dir = from; ; dir = path.dirname(dir)) {
    const candidate = path.join(dir, 'node_modules', name);
    if (existsSync(path.join(candidate, 'package.json'))) return candidate;
    if (dir === root || !dir.startsWith(root)) return null;
  }
}

/**
 * The paths (relative to `root`, sorted) that make a working installation: the package's own
 * files and each production dependency's directory. A dependency that is not installed throws
 * (an optional one is skipped). `@types/*` packages are left out, needed or not: they hold type
 * declarations only, which nothing runs (@kubernetes/client-node lists some among its dependencies).
 */
export function installationPaths(root: string): string[] {
  const found = new Set<string>();
  const visit = (dir: string) => {
    const pkg = readPackage(dir);
    const wanted: [string, boolean][] = [...Object.keys(pkg.dependencies ?? {}).map((n) => [n, false] as [string, boolean]), ...Object.keys(pkg.optionalDependencies ?? {}).map((n) => [n, true] as [string, boolean])];
    for (const [name, optional] of wanted) {
      if (name.startsWith('@types/')) continue;
      const at = resolvePackage(root, dir, name);
      if (!at) {
        if (optional) continue;
        throw new Error(`${name} (needed by ${path.relative(root, dir) || 'denv'}) is not installed: run npm ci`);
      }
      const rel = path.relative(root, at);
      if (found.has(rel)) continue;
      found.add(rel);
      visit(at);
    }
  };
  visit(root);
  // A package nested inside another's directory travels with it.
  const packages = [...found].filter((p) => ![...found].some((q) => q !== p && p.startsWith(`${q}${path.sep}`)));
  return ['bin', 'dist', 'package.json', ...packages.sort()];
}

let shipped: string[] | null = null;

/** This installation's paths (installationPaths of PACKAGE_ROOT), found once per process: its files do not change while it runs. */
export function shippedPaths(): string[] {
  shipped ??= installationPaths(PACKAGE_ROOT);
  return shipped;
}

/** What nothing runs: source maps, type declarations, Markdown (180 MB → 110 MB for this package, most of it the Cloudflare SDK's). */
export const NOT_SHIPPED = ['*.map', '*.d.ts', '*.d.mts', '*.d.cts', '*.md'] as const;

/** `tar` writing the installation to stdout, each path under `prefix` when one is given (pure: the exact argv is tested). */
export function installationTarArgv(root: string, paths: readonly string[], prefix = ''): string[] {
  return [
    'tar', '-c', '-f', '-', '-C', root,
    // Root's and not writable by others wherever it is unpacked: the agent runs this code as root,
    // so no service's user may own or change it (whoever owns the files here).
    '--owner=0', '--group=0', '--numeric-owner', '--mode=go-w',
    ...NOT_SHIPPED.map((pattern) => `--exclude=${pattern}`),
    // S: symlink targets keep their (relative) form.
    ...(prefix ? ['--transform', `s,^,${prefix},S`] : []),
    '--', ...paths,
  ];
}
