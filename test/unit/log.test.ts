import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../src/log.js';

/** A logger configured as the server's, writing its lines into an array. */
function captured() {
  const lines: string[] = [];
  const sink = new Writable({
    write: (chunk, _enc, cb) => {
      lines.push(chunk.toString());
      cb();
    },
  });
  return { lines, log: createLogger('info', { destination: sink }) };
}

describe('logger redaction', () => {
  it('redacts Authorization headers, keys, tokens and private keys by configuration, wherever code puts them', () => {
    const { lines, log } = captured();
    const key = `sgnk_${'Q'.repeat(57)}`;
    log.info({ req: { headers: { authorization: `Bearer ${key}`, cookie: 'session=abc' } } }, 'request');
    log.info({ headers: { authorization: `Bearer ${key}` }, apiKey: key, privateKey: '-----BEGIN PRIVATE KEY-----', token: key }, 'flat');
    log.info({ ctx: { secret: 's3cret', apiKey: key, authorization: key } }, 'nested');
    const text = lines.join('');
    expect(lines).toHaveLength(3);
    expect(text).not.toContain(key);
    expect(text).not.toContain('PRIVATE KEY');
    expect(text).not.toContain('s3cret');
    expect(text).not.toContain('session=abc');
    expect(text.match(/\[redacted\]/g)!.length).toBeGreaterThanOrEqual(8);
  });

  it("catches a canary at the top level and one and two levels down (the doctrine's LOG-002)", () => {
    const { lines, log } = captured();
    const canary = 'sgnk_test_canary_0000';
    for (const field of ['token', 'password', 'apiKey', 'authorization', 'secret']) {
      log.info({ [field]: canary }, 'top');
      log.info({ call: { [field]: canary } }, 'one level down');
      log.info({ call: { upstream: { [field]: canary } } }, 'two levels down');
    }
    expect(lines).toHaveLength(15);
    expect(lines.join('')).not.toContain(canary);
  });
});
