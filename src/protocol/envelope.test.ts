import { describe, expect, it } from 'vitest';
import { claimedVersion, envelopeIssues, hasClaim } from './envelope.js';

const V = 'io.modelcontextprotocol/protocolVersion';
const CAPS = 'io.modelcontextprotocol/clientCapabilities';
const INFO = 'io.modelcontextprotocol/clientInfo';

describe('the 2026-07-28 _meta envelope', () => {
  it('is a claim as soon as it names the protocol version key', () => {
    expect(hasClaim({ _meta: { [V]: 5 } })).toBe(true);
    expect(hasClaim({ _meta: {} })).toBe(false);
    expect(hasClaim({ _meta: 'x' })).toBe(false);
    expect(hasClaim(undefined)).toBe(false);
    expect(claimedVersion({ _meta: { [V]: 5 } })).toBeUndefined();
    expect(claimedVersion({ _meta: { [V]: '2026-07-28' } })).toBe('2026-07-28');
  });

  it('reports missing keys first, then wrong types, with the SDK wording', () => {
    expect(envelopeIssues({ [V]: '2026-07-28', [CAPS]: {} })).toEqual([]);
    expect(envelopeIssues({ [V]: '2026-07-28', [CAPS]: {}, [INFO]: { name: 'c', version: '1' } })).toEqual([]);
    expect(envelopeIssues({})).toEqual([
      { key: V, problem: 'missing' },
      { key: CAPS, problem: 'missing' },
    ]);
    expect(envelopeIssues({ [V]: 1, [CAPS]: [], [INFO]: { name: 'c' } })).toEqual([
      { key: V, problem: 'Invalid input: expected string, received number' },
      { key: `${INFO}.version`, problem: 'Invalid input: expected string, received undefined' },
      { key: CAPS, problem: 'Invalid input: expected object, received array' },
    ]);
  });
});
