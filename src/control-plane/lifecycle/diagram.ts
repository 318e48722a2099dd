/**
 * Renders the lifecycle table as a Mermaid state diagram. `docs/lifecycle.md` holds its output;
 * `diagram.test.ts` fails when the two differ (regenerate with `npm run docs:lifecycle`).
 */
import { ENV_STATUSES } from '../../contracts/domain.js';
import { ACTION_FROM, ACTION_TO, SWEEP_TRANSITIONS, USER_ACTIONS } from './state-machine.js';

export function lifecycleEdges(): string[] {
  const edges: string[] = [];
  edges.push('[*] --> planning : deploy');
  for (const action of USER_ACTIONS) {
    for (const from of ACTION_FROM[action]) {
      const targets = action === 'approve' ? ['deploying', 'upgrading'] : [ACTION_TO[action] ?? '[*]'];
      for (const to of targets) edges.push(`${from} --> ${to} : ${action}`);
    }
  }
  for (const from of ENV_STATUSES) {
    for (const to of SWEEP_TRANSITIONS[from]) edges.push(`${from} --> ${to} : sweep`);
  }
  return edges;
}

export function lifecycleMermaid(): string {
  return ['```mermaid', 'stateDiagram-v2', ...lifecycleEdges().map((e) => `  ${e}`), '```'].join('\n');
}
