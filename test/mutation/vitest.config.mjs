// The vitest config of mutation runs (stryker.config.mjs): the project's, with only the test files
// of the modules chosen by DENV_MUTATE. (Not Stryker's `testFiles`: with it, StrykerJS 9.6 and
// 10.0 activate static mutants only after their module has loaded, so they all "survive" —
// stryker-js#6144.)
import { chmodSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import base from '../../vitest.config.ts';
import { chosenModules } from './modules.mjs';

const root = fileURLToPath(new URL('../..', import.meta.url));
// Stryker makes its sandbox 0700; the services integration tests start run as users of their own
// and must reach the fixtures in it.
if (path.basename(path.dirname(root)) === '.stryker-tmp') chmodSync(root, 0o711);

export default {
  ...base,
  root,
  test: { ...base.test, include: [...new Set(chosenModules().flatMap((m) => m.tests))] },
};
