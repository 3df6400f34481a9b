import { chmodSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readSecretFile } from '../../../src/shared/secret-file.js';
import { tempDir } from '../../helpers/tmp-doctrine.js';

describe('secret files (proxy secret, metrics token)', () => {
  const dir = tempDir('signet-secret-');
  const secret = 'c0ffee'.repeat(11);
  const file = (name: string, content: string, mode: number) => {
    const path = join(dir, name);
    writeFileSync(path, content, { mode });
    chmodSync(path, mode);
    return path;
  };

  it('reads a secret its owner and group may read, trimmed', () => {
    expect(readSecretFile(file('ok', `${secret}\n`, 0o440), 'SIGNET_PROXY_SECRET_FILE')).toBe(secret);
    expect(readSecretFile(file('ok2', secret, 0o600), 'SIGNET_PROXY_SECRET_FILE')).toBe(secret);
  });

  it('refuses one others may read or the group may write, as OpenSSH does, naming the variable and never the value', () => {
    for (const mode of [0o444, 0o460, 0o442]) {
      const path = file(`loose-${mode.toString(8)}`, secret, mode);
      expect(() => readSecretFile(path, 'SIGNET_PROXY_SECRET_FILE')).toThrow(
        new RegExp(`SIGNET_PROXY_SECRET_FILE: .* has mode 0${mode.toString(8)}: others may read or the group may write it`),
      );
    }
  });

  it('refuses a short, empty or multi-line secret, and a missing file, without quoting the content', () => {
    for (const [name, content] of [
      ['short', 'abc'],
      ['empty', ''],
      ['lines', `${secret}\n${secret}`],
      ['quote', `${secret}"`],
    ] as const) {
      const path = file(name, content, 0o400);
      let message = '';
      try {
        readSecretFile(path, 'SIGNET_METRICS_TOKEN_FILE');
      } catch (err) {
        message = (err as Error).message;
      }
      expect(message).toMatch(/SIGNET_METRICS_TOKEN_FILE: .* must hold one secret of 32 to 512 characters/);
      if (content.length > 0) expect(message).not.toContain(content.slice(0, 10));
    }
    expect(() => readSecretFile(join(dir, 'absent'), 'SIGNET_PROXY_SECRET_FILE')).toThrow(
      /SIGNET_PROXY_SECRET_FILE: cannot read .*: ENOENT/,
    );
  });
});
