import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { EDGE_HEADERS, shellContract } from './edge-contract.js';

const PROXY = fileURLToPath(new URL('../../proxy/', import.meta.url));

describe('the edge contract', () => {
  it('is what proxy/contract.sh holds (npm run build writes it: run it after changing the contract)', () => {
    expect(readFileSync(join(PROXY, 'contract.sh'), 'utf8')).toBe(shellContract());
  });

  it('names every X-Signet-* header the proxy templates use', () => {
    const known = new Set(Object.values(EDGE_HEADERS).map((h) => h.toLowerCase()));
    const used = new Set<string>();
    for (const file of readdirSync(join(PROXY, 'templates'), { recursive: true, encoding: 'utf8' })) {
      if (!file.endsWith('.template')) continue;
      const text = readFileSync(join(PROXY, 'templates', file), 'utf8');
      for (const m of text.matchAll(/\bX-Signet-[A-Za-z-]+/g)) used.add(m[0].toLowerCase());
      // nginx's $upstream_http_x_signet_* and $http_x_signet_* variables name them too.
      for (const m of text.matchAll(/\$(?:upstream_)?http_(x_signet_[a-z_]+)/g)) used.add(m[1]!.replaceAll('_', '-'));
    }
    expect(used.size).toBeGreaterThan(3);
    expect([...used].filter((h) => !known.has(h))).toEqual([]);
  });
});
