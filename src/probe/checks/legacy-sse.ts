// The deprecated HTTP+SSE transport of 2024-11-05 (doctrine PROTO-004): a GET that opens an
// event stream whose first event, `endpoint`, names where to POST. Tried at `/sse` (the path
// the SDKs and FastMCP use) and at the endpoint itself, each read for a few seconds at most.
import type { Check } from '../check.js';
import type { Exchange } from '../exchange.js';

const ENDPOINT_EVENT = /^event:\s*endpoint\s*$/m;
const WINDOW_MS = 3000;

export const legacySse: Check = {
  name: 'legacy-sse',
  facts: ['transport.legacy_sse'],
  async run(ctx) {
    const { findings, state, target } = ctx;
    const paths = [...new Set(['/sse', target.path])];
    const answers: Exchange[] = [];
    for (const [i, path] of paths.entries()) {
      const e = await ctx.send({
        id: i === 0 ? 'sse.well-known-path' : 'sse.endpoint',
        purpose: `GET ${path} asking for an event stream: does an endpoint event arrive?`,
        method: 'GET',
        path,
        headers: [['accept', 'text/event-stream']],
        withCredential: state.sendCredential,
        stopWhen: (body) => ENDPOINT_EVENT.test(body),
        windowMs: WINDOW_MS,
        maxResponseBytes: 16 * 1024,
      });
      if (ENDPOINT_EVENT.test(e.body)) {
        findings.decide('transport.legacy_sse', true, { probe: e.id, why: `GET ${path} opened a stream whose first event is endpoint` });
        return;
      }
      answers.push(e);
    }
    const unclear = answers.find((e) => e.status === null || e.status === 401 || e.status === 403);
    if (unclear) {
      findings.leave('transport.legacy_sse', `${unclear.id} got ${unclear.status ?? unclear.error}, which hides whether a stream is there`);
      return;
    }
    findings.decide(
      'transport.legacy_sse',
      false,
      ...answers.map((e) => ({ probe: e.id, why: `answered ${e.status} with no endpoint event` })),
    );
  },
};
