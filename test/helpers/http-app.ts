// The HTTP edge in process (Hono's app.request): the real middleware chain and router over
// the test context, with in-memory limits at the defaults; each test overrides what it tests.

import { loadConfig } from '../../src/config.js';
import { Router } from '../../src/protocol/router.js';
import { createHttpApp, type HttpAppOptions, type RequestEvent } from '../../src/transports/http/app.js';
import { LOOPBACK_HOSTNAMES } from '../../src/transports/http/middleware/host-validation.js';
import type { Policy } from '../../src/transports/http/rate-limit/policy.js';
import { memoryStore } from '../../src/transports/http/rate-limit/store.js';
import { testContext } from './context.js';

export const memoryPolicy = (name: Policy['name'], perMinute: number) => memoryStore().policy(name, perMinute);

const ctx = testContext();

export function httpApp(overrides: Partial<HttpAppOptions> = {}, events: RequestEvent[] = []) {
  return createHttpApp(ctx, {
    router: new Router(ctx),
    allowedHostnames: new Set(LOOPBACK_HOSTNAMES),
    allowedOrigins: [],
    allowLoopbackOrigins: true,
    proxySecret: null,
    trustedProxies: null,
    calls: memoryPolicy('calls', 60),
    requests: memoryPolicy('requests', 600),
    keyCalls: null,
    keyRequests: null,
    ipGuard: null,
    ipv6Prefix: 64,
    // The shipped defaults: doctrine_evaluate and deployment_check need signet:evaluate, the rest signet:read.
    scopePolicy: loadConfig({}).http.oauthScopes,
    maxBodyBytes: 1024 * 1024,
    jsonShape: { maxDepth: 64, maxNodes: 100_000 },
    concurrentBodies: { total: 16, perPrincipal: 4 },
    isReady: () => true,
    peerAddress: () => '127.0.0.1',
    onRequest: (e) => events.push(e),
    ...overrides,
  });
}
