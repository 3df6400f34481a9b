import type { Command } from 'commander';
import { readFileSync } from 'node:fs';
import { loadConfig } from '../config.js';
import { SignetError } from '../errors.js';
import { writeAtomic } from '../keys/files.js';
import { checkApiKeyFormat, newApiKey } from '../keys/format.js';

/** Where the compose stack keeps the key the proxy checks when SIGNET_API_KEY is not set. */
export const DEFAULT_KEY_FILE = '/keys/api-key';

/**
 * `keys init`: the zero-configuration first start. With SIGNET_API_KEY set, nothing to do.
 * Otherwise keep an existing key file, or mint one (mode 0640: readable by the proxy's
 * group). The key itself is never printed.
 */
export function keysInit(file: string): number {
  const config = loadConfig();
  if (config.apiKey) {
    process.stderr.write('signet keys init: SIGNET_API_KEY is set; the proxy uses it, nothing minted\n');
    return 0;
  }
  let existing: string | null = null;
  try {
    existing = readFileSync(file, 'utf8').trim();
  } catch {
    existing = null;
  }
  if (existing !== null) {
    const check = checkApiKeyFormat(existing);
    if (!check.ok) throw new SignetError('key_invalid', `${file} does not hold a valid key (${check.reason}); delete it to mint a new one`);
    process.stderr.write(`signet keys init: API key ${check.id}… already present in ${file}\n`);
    return 0;
  }
  const key = newApiKey();
  const result = writeAtomic(file, key + '\n', 0o640, { exclusive: true });
  const id = checkApiKeyFormat(key).ok ? key.slice(5, 13) : '';
  process.stderr.write(
    result === 'written'
      ? `signet keys init: minted API key ${id}… into ${file}; print it with: docker compose exec proxy cat ${file}\n`
      : `signet keys init: another process created ${file} first; keeping it\n`,
  );
  return 0;
}

export function registerKeyCommands(keys: Command, exitWith: (code: number | void) => void): void {
  keys
    .command('new')
    .description('print a fresh, well-formed API key (sgnk_...); it is not stored anywhere')
    .action(() => {
      process.stdout.write(newApiKey() + '\n');
      exitWith(0);
    });
  keys
    .command('init')
    .description('first start of the compose stack: mint an API key into --file unless SIGNET_API_KEY is set or the file exists')
    .option('--file <path>', 'key file shared with the proxy', DEFAULT_KEY_FILE)
    .action((opts: { file: string }) => exitWith(keysInit(opts.file)));
}
