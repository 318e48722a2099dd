// Mutation testing (issue 15): `npm run mutate`, or `DENV_MUTATE=nonces,admit npm run mutate` for
// some modules. test/mutation/modules.mjs lists each module's files and the test files that must
// kill its mutants; a run mutates the chosen modules and runs only their tests
// (test/mutation/vitest.config.mjs), and test/mutation/module-scores.mjs prints the score per
// module (also written to reports/mutation/modules.json).
//
// Not part of .ci/run: it is slow (the control-plane modules are covered by integration tests
// that start control planes and agent processes). Run it when you change these modules and
// quote the score. Agent processes run from dist/ (built before the run, never mutated), so
// agent-side modules are only killed by tests that import them in-process.
import { chosenModules } from './test/mutation/modules.mjs';

const modules = chosenModules();

/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  testRunner: 'vitest',
  vitest: { configFile: 'test/mutation/vitest.config.mjs', related: false },
  checkers: ['typescript'],
  tsconfigFile: 'tsconfig.json',
  typescriptChecker: { prioritizePerformanceOverAccuracy: true },
  mutate: [...new Set(modules.flatMap((m) => m.mutate))],
  // With --incremental, one file per set of modules: a run keeps only the mutants it mutated, so a
  // shared file would lose one module's results to a run of another.
  incrementalFile: `reports/stryker-incremental-${modules.map((m) => m.name).join('-')}.json`,
  coverageAnalysis: 'perTest',
  // Two cores, shared: each test runner may start a control plane and agent processes.
  concurrency: Number(process.env.DENV_MUTATE_CONCURRENCY ?? 1),
  timeoutMS: 30_000,
  // The first run, of every listed test with coverage, takes minutes on its own (the engine's tests
  // start control planes and agents) and more beside other work: Stryker's default is 5.
  dryRunTimeoutMinutes: 40,
  timeoutFactor: 2,
  plugins: ['@stryker-mutator/vitest-runner', '@stryker-mutator/typescript-checker', './test/mutation/module-scores.mjs'],
  reporters: ['clear-text', 'progress', 'html', 'json', 'module-scores'],
  htmlReporter: { fileName: 'reports/mutation/mutation.html' },
  jsonReporter: { fileName: 'reports/mutation/mutation.json' },
  // The build's database template (pglite-template.ts): Stryker's sandbox copy drops its empty
  // directories, which PGlite needs; without it the sandbox's first starts run initdb instead.
  ignorePatterns: ['test-output', 'reports', 'dist/pgdata-template', 'dist/pgdata-template.*'],
  tempDirName: '.stryker-tmp',
  cleanTempDir: true,
};
