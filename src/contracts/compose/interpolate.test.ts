/**
 * Interpolation per the Compose specification (interpolation.md), table-driven from its own
 * rules and examples, plus denv's DENV_ rule and the escaped form the loader works in.
 */
import { describe, expect, it } from 'vitest';
import { escapedLookup, interpolate, resolveAtStart, unescapeDollars } from './interpolate.js';

const env = escapedLookup({ SET: 'value', EMPTY: '', FOO: 'foo', PRICE: 'cost $5', NESTED_NAME: 'inner' });
const run = (text: string): string => interpolate(text, env).value;

describe('interpolate (Compose specification examples)', () => {
  it.each([
    // [input, escaped-form output]
    ['$SET', 'value'],
    ['${SET}', 'value'],
    ['pre-${SET}-post', 'pre-value-post'],
    ['$SET/path', 'value/path'],
    // `:-` defaults when unset or empty; `-` only when unset
    ['${UNSET:-default}', 'default'],
    ['${EMPTY:-default}', 'default'],
    ['${SET:-default}', 'value'],
    ['${UNSET-default}', 'default'],
    ['${EMPTY-default}', ''],
    // `:+` / `+`: the alternative when set (and non-empty for `:+`)
    ['${SET:+alt}', 'alt'],
    ['${EMPTY:+alt}', ''],
    ['${EMPTY+alt}', 'alt'],
    ['${UNSET+alt}', ''],
    // nested, as the spec lists them: ${VARIABLE:-${FOO}}, ${VARIABLE?$FOO}, ${VARIABLE:-${FOO:-default}}
    ['${UNSET:-${FOO}}', 'foo'],
    ['${SET?$FOO}', 'value'],
    ['${UNSET:-${ALSO_UNSET:-default}}', 'default'],
    ['${UNSET:-a ${FOO} b}', 'a foo b'],
    // `$$` is a literal dollar (kept as `$$` in escaped form) and stops interpolation
    ['$$VAR_NOT_INTERPOLATED_BY_COMPOSE', '$$VAR_NOT_INTERPOLATED_BY_COMPOSE'],
    ['echo $${SET}', 'echo $${SET}'],
    // a value holding `$` comes out escaped, so loading the result again keeps it literal
    ['${PRICE}', 'cost $$5'],
    ['no variables at all', 'no variables at all'],
  ])('%s → %s', (input, output) => {
    expect(run(input)).toBe(output);
  });

  it('an unset variable becomes an empty string and is reported as missing (Compose warns)', () => {
    expect(interpolate('a${NOPE}b$ALSO_NOPE', env)).toEqual({ value: 'ab', missing: ['NOPE', 'ALSO_NOPE'] });
  });

  it.each([
    ['${UNSET:?please set it}', 'required variable UNSET is missing a value: please set it'],
    ['${EMPTY:?empty is not enough}', 'required variable EMPTY is missing a value: empty is not enough'],
    ['${UNSET?}', 'required variable UNSET is missing a value'],
    ['${UNSET?need $FOO}', 'required variable UNSET is missing a value: need foo'],
  ])('%s is an error naming the variable', (input, message) => {
    expect(() => run(input)).toThrow(message);
  });

  it('refuses nesting deeper than 32 levels quickly', () => {
    const deep = `${'${UNSET:-'.repeat(5000)}x${'}'.repeat(5000)}`;
    expect(() => run(deep)).toThrow(/nested deeper than 32/);
    expect(run(`${'${UNSET:-'.repeat(30)}x${'}'.repeat(30)}`)).toBe('x');
  });

  it('${EMPTY?msg} accepts a set but empty variable', () => {
    expect(run('${EMPTY?msg}')).toBe('');
  });

  it.each(['$1', 'price: 5$', '${}', '${1ABC}', '${SET', '${SET/foo/bar}'])('%s is an invalid interpolation format', (input) => {
    expect(() => run(input)).toThrow(/invalid interpolation format.*\$\$/);
  });
});

describe('DENV_ names are left for the host', () => {
  it.each(['${DENV_DB_PORT}', '$DENV_DB_HOST', '${DENV_X:-fallback}', 'http://${DENV_API_HOST}:${DENV_API_PORT}/'])('%s is kept exactly as written', (input) => {
    expect(run(input)).toBe(input);
  });

  it('mixes with ordinary variables', () => {
    expect(run('${SET}:${DENV_WEB_PORT}')).toBe('value:${DENV_WEB_PORT}');
  });

  it('the host resolves them at start, and $$ becomes $', () => {
    const host = (n: string): string | undefined => ({ DENV_DB_PORT: '5432', DENV_DB_HOST: '127.0.0.1' })[n];
    expect(resolveAtStart(run('postgres://${DENV_DB_HOST}:${DENV_DB_PORT}/app?pw=$$x'), host)).toBe('postgres://127.0.0.1:5432/app?pw=$x');
    expect(resolveAtStart('${DENV_MISSING:-7}', host)).toBe('7');
  });
});

describe('escaped form', () => {
  it('interpolating an interpolated value again changes nothing (the server loads the CLI model again)', () => {
    for (const input of ['${PRICE}', 'a $$b', '${DENV_X}', '${UNSET:-$$literal}']) {
      const once = run(input);
      expect(interpolate(once, escapedLookup({})).value).toBe(once);
    }
  });

  it('unescapeDollars reads it as a person would', () => {
    expect(unescapeDollars(run('${PRICE} and $$HOME'))).toBe('cost $5 and $HOME');
  });
});
