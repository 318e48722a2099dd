/** Compose's dotenv format (env_file and .env), values in escaped form. */
import { describe, expect, it } from 'vitest';
import { parseDotenv } from './dotenv.js';
import { escapedLookup } from './interpolate.js';

const lookup = escapedLookup({ HOST_VAR: 'from-host', DB_USER: 'app' });

function values(text: string, format: 'compose' | 'raw' = 'compose'): Record<string, string> {
  const r = parseDotenv(text, lookup, format);
  expect(r.errors).toEqual([]);
  return Object.fromEntries(r.values);
}

describe('parseDotenv', () => {
  it.each([
    ['A=1', { A: '1' }],
    ['export A=1', { A: '1' }],
    ['A = spaced out  ', { A: 'spaced out' }],
    ['A: yaml style', { A: 'yaml style' }],
    ['# a comment\n\nA=1\n   # indented comment', { A: '1' }],
    ['A=value # inline comment', { A: 'value' }],
    ['A=value#not-a-comment', { A: 'value#not-a-comment' }],
    ['A=', { A: '' }],
    ['URL=postgres://u:p@db:5432/x?a=b', { URL: 'postgres://u:p@db:5432/x?a=b' }],
    // single quotes: literal, no interpolation; `$` escaped in the output
    ["A='literal $HOST_VAR # kept'", { A: 'literal $$HOST_VAR # kept' }],
    // double quotes: escapes and interpolation
    ['A="line1\\nline2\\t\\"q\\""', { A: 'line1\nline2\t"q"' }],
    ['A="user=${DB_USER}"', { A: 'user=app' }],
    ['A="cost \\$5"', { A: 'cost $$5' }],
    ['A="#not a comment" # comment', { A: '#not a comment' }],
    // unquoted values are interpolated; earlier names of the same file are seen first
    ['A=${HOST_VAR}', { A: 'from-host' }],
    ['DB_USER=own\nB=${DB_USER}-x', { DB_USER: 'own', B: 'own-x' }],
    ['A=${NOPE:-fallback}', { A: 'fallback' }],
    ['A=$$literal', { A: '$$literal' }],
    ['A=${DENV_DB_PORT}', { A: '${DENV_DB_PORT}' }],
    // a name alone takes the environment's value, or is left out
    ['HOST_VAR\nNOT_IN_ENV', { HOST_VAR: 'from-host' }],
    // quoted values may span lines
    ['A="first\nsecond"\nB=2', { A: 'first\nsecond', B: '2' }],
    ["A='one\ntwo'", { A: 'one\ntwo' }],
    ['A=1\r\nB=2\r\n', { A: '1', B: '2' }],
  ])('%j', (text, expected) => {
    expect(values(text)).toEqual(expected);
  });

  it('format raw reads values literally', () => {
    expect(values('A="quoted ${HOST_VAR}" # x', 'raw')).toEqual({ A: '"quoted $${HOST_VAR}" # x' });
  });

  it('reports bad lines with their number and keeps the rest', () => {
    const r = parseDotenv('A=1\n!bad=2\nC="unterminated\n', lookup);
    expect(Object.fromEntries(r.values)).toEqual({ A: '1' });
    expect(r.errors).toEqual(['line 2: "!bad" is not a variable name', 'line 3: missing closing "']);
  });

  it('reports unset variables as missing', () => {
    expect(parseDotenv('A=${NOPE}', lookup).missing).toEqual(['NOPE']);
  });
});
