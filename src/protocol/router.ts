// One router for every stateless MCP message of both protocol eras, built once over the
// read-only context and shared by every request and both transports. It keeps no state
// between messages and builds no per-request objects beyond the answer itself, so nothing
// a client sends can reach another client's answer (GHSA-345p-7cg4-v4c7 stays closed).
// Era classification follows the TypeScript SDK v2's body-primary rules; a differential
// test holds the router to the SDKs' bytes (test/integration/protocol-differential.test.ts).
// This file decides which era a message is and refuses what the era's rules refuse;
// methods.ts answers it.
import type { AppContext } from '../context.js';
import { claimedVersion, envelopeIssues, envelopeOf, hasClaim } from './envelope.js';
import {
  echoableId,
  INVALID_PARAMS,
  INVALID_REQUEST,
  isNotification,
  isObject,
  isRequest,
  isResponse,
  type Notification,
  quote,
  type Request,
  SERVER_ERROR,
  UNSUPPORTED_PROTOCOL_VERSION,
} from './jsonrpc.js';
import { PROTOCOL_VERSION_KEY } from './meta-keys.js';
import { Methods } from './methods.js';
import { ACCEPTED, fromMismatch, type RouteOutcome, type RouteSource, refused } from './outcome.js';
import { checkMirroredHeaders, checkStandardHeaders, mismatch, type StandardHeaders, stripOws } from './standard-headers.js';
import { allowsBatches, isLegacyVersion, isModernVersion, LEGACY_VERSIONS, MODERN_VERSIONS } from './versions.js';

export type { RouteOutcome, RouteSource } from './outcome.js';

const NOT_JSON_RPC = 'Bad Request: the request body is not a valid JSON-RPC message';

function normalise(h: StandardHeaders | undefined): StandardHeaders {
  if (!h) return {};
  return {
    protocolVersion: h.protocolVersion === undefined ? undefined : stripOws(h.protocolVersion),
    method: h.method === undefined ? undefined : stripOws(h.method),
    name: h.name === undefined ? undefined : stripOws(h.name),
  };
}

/** A well-formed envelope naming a modern revision: only that turns `initialize` into a modern request. */
function validModernClaim(params: unknown): boolean {
  const v = claimedVersion(params);
  const meta = envelopeOf(params);
  return v !== undefined && isModernVersion(v) && meta !== undefined && envelopeIssues(meta).length === 0;
}

export interface RouterOptions {
  /** The most messages a batch may hold (SIGNET_MAX_BATCH_MESSAGES). */
  maxBatch: number;
}

export class Router {
  readonly #methods: Methods;
  readonly #maxBatch: number;

  constructor(ctx: AppContext, options: RouterOptions = { maxBatch: ctx.config.maxBatchMessages }) {
    this.#methods = new Methods(ctx);
    this.#maxBatch = options.maxBatch;
  }

  /** Answers one parsed HTTP body or stdio line: a message or a batch. */
  route(payload: unknown, source: RouteSource): RouteOutcome {
    const headers = normalise(source.headers);
    if (Array.isArray(payload)) return this.#batch(payload, headers, source);
    if (isResponse(payload)) return ACCEPTED; // a 2025-era client answering a server request: nothing to do
    if (isRequest(payload)) return this.#request(payload, headers, source);
    if (isNotification(payload)) return this.#notification(payload, headers, source);
    return refused(400, echoableId(payload), INVALID_REQUEST, NOT_JSON_RPC);
  }

