import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { PROBE_FACTS } from './findings.js';
import { answerTo, PROTOCOL_REVISIONS } from './mcp.js';

const schema = JSON.parse(readFileSync(new URL('../../doctrine/doctrine.json', import.meta.url), 'utf8')).facts_schema;

describe('the probe against the doctrine facts schema', () => {
  it('tries exactly the revisions transport.protocol_revisions can name', () => {
    expect([...PROTOCOL_REVISIONS]).toEqual(schema.properties.transport.properties.protocol_revisions.items.enum);
  });

  it('decides only facts the schema has', () => {
    const missing = PROBE_FACTS.filter((path) => {
      const [group, name] = path.split('.') as [string, string];
      return schema.properties[group]?.properties?.[name] === undefined;
    });
    expect(missing).toEqual([]);
  });
});

describe('answerTo', () => {
  it('finds the answer to an id in JSON, in a batch and in an SSE stream', () => {
    expect(answerTo('{"jsonrpc":"2.0","id":3,"result":{"a":1}}', 'application/json', 3)).toEqual({ result: { a: 1 } });
    expect(answerTo('[{"jsonrpc":"2.0","id":2,"result":{}},{"jsonrpc":"2.0","id":3,"result":{"b":2}}]', 'application/json', 3)).toEqual({
      result: { b: 2 },
    });
    const sse = 'id: 1\ndata: \n\nevent: message\ndata: {"jsonrpc":"2.0","id":7,"result":{"c":3}}\n\n';
    expect(answerTo(sse, 'text/event-stream', 7)).toEqual({ result: { c: 3 } });
  });

  it('takes an error with a null or missing id as the answer, but never a result for another id', () => {
    const error = { code: -32700, message: 'Parse error' };
    expect(answerTo(JSON.stringify({ jsonrpc: '2.0', id: null, error }), 'application/json', 1)).toEqual({ error });
    expect(answerTo(JSON.stringify({ jsonrpc: '2.0', error }), 'application/json', 1)).toEqual({ error });
    expect(answerTo('{"jsonrpc":"2.0","id":2,"result":{}}', 'application/json', 1)).toBeUndefined();
    expect(answerTo('not json', 'application/json', 1)).toBeUndefined();
  });
});
