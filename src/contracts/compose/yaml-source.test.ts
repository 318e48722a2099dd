/** YAML for Compose: anchors and merge keys (fragments.md examples), and the caps that keep a hostile document cheap. */
import { describe, expect, it } from 'vitest';
import { flowDepth, MAX_COMPOSE_BYTES, parseComposeYaml, valueDepth } from './yaml-source.js';

describe('anchors, aliases and merge keys (Compose specification, fragments)', () => {
  it('an alias reuses an anchored mapping', () => {
    const { value } = parseComposeYaml('volumes:\n  db-data: &default-volume\n    driver: default\n  metrics: *default-volume\n');
    expect(value).toEqual({ volumes: { 'db-data': { driver: 'default' }, metrics: { driver: 'default' } } });
  });

  it('an alias reuses an anchored sequence', () => {
    const { value } = parseComposeYaml(
      'services:\n  first:\n    image: my-image:latest\n    environment: &env\n      - CONFIG_KEY\n      - EXAMPLE_KEY\n  second:\n    image: another-image:latest\n    environment: *env\n',
    );
    expect(value).toMatchObject({ services: { second: { environment: ['CONFIG_KEY', 'EXAMPLE_KEY'] } } });
  });

  it('a merge key copies the anchored mapping and own keys override it', () => {
    const { value } = parseComposeYaml('volumes:\n  db-data: &default-volume\n    driver: default\n    name: "data"\n  metrics:\n    <<: *default-volume\n    name: "metrics"\n');
    expect(value).toEqual({ volumes: { 'db-data': { driver: 'default', name: 'data' }, metrics: { driver: 'default', name: 'metrics' } } });
  });

  it('a merge key extends an anchored mapping with more keys', () => {
    const { value } = parseComposeYaml(
      'services:\n  first:\n    environment: &env\n      FOO: BAR\n      ZOT: QUIX\n  second:\n    environment:\n      <<: *env\n      YET_ANOTHER: VARIABLE\n',
    );
    expect(value).toMatchObject({ services: { second: { environment: { FOO: 'BAR', ZOT: 'QUIX', YET_ANOTHER: 'VARIABLE' } } } });
  });

  it('merges a list of anchors, earlier ones winning', () => {
    const { value } = parseComposeYaml('x-a: &a {A: 1, B: 1}\nx-b: &b {B: 2, C: 2}\nm:\n  <<: [*a, *b]\n  C: 3\n');
    expect((value as { m: unknown }).m).toEqual({ A: 1, B: 1, C: 3 });
  });
});

describe('merge tags', () => {
  it('takes !reset keys out and records both kinds of path, without warnings', () => {
    const parsed = parseComposeYaml('services:\n  app:\n    ports: !reset []\n    environment:\n      FOO: !reset null\n      BAR: x\n    command: !override ["a"]\n');
    expect(parsed.value).toEqual({ services: { app: { environment: { BAR: 'x' }, command: ['a'] } } });
    expect(parsed.resets).toEqual([['services', 'app', 'ports'], ['services', 'app', 'environment', 'FOO']]);
    expect(parsed.overrides).toEqual([['services', 'app', 'command']]);
    expect(parsed.warnings).toEqual([]);
  });
});

describe('numbers in string mappings', () => {
  it('keep the text they were written with, as Compose reads them', () => {
    const { value } = parseComposeYaml(
      'x-env: &env\n  FROM_ANCHOR: 1.50\nservices:\n  a:\n    environment:\n      <<: *env\n      PYTHON_VERSION: 3.10\n      PORT: 80\n      HEX: 0x1F\n      FLAG: true\n    labels:\n      version: 2.0\n    build:\n      args:\n        NODE: 20.10\n    cpus: 1.50\n  b:\n    environment: *env\n',
    );
    expect(value).toMatchObject({
      services: {
        a: { environment: { FROM_ANCHOR: '1.50', PYTHON_VERSION: '3.10', PORT: '80', HEX: '0x1F', FLAG: true }, labels: { version: '2.0' }, build: { args: { NODE: '20.10' } }, cpus: 1.5 },
        b: { environment: { FROM_ANCHOR: '1.50' } },
      },
    });
  });
});

describe('what Compose refuses', () => {
  it.each([
    ['a: 1\na: 2\n', /not valid YAML/],
    ['a: 1\n---\nb: 2\n', /several YAML documents/],
    ['a: [1, 2\n', /not valid YAML/],
    ['a: *nowhere\n', /not valid YAML/],
  ])('%j', (text, error) => {
    expect(() => parseComposeYaml(text)).toThrow(error);
  });

  it('reads YAML 1.2 booleans only (yes stays a string, as in Compose)', () => {
    expect(parseComposeYaml('a: yes\nb: true\n').value).toEqual({ a: 'yes', b: true });
  });

  it('reads a leading-zero integer as octal, as Compose does (mode: 0440)', () => {
    expect(parseComposeYaml('a: 0440\nb: 0o440\nc: 440\nd: "0440"\ne: 0\n').value).toEqual({ a: 0o440, b: 0o440, c: 440, d: '0440', e: 0 });
  });
});

describe('caps (security issue 10 item 6)', () => {
  it('refuses a document over 1 MiB before parsing it', () => {
    expect(() => parseComposeYaml(`a: "${'x'.repeat(MAX_COMPOSE_BYTES)}"\n`)).toThrow(/too large/);
  });

  it('refuses deep flow nesting at once, without parsing', () => {
    const n = 400_000; // ~800 KB that the parser needs over a second for
    const started = performance.now();
    expect(() => parseComposeYaml(`a: ${'['.repeat(n)}${']'.repeat(n)}\n`)).toThrow(/nested deeper than 64/);
    expect(performance.now() - started).toBeLessThan(200);
  });

  it('refuses deep block nesting', () => {
    const text = Array.from({ length: 70 }, (_, i) => `${'  '.repeat(i)}k${i}:`).join('\n') + ' 1\n';
    expect(() => parseComposeYaml(text)).toThrow(/nested deeper than 64/);
  });

  it('refuses an alias bomb', () => {
    const lines = ['a: &a ["x","x","x","x","x","x","x","x","x"]'];
    for (let i = 1; i < 9; i++) lines.push(`${String.fromCharCode(97 + i)}: &${String.fromCharCode(97 + i)} [${Array(9).fill(`*${String.fromCharCode(96 + i)}`).join(',')}]`);
    expect(() => parseComposeYaml(lines.join('\n'))).toThrow(/not valid YAML.*alias/i);
  });

  it('measures depth without recursion', () => {
    expect(flowDepth('a: [{b: [1]}]')).toBe(3);
    expect(valueDepth({ a: [{ b: [1] }] })).toBe(4);
    expect(valueDepth('scalar')).toBe(0);
  });
});
