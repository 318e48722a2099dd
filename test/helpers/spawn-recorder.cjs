// Preloaded into an agent process under test (NODE_OPTIONS=--require …): appends every program
// the process starts to $DENV_SPAWN_LOG, one JSON line {file, args}. Every asynchronous spawn
// (spawn, exec, execFile, fork) goes through ChildProcess.prototype.spawn with the program it
// will really run — `/bin/sh` with `-c` when a shell is involved — and the synchronous variants
// are wrapped too (for CommonJS and ES module callers). It observes only; it changes nothing.
'use strict';
const cp = require('node:child_process');
const fs = require('node:fs');

const file = process.env.DENV_SPAWN_LOG;
const record = (entry) => {
  try {
    fs.appendFileSync(file, `${JSON.stringify(entry)}\n`);
  } catch {
    /* the log is best effort */
  }
};

const spawnOrig = cp.ChildProcess.prototype.spawn;
cp.ChildProcess.prototype.spawn = function spawn(options) {
  record({ file: options.file, args: options.args });
  return spawnOrig.call(this, options);
};
for (const name of ['spawnSync', 'execSync', 'execFileSync']) {
  const orig = cp[name];
  cp[name] = function (...args) {
    record({ sync: name, file: String(args[0]), args: Array.isArray(args[1]) ? args[1] : [], shell: name === 'execSync' || Boolean(args.find((a) => a && typeof a === 'object' && !Array.isArray(a) && a.shell)) });
    return orig.apply(this, args);
  };
}
// Make ES modules that import these names see the wrapped versions too.
require('node:module').syncBuiltinESMExports();
