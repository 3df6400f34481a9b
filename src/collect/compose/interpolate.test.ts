// biome-ignore-all lint/suspicious/noTemplateCurlyInString: Compose variables, not JavaScript templates
import { describe, expect, it } from 'vitest';
import { interpolate, parseDotenv, Unresolved } from './interpolate.js';

// The cases of compose-spec interpolation.md, as Compose resolves them.
describe('Compose interpolation', () => {
  const env = new Map([
    ['SET', 'value'],
    ['EMPTY', ''],
  ]);

  it('resolves every operator as Compose does', () => {
    expect(interpolate('${SET}', env)).toBe('value');
    expect(interpolate('$SET/x', env)).toBe('value/x');
    expect(interpolate('${UNSET:-def}', env)).toBe('def');
    expect(interpolate('${EMPTY:-def}', env)).toBe('def');
    expect(interpolate('${EMPTY-def}', env)).toBe('');
    expect(interpolate('${UNSET-def}', env)).toBe('def');
    expect(interpolate('${SET:+alt}', env)).toBe('alt');
    expect(interpolate('${EMPTY:+alt}', env)).toBe('');
    expect(interpolate('${EMPTY+alt}', env)).toBe('alt');
    expect(interpolate('${UNSET:-${SET}}', env)).toBe('value');
    expect(interpolate('$${SET} costs $$5', env)).toBe('${SET} costs $5');
    expect(interpolate('127.0.0.1:${PORT:-8080}:8080', env)).toBe('127.0.0.1:8080:8080');
  });

  it('marks a value that depends on a variable the files do not set, never an empty guess', () => {
    const v = interpolate('redis://${HOST}:6379', env);
    expect(v).toBeInstanceOf(Unresolved);
    expect((v as Unresolved).variables).toEqual(['HOST']);
    expect((v as Unresolved).asEmpty).toBe('redis://:6379');
    const req = interpolate('${ISSUER:?set the issuer}', env) as Unresolved;
    expect(req.required).toBe('set the issuer');
  });

  it('refuses malformed expressions with a message', () => {
    expect(() => interpolate('${', env)).toThrow(/unclosed/);
    expect(() => interpolate('${1BAD}', env)).toThrow(/invalid interpolation/);
  });

  it('reads .env files as Compose does: quotes, export, comments, earlier keys', () => {
    const { values, lines } = parseDotenv(
      ['# comment', 'export A=1', 'B="two words\\nnext"', "C='lit ${A}'", 'D=${A}-x # trailing', 'E = spaced ', 'not a line'].join('\n'),
    );
    expect(Object.fromEntries(values)).toEqual({ A: '1', B: 'two words\nnext', C: 'lit ${A}', D: '1-x', E: 'spaced' });
    expect(lines.get('D')).toBe(5);
  });
});
