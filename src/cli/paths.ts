/**
 * Locations inside the installed package, found from this file's own location: this module is
 * `src/cli/paths.ts` under tsx and `dist/cli/paths.js` once built, so the package root is two
 * directories up either way.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const PACKAGE_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

/** The `denv` executable (`bin/denv`), which `denv dev` runs again as the local agent. */
export const DENV_BIN = path.join(PACKAGE_ROOT, 'bin', 'denv');

/** The bundled example `denv dev` deploys. */
export const EXAMPLE_COMPOSE = path.join(PACKAGE_ROOT, 'examples', 'hello', 'compose.yaml');