  #request(m: Request, headers: StandardHeaders, source: RouteSource): RouteOutcome {
    const headerVersion = headers.protocolVersion;
    const headerModern = headerVersion !== undefined && isModernVersion(headerVersion);
    if (m.method === 'initialize' && !validModernClaim(m.params)) {
      if (headerModern)
        return fromMismatch(
          mismatch(headerVersion, 'an initialize request (legacy handshake) was sent with a modern MCP-Protocol-Version header'),
          m.id,
        );
      return this.#legacy(m, headers, source);
    }
    if (hasClaim(m.params)) {
      const issue = envelopeIssues(envelopeOf(m.params)!)[0];
      if (issue)
        return refused(
          400,
          m.id,
          INVALID_PARAMS,
          `Invalid _meta envelope for protocol revision ${MODERN_VERSIONS[0]}: ${issue.key}: ${issue.problem}`,
          { envelope: issue },
        );
      const claimed = claimedVersion(m.params)!;
      if (headerVersion !== undefined && headerVersion !== claimed) {
        return fromMismatch(
          mismatch(
            headerVersion,
            `the body envelope names protocol version ${quote(claimed)} but the MCP-Protocol-Version header names ${quote(headerVersion)}`,
          ),
          m.id,
        );
      }
      if (headers.method !== undefined && headers.method !== m.method) {
        return fromMismatch(
          mismatch(headers.method, `the body names method ${quote(m.method)} but the Mcp-Method header names ${quote(headers.method)}`),
          m.id,
        );
      }
      return this.#modern(m, claimed, headers, source);
    }
    if (headerModern) {
      const meta = envelopeOf(m.params);
      const missingKeys = envelopeIssues(meta ?? {})
        .filter((i) => i.problem === 'missing')
        .map((i) => i.key);
      const missing = meta === undefined ? ['_meta'] : missingKeys.length > 0 ? missingKeys : [PROTOCOL_VERSION_KEY];
      return refused(
        400,
        m.id,
        INVALID_PARAMS,
        `Invalid params: the MCP-Protocol-Version header names protocol revision ${quote(headerVersion)}, ` +
          `but the request is missing the required per-request envelope key(s): ${missing.join(', ')}`,
        { envelope: { missing } },
      );
    }
    return this.#legacy(m, headers, source);
  }

  #notification(m: Notification, headers: StandardHeaders, source: RouteSource): RouteOutcome {
    const headerVersion = headers.protocolVersion;
    if (hasClaim(m.params)) {
      const claimed = claimedVersion(m.params);
      if (claimed === undefined) {
        const issue = envelopeIssues(envelopeOf(m.params)!).find((i) => i.key === PROTOCOL_VERSION_KEY)!;
        return refused(
          400,
          null,
          INVALID_PARAMS,
          `Invalid _meta envelope for protocol revision ${MODERN_VERSIONS[0]}: ${issue.key}: ${issue.problem}`,
          { envelope: issue },
        );
      }
      if (headerVersion !== undefined && headerVersion !== claimed) {
        return fromMismatch(
          mismatch(
            headerVersion,
            `the notification envelope names protocol version ${quote(claimed)} ` +
              `but the MCP-Protocol-Version header names ${quote(headerVersion)}`,
          ),
          null,
        );
      }
      if (isModernVersion(claimed) && headers.method !== undefined && headers.method !== m.method) {
        return this.#notificationMethodMismatch(m.method, headers.method);
      }
      return ACCEPTED;
    }
    if (headerVersion !== undefined && isModernVersion(headerVersion)) {
      if (headers.method !== undefined && headers.method !== m.method) {
        return this.#notificationMethodMismatch(m.method, headers.method);
      }
      return ACCEPTED;
    }
    return this.#legacyVersionRefusal(headers, source) ?? ACCEPTED;
  }

  /** A notification whose Mcp-Method header names another method than its body (2026-07-28). */
  #notificationMethodMismatch(bodyMethod: string, headerMethod: string): RouteOutcome {
    return fromMismatch(
      mismatch(
        headerMethod,
        `the notification body names method ${quote(bodyMethod)} but the Mcp-Method header names ${quote(headerMethod)}`,
      ),
      null,
    );
  }

  #batch(list: unknown[], headers: StandardHeaders, source: RouteSource): RouteOutcome {
    if (list.length === 0) return refused(400, null, INVALID_REQUEST, 'Bad Request: empty JSON-RPC batch');
    if (list.length > this.#maxBatch) {
      return refused(
        400,
        null,
        INVALID_REQUEST,
        `Bad Request: a batch of ${list.length} messages is over the limit of ${this.#maxBatch} (SIGNET_MAX_BATCH_MESSAGES)`,
      );
    }
    for (const element of list) {
      if (hasClaim(isObject(element) ? element['params'] : undefined)) {
        return refused(
          400,
          null,
          INVALID_REQUEST,
          `Bad Request: JSON-RPC batches may not contain requests for protocol revision ${MODERN_VERSIONS[0]} or later`,
        );
      }
      if (!(isRequest(element) || isNotification(element) || isResponse(element))) {
        return refused(400, null, INVALID_REQUEST, 'Bad Request: JSON-RPC batch contains an invalid message');
      }
    }
    const versionRefusal = this.#legacyVersionRefusal(headers, source);
    if (versionRefusal) return versionRefusal;
    if (source.transport === 'http' && (headers.method !== undefined || headers.name !== undefined)) {
      // One header cannot mirror several messages: a gateway deciding by it would be wrong.
      return fromMismatch(mismatch(headers.method ?? headers.name!, 'a JSON-RPC batch cannot carry Mcp-Method or Mcp-Name headers'), null);
    }
    if (source.transport === 'http' && !allowsBatches(headers.protocolVersion)) {
      return refused(
        400,
        null,
        INVALID_REQUEST,
        `Bad Request: protocol revision ${quote(headers.protocolVersion!)} ` +
          'does not allow JSON-RPC batches (2025-03-26 was the last that did)',
      );
    }
    const bodies: string[] = [];
    let tool: string | null = null;
    let cached = false;
    for (const element of list) {
      if (!isRequest(element)) continue;
      const out = this.#methods.legacy(element);
      bodies.push(out.body!);
      if (out.tool) ({ tool, cached } = out);
    }
    if (bodies.length === 0) return ACCEPTED;
    return { status: 200, body: `[${bodies.join(',')}]`, era: 'legacy', tool: list.length === 1 ? tool : null, cached };
  }

  /**
   * A 2025-era HTTP request naming a revision Signet does not speak: refused before anything
   * runs, as the v1 SDK transport does (initialize negotiates instead).
   */
  #legacyVersionRefusal(headers: StandardHeaders, source: RouteSource): RouteOutcome | null {
    const v = headers.protocolVersion;
    if (source.transport !== 'http' || v === undefined || isLegacyVersion(v)) return null;
    return refused(
      400,
      null,
      SERVER_ERROR,
      `Bad Request: Unsupported protocol version: ${quote(v)} (supported versions: ${LEGACY_VERSIONS.join(', ')})`,
    );
  }

  #legacy(m: Request, headers: StandardHeaders, source: RouteSource): RouteOutcome {
    if (m.method !== 'initialize') {
      const refusal = this.#legacyVersionRefusal(headers, source);
      if (refusal) return refusal;
    }
    const contradiction = source.transport === 'http' ? checkMirroredHeaders(headers, m) : null;
    if (contradiction) return fromMismatch(contradiction, m.id);
    return this.#methods.legacy(m);
  }

  #modern(m: Request, claimed: string, headers: StandardHeaders, source: RouteSource): RouteOutcome {
    if (!(MODERN_VERSIONS as readonly string[]).includes(claimed)) {
      return refused(400, m.id, UNSUPPORTED_PROTOCOL_VERSION, `Unsupported protocol version: ${quote(claimed)}`, {
        supported: MODERN_VERSIONS,
        requested: quote(claimed),
      });
    }
    if (source.transport === 'http') {
      const m2 = checkStandardHeaders(headers, m, claimed);
      if (m2) return fromMismatch(m2, m.id);
    }
    return this.#methods.modern(m);
  }
}
