// GET /verify: the verification page, its script and its style, static and the same for
// everyone, under a CSP that allows nothing but them (no connection anywhere). Through the
// proxy it needs no key: it holds no secret and runs nothing on the server.
import type { Hono } from 'hono';
import { PAGE_CSP, pageFiles, servedPage } from '../../verify-page/assets.js';

const SECURITY = {
  'Content-Security-Policy': PAGE_CSP,
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
  'Cross-Origin-Resource-Policy': 'same-origin',
  'Cache-Control': 'public, max-age=300',
};

export function mountVerifyPage<E extends object>(app: Hono<E & { Variables: object }>): void {
  let html: string | null = null;
  const page = () => (html ??= servedPage());
  app.get('/verify', (c) => c.body(page(), 200, { 'content-type': 'text/html; charset=utf-8', ...SECURITY }));
  app.get('/verify/verify.js', (c) => c.body(pageFiles().js, 200, { 'content-type': 'text/javascript; charset=utf-8', ...SECURITY }));
  app.get('/verify/verify.css', (c) => c.body(pageFiles().css, 200, { 'content-type': 'text/css; charset=utf-8', ...SECURITY }));
}
