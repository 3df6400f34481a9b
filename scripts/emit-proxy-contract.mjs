// Writes proxy/contract.sh, the proxy start-up steps' copy of the edge contract, from the
// built src/shared/edge-contract.ts (part of `npm run build`; a test keeps the file current).
// The server image builds without proxy/: nothing to write there.
import { existsSync, writeFileSync } from 'node:fs';
import { shellContract } from '../dist/shared/edge-contract.js';

const proxy = new URL('../proxy/', import.meta.url);
if (existsSync(proxy)) writeFileSync(new URL('contract.sh', proxy), shellContract());
