import { describe, expect, it } from 'vitest';
import { parseSpec } from '../../contracts/spec.js';
import { fillArgv, fillEnvironment, siblingEnvironment } from './siblings.js';
import { dependenciesOf, findCycle, oneShots, sameSpec, updateOrder } from './start-order.js';

const spec = parseSpec(`
services:
  migrate: {command: [m], restart: "no"}
  db: {command: [d], volumes: [pg:/d]}
  cache: {command: [c], volumes: [{type: volume, source: pg, target: /x, read_only: true}]}
  web:
    command: [w]
    depends_on: {db: {condition: service_healthy}, migrate: {condition: service_completed_successfully}, cache: {condition: service_started, required: false}}
volumes: {pg: {}}
`);

describe('start order', () => {
  it('knows one-shots, dependencies, cycles and update orders', () => {
    expect([...oneShots(spec.services)]).toEqual(['migrate']);
    expect(dependenciesOf(spec.services, 'web').map(([n, d]) => `${n}:${d.condition}:${d.required}`)).toEqual(['db:service_healthy:true', 'migrate:service_completed_successfully:true', 'cache:service_started:false']);
    expect(findCycle(spec.services)).toBeNull();
    expect(findCycle(parseSpec({ services: { a: { command: 'a', depends_on: ['b'] }, b: { command: 'b', depends_on: ['a'] } } }).services)).toBe('a → b → a');
    expect([updateOrder(spec.services.db!), updateOrder(spec.services.cache!), updateOrder(spec.services.web!)]).toEqual(['stop-first', 'start-first', 'start-first']);
    expect(sameSpec({ a: 1, b: [{ x: 1, y: 2 }] }, { b: [{ y: 2, x: 1 }], a: 1 })).toBe(true);
    expect(sameSpec({ a: 1 }, { a: 2 })).toBe(false);
  });

  it('names siblings DENV_<S>_HOST/PORT and fills ${DENV_…} references', () => {
    const vars = siblingEnvironment([{ service: 'db', host: '127.0.0.1', port: 20001 }, { service: 'web-api', host: 'web-api', port: 8080 }]);
    expect(vars).toEqual({ DENV_DB_HOST: '127.0.0.1', DENV_DB_PORT: '20001', DENV_WEB_API_HOST: 'web-api', DENV_WEB_API_PORT: '8080' });
    const missing = new Set<string>();
    expect(fillEnvironment({ URL: 'postgres://${DENV_DB_HOST}:$DENV_DB_PORT/x', N: '${DENV_NOPE}', P: '$PATH' }, vars, missing)).toEqual({ URL: 'postgres://127.0.0.1:20001/x', N: '', P: '$PATH' });
    expect([...missing]).toEqual(['DENV_NOPE']);
    expect(fillArgv(['-p', '${DENV_DB_PORT}'], vars)).toEqual(['-p', '20001']);
  });
});

describe('DENV references with defaults', () => {
  it('fills ${DENV_X:-d} and ${DENV_X-d} as Compose would', () => {
    const vars = { DENV_A: '1', DENV_EMPTY: '' };
    expect(fillArgv(['${DENV_A:-x}', '${DENV_NO:-x}', '${DENV_EMPTY:-x}', '${DENV_EMPTY-x}', '${DENV_NO-y}'], vars)).toEqual(['1', 'x', 'x', '', 'y']);
  });
});
