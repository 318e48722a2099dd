/**
 * A Stryker reporter: the mutation score of each module of modules.mjs (killed and timed-out
 * mutants over all valid ones; compile errors and ignored mutants do not count), printed as a
 * table when the run ends and written to reports/mutation/modules.json.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { PluginKind, declareClassPlugin } from '@stryker-mutator/api/plugin';
import { MODULES } from './modules.mjs';

const globToRegExp = (glob) =>
  new RegExp(`^${glob.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*\*\//g, '(?:.*/)?').replace(/\*/g, '[^/]*')}$`);

function moduleOf(file) {
  for (const [name, m] of Object.entries(MODULES)) {
    const include = m.mutate.filter((g) => !g.startsWith('!')).map(globToRegExp);
    const exclude = m.mutate.filter((g) => g.startsWith('!')).map((g) => globToRegExp(g.slice(1)));
    if (include.some((r) => r.test(file)) && !exclude.some((r) => r.test(file))) return name;
  }
  return '(other)';
}

class ModuleScoreReporter {
  onMutationTestReportReady(report) {
    const rows = new Map();
    for (const [file, result] of Object.entries(report.files)) {
      const rel = path.relative(process.cwd(), path.resolve(file)).split(path.sep).join('/');
      const name = moduleOf(rel);
      const row = rows.get(name) ?? { module: name, title: MODULES[name]?.title ?? '', killed: 0, timeout: 0, survived: 0, noCoverage: 0, invalid: 0, files: {} };
      const fileRow = (row.files[rel] = { killed: 0, survived: 0, noCoverage: 0 });
      for (const m of result.mutants) {
        if (m.status === 'Killed') (row.killed++, fileRow.killed++);
        else if (m.status === 'Timeout') (row.timeout++, fileRow.killed++);
        else if (m.status === 'Survived') (row.survived++, fileRow.survived++);
        else if (m.status === 'NoCoverage') (row.noCoverage++, fileRow.noCoverage++);
        else row.invalid++; // CompileError, RuntimeError, Ignored
      }
      rows.set(name, row);
    }
    const out = [...rows.values()].map((r) => {
      const valid = r.killed + r.timeout + r.survived + r.noCoverage;
      return { ...r, score: valid === 0 ? null : Math.round(((r.killed + r.timeout) / valid) * 1000) / 10 };
    });
    const lines = [
      'Mutation score per module (killed + timeout) / (killed + timeout + survived + no coverage):',
      ...out.map((r) => `  ${r.module.padEnd(10)} ${(r.score === null ? 'n/a' : `${r.score.toFixed(1)} %`).padStart(7)}  killed ${r.killed}, timeout ${r.timeout}, survived ${r.survived}, no coverage ${r.noCoverage}  (${r.title})`),
    ];
    console.log(`\n${lines.join('\n')}\n`);
    mkdirSync('reports/mutation', { recursive: true });
    writeFileSync('reports/mutation/modules.json', `${JSON.stringify(out, null, 2)}\n`);
  }
}

export const strykerPlugins = [declareClassPlugin(PluginKind.Reporter, 'module-scores', ModuleScoreReporter)];
