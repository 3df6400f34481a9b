// What tools/list declares: annotations, output schemas, input schemas strict and bounded, and
// parameters marked for headers; in 2026-07-28, the cache scope of the list. These are the
// server's declarations: whether a hint is accurate, or whether the server validates arguments
// before a handler runs, would need tool calls, which the probe never makes.
import type { Check } from '../check.js';
import type { Exchange } from '../exchange.js';
import { answerTo, isRecord, MODERN_REVISION } from '../mcp.js';
import { headerParams, schemaProblems } from '../schema-bounds.js';

const MAX_PAGES = 3;

function list(names: string[]): string {
  return names.length > 5 ? `${names.slice(0, 5).join(', ')} and ${names.length - 5} more` : names.join(', ');
}

export const tools: Check = {
  name: 'tools',
  facts: [
    'tools.read_only_annotations',
    'tools.output_schemas_declared',
    'tools.input_schemas_strict',
    'tools.sensitive_params_as_headers',
    'http.list_cache_scope',
  ],
  async run(ctx) {
    const { findings, state } = ctx;
    const all: Record<string, unknown>[] = [];
    const pages: Exchange[] = [];
    let cursor: string | undefined;
    let scope: unknown;
    for (let page = 0; page < MAX_PAGES; page++) {
      const { exchange, rpcId } = await ctx.mcp(
        page === 0 ? 'tools.list' : `tools.list-page-${page + 1}`,
        page === 0 ? 'tools/list' : `tools/list, page ${page + 1}`,
        'tools/list',
        cursor === undefined ? {} : { cursor },
        undefined,
        { maxResponseBytes: 1024 * 1024 },
      );
      pages.push(exchange);
      const result = answerTo(exchange.body, exchange.headers['content-type'], rpcId)?.result;
      if (!result || !Array.isArray(result['tools'])) {
        for (const f of tools.facts) findings.leave(f, `tools/list got ${exchange.status ?? exchange.error} without a list of tools`);
        return;
      }
      state.served.push(exchange);
      if (page === 0) scope = result['cacheScope'];
      all.push(...(result['tools'] as unknown[]).filter(isRecord));
      cursor = typeof result['nextCursor'] === 'string' ? result['nextCursor'] : undefined;
      if (cursor === undefined) break;
    }
    if (cursor !== undefined) {
      for (const f of tools.facts) findings.leave(f, `tools/list has more than ${MAX_PAGES} pages; the probe read ${MAX_PAGES}`);
      return;
    }
    const source = pages[0]!.id;
    const name = (t: Record<string, unknown>) => (typeof t['name'] === 'string' ? t['name'] : '(unnamed)');

    if (state.session?.revision === MODERN_REVISION && (scope === 'public' || scope === 'private')) {
      findings.decide('http.list_cache_scope', scope, { probe: source, why: `tools/list carries cacheScope "${scope}"` });
    } else {
      findings.leave(
        'http.list_cache_scope',
        state.session?.revision === MODERN_REVISION ? 'tools/list carries no cacheScope' : `only read in ${MODERN_REVISION}`,
      );
    }
    if (all.length === 0) {
      for (const f of ['tools.read_only_annotations', 'tools.output_schemas_declared', 'tools.input_schemas_strict'] as const) {
        findings.leave(f, 'tools/list lists no tool');
      }
    }

    // Annotations: readOnlyHint on every tool; destructiveHint and idempotentHint where it is false.
    const unannotated = all.filter((t) => {
      const a = t['annotations'];
      if (!isRecord(a) || typeof a['readOnlyHint'] !== 'boolean') return true;
      return a['readOnlyHint'] === false && (typeof a['destructiveHint'] !== 'boolean' || typeof a['idempotentHint'] !== 'boolean');
    });
    if (unannotated.length > 0) {
      findings.decide('tools.read_only_annotations', false, {
        probe: source,
        why: `no readOnlyHint (or, where it is false, no destructiveHint and idempotentHint) on ${list(unannotated.map(name))}`,
      });
    } else if (all.length > 0) {
      findings.decide('tools.read_only_annotations', true, {
        probe: source,
        why: `all ${all.length} tools declare readOnlyHint (and the other hints where it is false); their accuracy is the server's claim`,
      });
    }

    // Output schemas: a tool without one may still return only text, which a list cannot show.
    const withoutOutput = all.filter((t) => !isRecord(t['outputSchema']));
    if (all.length > 0 && withoutOutput.length === 0) {
      findings.decide('tools.output_schemas_declared', true, { probe: source, why: `all ${all.length} tools declare an outputSchema` });
    } else if (all.length > 0) {
      findings.leave(
        'tools.output_schemas_declared',
        `${list(withoutOutput.map(name))} declare no outputSchema; whether they return structured data needs a call, which the probe never makes`,
      );
    }

    // Input schemas.
    const loose = all.map((t) => ({ t, problems: schemaProblems(t['inputSchema']) })).filter((x) => x.problems.length > 0);
    if (loose.length > 0) {
      findings.decide('tools.input_schemas_strict', false, {
        probe: source,
        why: loose
          .slice(0, 5)
          .map((x) => `${name(x.t)}: ${x.problems.slice(0, 3).join('; ')}`)
          .join(' | '),
      });
    } else if (all.length > 0) {
      findings.decide('tools.input_schemas_strict', true, {
        probe: source,
        why: `all ${all.length} input schemas reject unknown members and bound strings, arrays and open objects; argument validation before a handler runs is not exercised`,
      });
    }

    const marked = all.flatMap((t) => headerParams(t['inputSchema']).map((p) => `${name(t)}${p}`));
    if (marked.length === 0) {
      findings.decide('tools.sensitive_params_as_headers', false, {
        probe: source,
        why: 'no input schema marks a parameter with x-mcp-header',
      });
    } else {
      findings.leave(
        'tools.sensitive_params_as_headers',
        `x-mcp-header marks ${list(marked)}; whether they can hold secrets is not for the probe to judge`,
      );
    }
  },
};
