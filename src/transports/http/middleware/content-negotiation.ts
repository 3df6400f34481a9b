// POST /mcp speaks JSON both ways. The MCP SDK insists that Accept also lists
// text/event-stream; Signet only ever answers JSON, so any client that accepts JSON
// (or sends no Accept) is served, and one that excludes it gets 406.
import type { MiddlewareHandler } from 'hono';
import { edgeHeaders, type HttpEnv } from '../env.js';
import { header } from '../node-request.js';
import { refusal, SERVER_ERROR } from '../responses.js';

export function acceptsJson(accept: string | undefined): boolean {
  if (!accept) return true;
  return /(^|,)\s*(application\/json|application\/\*|\*\/\*)\s*(;|,|$)/i.test(accept);
}

export function isJsonContentType(contentType: string | undefined): boolean {
  return !!contentType && /^application\/json\s*(;|$)/i.test(contentType.trim());
}

export function contentNegotiation(): MiddlewareHandler<HttpEnv> {
  return function contentNegotiationHandler(c, next) {
    if (!isJsonContentType(header(c, 'content-type'))) {
      return Promise.resolve(
        refusal(415, null, SERVER_ERROR, 'Unsupported Media Type: Content-Type must be application/json', edgeHeaders(c)),
      );
    }
    if (!acceptsJson(header(c, 'accept'))) {
      return Promise.resolve(refusal(406, null, SERVER_ERROR, 'Not Acceptable: this server answers with application/json', edgeHeaders(c)));
    }
    return next();
  };
}
