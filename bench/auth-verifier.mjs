// The alternative to njs measured by bench/proxy-auth.mjs: an auth_request verifier
// service answering 204/401 from the same hashed key store (what `signet verify`-style
// service on the private network would do).
import { createServer } from 'node:http';
import { KeyStore } from '../dist/api-keys/store.js';

const store = new KeyStore(process.env.SIGNET_KEY_STORE);
const server = createServer((req, res) => {
  const h = req.headers.authorization ?? '';
  const result = h.startsWith('Bearer ') ? store.verify(h.slice(7)) : null;
  res.writeHead(result?.ok ? 204 : 401, result?.ok ? { 'x-signet-key-id': result.record.id } : {});
  res.end();
});
server.listen(0, '127.0.0.1', () =>
  process.stderr.write(`listening on port ${/** @type {import('node:net').AddressInfo} */ (server.address()).port}\n`),
);
process.on('SIGTERM', () => server.close(() => process.exit(0)));
