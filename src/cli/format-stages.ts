/** The per-stage table `denv preflight` prints (pure). The GitHub Action prints the same shape. */
import type { PipelineAnswer } from '../contracts/envelope.js';
import { STATUS_SYMBOLS, formatDuration, formatTable } from './output.js';

export function formatStages(answer: PipelineAnswer): string {
  const rows = answer.stages.map((s) => [s.name, `${STATUS_SYMBOLS[s.status]} ${s.status}`, formatDuration(s.took_ms), s.detail ?? '']);
  const lines = [formatTable(['stage', 'status', 'took', 'detail'], rows), `state: ${answer.state}`];
  if (answer.endpoint) lines.push(`endpoint: ${answer.endpoint}`);
  return lines.join('\n');
}
