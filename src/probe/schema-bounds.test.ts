import { describe, expect, it } from 'vitest';
import { headerParams, schemaProblems } from './schema-bounds.js';

const strict = {
  type: 'object',
  additionalProperties: false,
  properties: {
    id: { type: 'string', maxLength: 64 },
    tags: { type: 'array', maxItems: 8, items: { type: 'string', maxLength: 20 } },
    mode: { enum: ['a', 'b'] },
    revisions: { type: 'array', uniqueItems: true, items: { enum: ['2025-11-25', '2026-07-28'] } },
    data: { type: 'object', maxProperties: 16, additionalProperties: { type: 'string', maxLength: 10 } },
    ref: { $ref: '#/$defs/name' },
    count: { type: 'integer' },
  },
  $defs: { name: { type: 'string', maxLength: 5 } },
};

describe('schemaProblems', () => {
  it('finds nothing wrong in a closed schema whose strings, arrays and open objects are bounded', () => {
    expect(schemaProblems(strict)).toEqual([]);
  });

  it('names each unbounded or open part by its JSON pointer', () => {
    expect(
      schemaProblems({
        type: 'object',
        properties: {
          command: { type: 'string' },
          list: { type: 'array', items: { type: 'number' } },
          nested: { type: 'object', properties: { x: { type: 'boolean' } } },
          anything: {},
          remote: { $ref: 'https://schemas.example/x.json' },
          local: { $ref: '#/$defs/free' },
        },
        $defs: { free: { type: ['string', 'null'] } },
      }),
    ).toEqual([
      '/: accepts members it does not declare (no additionalProperties: false)',
      '/properties/command: a string without maxLength',
      '/properties/list: an array without maxItems',
      '/properties/nested: an object open to any members without maxProperties',
      '/properties/anything: no type: accepts any value',
      '/properties/remote: $ref https://schemas.example/x.json is not inside the schema',
      '/properties/local: a string without maxLength',
    ]);
  });

  it('walks anyOf branches and array items, and survives a schema that refers to itself', () => {
    const loop: Record<string, unknown> = {
      type: 'object',
      additionalProperties: false,
      properties: { child: { $ref: '#' }, either: { anyOf: [{ type: 'string' }, { type: 'integer' }] } },
    };
    expect(schemaProblems(loop)).toEqual(['/properties/either/anyOf/0: a string without maxLength']);
    expect(schemaProblems('not a schema')).toEqual(['the inputSchema is not an object']);
  });
});

describe('headerParams', () => {
  it('lists parameters marked x-mcp-header (MCP 2026-07-28)', () => {
    expect(headerParams(strict)).toEqual([]);
    expect(headerParams({ type: 'object', properties: { token: { type: 'string', 'x-mcp-header': 'Token' } } })).toEqual([
      '/properties/token',
    ]);
  });
});
