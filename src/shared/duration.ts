import { SignetError } from '../errors.js';

/** "90d", "24h", "15m", "30s" → milliseconds; `option` names the setting in the error. */
export function parseDuration(text: string, option: string): number {
  const m = /^(\d+)(s|m|h|d)$/.exec(text.trim());
  if (!m) throw new SignetError('invalid_arguments', `${option} takes a duration like 30s, 15m, 24h or 90d (got "${text.slice(0, 40)}")`);
  return Number(m[1]) * { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 }[m[2] as 's' | 'm' | 'h' | 'd'];
}
