// A shared secret kept in a file (the proxy secret, the metrics token): read once at start,
// never logged, never quoted in an error. Two services read the same file (the proxy and
// Signet, or Signet and the scraper), so its group may read it; others may not touch it and
// the group may not write it, the way OpenSSH's StrictModes treats files that grant access.
import { readFileSync, realpathSync, statSync } from 'node:fs';
import { SignetError } from '../errors.js';
import { SECRET as GRAMMAR } from './edge-contract.js';

/** What a secret may look like: it is written into nginx's configuration as a header value. */
const CHARSET = new RegExp(GRAMMAR.pattern);
const SECRET = { test: (s: string) => CHARSET.test(s) && s.length >= GRAMMAR.minLength && s.length <= GRAMMAR.maxLength };

export function readSecretFile(path: string, variable: string): string {
  let text: string;
  try {
    const target = realpathSync(path);
    const mode = statSync(target).mode & 0o777;
    if (typeof process.getuid === 'function' && (mode & 0o027) !== 0) {
      throw new SignetError(
        'config_invalid',
        `${variable}: ${path} has mode ${mode.toString(8).padStart(4, '0')}: others may read or the group may write it. Fix: chmod 440 ${target}`,
      );
    }
    text = readFileSync(target, 'utf8').trim();
  } catch (err) {
    if (err instanceof SignetError) throw err;
    throw new SignetError('config_invalid', `${variable}: cannot read ${path}: ${(err as NodeJS.ErrnoException).code ?? 'error'}`);
  }
  if (!SECRET.test(text)) {
    // The value is never shown back, not even in part.
    throw new SignetError(
      'config_invalid',
      `${variable}: ${path} must hold one secret of 32 to 512 characters from A-Z a-z 0-9 . _ ~ + / = - (e.g. 64 hex digits)`,
    );
  }
  return text;
}
