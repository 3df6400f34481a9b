// API keys expire (90 days by default, the doctrine's AUTH-005); nobody should learn it from a
// 401. The auth check holds the store, so it says so ahead: a warning per key once a day from
// SIGNET_KEY_EXPIRY_WARNING_DAYS before its expiry (issue 29), beside the metrics per key id.
import type { KeySet } from '../../api-keys/key-set.js';
import { statusOf } from '../../api-keys/store.js';
import type { Logger } from '../../log.js';

const DAY_MS = 86_400_000;

export function watchKeyExpiry(keys: KeySet, warningDays: number, log: Logger, intervalMs = 3_600_000): () => void {
  const warned = new Map<string, number>();
  const scan = () => {
    const now = Date.now();
    for (const k of keys.records()) {
      if (k.expires_at === null || k.rotated_to !== null || statusOf(k, now) !== 'active') continue;
      const left = Date.parse(k.expires_at) - now;
      if (left > warningDays * DAY_MS || now - (warned.get(k.id) ?? 0) < DAY_MS) continue;
      warned.set(k.id, now);
      log.warn(
        { key_id: k.id, name: k.name, expires_at: k.expires_at, days_left: Math.floor(left / DAY_MS) },
        `API key ${k.id} expires in ${Math.max(0, Math.floor(left / DAY_MS))} days; rotate it: signet api-keys rotate ${k.id}`,
      );
    }
  };
  if (warningDays > 0) scan();
  const timer = warningDays > 0 ? setInterval(scan, intervalMs) : undefined;
  timer?.unref();
  return () => clearInterval(timer);
}
