/**
 * The modules that carry denv's promises (issue 15), for mutation testing: what each mutates and
 * the test files that must kill its mutants. A test file listed here should import the module's
 * code in-process (a control plane started by the test, or the module itself): agent processes
 * run from dist/, which a mutant never reaches.
 */
export const MODULES = {
  // The engine's own code is killed by its in-process tests (engine.test.ts runs the real Engine
  // on both stores; env-status.test.ts the outcome table): its mutants, reached by every deploy,
  // would otherwise each run every integration test that deploys — hours for one run.
  engine: {
    title: 'phase engine',
    mutate: [
      'src/control-plane/operations/engine.ts',
      'src/control-plane/operations/phase.ts',
      'src/control-plane/operations/env-status.ts',
      'src/control-plane/operations/kinds.ts',
    ],
    tests: ['src/control-plane/operations/**/*.test.ts'],
  },
  // Each verdict's paths alone, on the embedded store with a scripted host (deploy/verdict-paths,
  // move/verdict, verify/verdict, small-verdicts). The integration tests reach them too, on their
  // main paths only, and each would run for every mutant they cover: hours for one run.
  verdicts: {
    title: 'verdicts',
    mutate: ['src/control-plane/operations/*/verdict.ts'],
    tests: ['src/control-plane/operations/**/*.test.ts'],
  },
  lifecycle: {
    title: 'lifecycle actions',
    mutate: ['src/control-plane/lifecycle/actions.ts'],
    tests: ['src/control-plane/lifecycle/**/*.test.ts', 'test/phase-engine.test.ts', 'test/lifecycle.test.ts', 'test/lifecycle-work.test.ts', 'test/security/matrix.test.ts'],
  },
  auth: {
    title: 'auth and secrets',
    mutate: ['src/control-plane/auth/*.ts', 'src/control-plane/api/auth.ts', 'src/control-plane/admin-token.ts'],
    tests: ['test/auth.test.ts', 'test/security/credentials.test.ts', 'test/security/stored-secrets.test.ts'],
  },
  envelope: {
    title: 'envelope parsing and verification',
    mutate: ['src/contracts/envelope.ts', 'src/lib/envelope-crypto.ts', 'src/agent/pipeline/stages/verify.ts'],
    tests: ['src/contracts/envelope*.test.ts', 'src/lib/envelope-crypto.test.ts', 'src/agent/pipeline/**/*.test.ts'],
  },
  nonces: {
    title: 'nonce store',
    mutate: ['src/agent/envelope/nonce-store.ts'],
    tests: ['src/agent/envelope/*.test.ts', 'src/agent/pipeline/**/*.test.ts'],
  },
  admit: {
    title: 'admit (image pipeline and signed process services)',
    mutate: [
      'src/agent/pipeline/stages/admit.ts',
      'src/agent/pipeline/stages/preflight-admit.ts',
      'src/agent/envelope/envelope-checks.ts',
      'src/agent/envs/admit-process.ts',
    ],
    tests: ['src/agent/pipeline/**/*.test.ts', 'src/agent/envelope/*.test.ts', 'src/agent/envs/admit-process*.test.ts'],
  },
  datasets: {
    title: 'dataset drivers',
    mutate: ['src/agent/datasets/**/*.ts', '!src/agent/datasets/**/*.test.ts'],
    tests: ['src/agent/datasets/**/*.test.ts', 'src/agent/commands/env-snapshot.test.ts'],
  },
};

/** The modules named by DENV_MUTATE (comma-separated; default: all of them). */
export function chosenModules() {
  const names = (process.env.DENV_MUTATE ?? Object.keys(MODULES).join(','))
    .split(',')
    .map((m) => m.trim())
    .filter(Boolean);
  for (const name of names) {
    if (!MODULES[name]) throw new Error(`DENV_MUTATE: no module "${name}" (modules: ${Object.keys(MODULES).join(', ')})`);
  }
  return names.map((name) => ({ name, ...MODULES[name] }));
}
