// What each method answers, once the router has classified a message and checked its era
// and headers: built once over the read-only context; precomputed answers come from Answers,
// tool calls from the dispatcher (whose signed-result cache makes a repeated call a lookup).
import type { AppContext } from '../context.js';
import { SignetError } from '../errors.js';
import type { CallOutcome } from '../tools/dispatch.js';
import { Answers, type Era, toolCallParams } from './answers.js';
import { INVALID_PARAMS, isObject, METHOD_NOT_FOUND, quote, type Request } from './jsonrpc.js';
import { answered, failed, type RouteOutcome } from './outcome.js';
import { isLegacyVersion } from './versions.js';

export class Methods {
  readonly answers: Answers;
  readonly #ctx: AppContext;

  constructor(ctx: AppContext) {
    this.#ctx = ctx;
    this.answers = new Answers(ctx);
  }

  /** The 2025 revisions: the initialize handshake, ping, lists, calls and reads. */
  legacy(m: Request): RouteOutcome {
    switch (m.method) {
      case 'initialize': {
        const params = m.params;
        if (!isObject(params) || typeof params['protocolVersion'] !== 'string') {
          return failed(m.id, 'legacy', INVALID_PARAMS, 'Invalid params: initialize needs params.protocolVersion, a string');
        }
        return answered(m.id, 'legacy', this.answers.initialize(params['protocolVersion'], isLegacyVersion));
      }
      case 'ping':
        return answered(m.id, 'legacy', '{}');
      case 'tools/call':
        return this.#toolCall(m, 'legacy');
      case 'resources/read':
        return this.#read(m, 'legacy');
      default: {
        const list = this.answers.list('legacy', m.method);
        return list === undefined ? failed(m.id, 'legacy', METHOD_NOT_FOUND, 'Method not found') : answered(m.id, 'legacy', list);
      }
    }
  }

  /** 2026-07-28: discovery, lists, calls and reads; anything else is 404 / -32601. */
  modern(m: Request): RouteOutcome {
    switch (m.method) {
      case 'server/discover':
        return answered(m.id, 'modern', this.answers.discover());
      case 'tools/call':
        return this.#toolCall(m, 'modern');
      case 'resources/read':
        return this.#read(m, 'modern');
      default: {
        const list = this.answers.list('modern', m.method);
        if (list !== undefined) return answered(m.id, 'modern', list);
        // ping, initialize, logging, completion, subscriptions: not served in this era.
        return failed(m.id, 'modern', METHOD_NOT_FOUND, 'Method not found', { status: 404 });
      }
    }
  }

  #toolCall(m: Request, era: Era): RouteOutcome {
    const params = toolCallParams(m.params);
    if (typeof params === 'string') return failed(m.id, era, INVALID_PARAMS, `Invalid params: ${params}`);
    if (!this.#ctx.tools.has(params.name)) {
      return failed(m.id, era, INVALID_PARAMS, `Unknown tool: ${quote(params.name)}. tools/list names the available tools.`);
    }
    let outcome: CallOutcome;
    try {
      outcome = this.#ctx.tools.call(params.name, params.args);
    } catch (err) {
      if (err instanceof SignetError) return failed(m.id, era, INVALID_PARAMS, err.message, { tool: params.name });
      throw err;
    }
    const json = outcome.json();
    return answered(m.id, era, era === 'modern' ? this.answers.modern(json, false) : json, params.name, outcome.cached);
  }

  #read(m: Request, era: Era): RouteOutcome {
    const uri = isObject(m.params) ? m.params['uri'] : undefined;
    if (typeof uri !== 'string') return failed(m.id, era, INVALID_PARAMS, 'Invalid params: resources/read needs params.uri, a string');
    const read = this.answers.read(era, uri);
    if (!read.ok) return failed(m.id, era, read.code, `Resource not found: ${quote(uri)}`, { data: { uri: quote(uri) } });
    return answered(m.id, era, read.json);
  }
}
