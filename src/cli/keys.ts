// `signet api-keys ...` (or `signet keys ...`): API keys for the reference proxy. Keys are shown once, at creation;
// the store keeps only their SHA-256. Ids are not secret and name keys in logs.

import { existsSync, readFileSync } from 'node:fs';
import type { Command } from 'commander';
import { newApiKey } from '../api-keys/format.js';
import { DEFAULT_KEY_LIFETIME } from '../api-keys/lifetime.js';
import type { KeyRecord, KeyStore } from '../api-keys/store.js';
import { loadConfig } from '../config.js';
import { SignetError } from '../errors.js';
import { parseDuration } from '../shared/duration.js';

// The store (and its lock library) loads only when a keys command runs, not on `signet serve`.
const storeModule = () => import('../api-keys/store.js');

const firstKeyModule = () => import('../api-keys/first-key.js');

async function store(path?: string): Promise<KeyStore> {
  const { KeyStore } = await storeModule();
  return new KeyStore(path ?? loadConfig().keyStore);
}

function describe(r: KeyRecord, status: string): string {
  const until = status === 'active' && r.expires_at ? ` until ${r.expires_at}` : '';
  return `${r.id}  ${status}${until}  name=${JSON.stringify(r.name)}  created=${r.created_at}  …${r.last4}${r.rotated_to ? `  rotated_to=${r.rotated_to}` : ''}`;
}

/**
 * The first start of the compose stack: with SIGNET_API_KEY set, no key is minted (the proxy
 * runs on that one key), but the store is created empty if it is missing: the auth check,
 * which compose starts either way, is healthy only with a store it can read, and `docker
 * compose up --wait` waits for it. Otherwise, if the store is empty, create a key named
 * "initial" and keep it in `initial-api-key` beside the store (mode 0600) so the operator can
 * print it; the file goes away when that key is revoked or rotated. Never logs the key.
 */
async function init(path: string | undefined): Promise<number> {
  const config = loadConfig();
  const s = await store(path);
  if (config.apiKey) {
    await s.update(() => undefined); // an existing store is kept as it is
    process.stderr.write('signet keys init: SIGNET_API_KEY is set; the proxy uses it as its only key, nothing minted\n');
    return 0;
  }
  const { forgetStaleInitialKey, initialKeyFile, mintFirstKey } = await firstKeyModule();
  for (const line of forgetStaleInitialKey(s)) process.stderr.write(`signet keys init: ${line}\n`);
  const created = await mintFirstKey(s);
  process.stderr.write(
    created
      ? `signet keys init: created the first API key, id ${created.id}, valid until ${created.expires_at} (rotate it with: keys rotate ${created.id}); print it with: docker compose exec auth cat ${initialKeyFile(s)}\n`
      : `signet keys init: key store ${s.path} already holds keys; nothing created\n`,
  );
  return 0;
}

/**
 * Revoking or rotating the first key takes its plaintext copy away (api-keys/first-key.ts), and
 * says so: the operator who printed the key from that file will look there again.
 */
async function forgetInitialKey(s: KeyStore, id: string, instead: string): Promise<void> {
  const { forgetInitialKey: forget, initialKeyFile } = await firstKeyModule();
  const file = initialKeyFile(s);
  const held = existsSync(file);
  const problem = forget(s, id);
  if (problem) process.stderr.write(`signet keys: ${problem}\n`);
  else if (held && !existsSync(file)) process.stderr.write(`signet keys: removed ${file}, which held key ${id}: ${instead}\n`);
}

export function registerKeyCommands(program: Command, exitWith: (code: number | undefined) => void): void {
  // API keys (who may call, checked at the proxy), not signing keys (what signs outputs: keygen,
  // signing-key). `keys` is the name the compose stack's service and older scripts use.
  const keys = program
    .command('api-keys')
    .alias('keys')
    .description('API keys for the reference proxy (sgnk_...), which callers present; not signing keys (see signing-key)');
  keys.option('--store <file>', 'key store (SIGNET_KEY_STORE, default <data dir>/keys.json)');
  const storeOf = (cmd: Command) => store(cmd.parent?.opts<{ store?: string }>().store);
  const duration = async (text: string, option: string) => parseDuration(text, option);

  keys
    .command('new')
    .description('print a fresh, well-formed API key (sgnk_...); it is not stored anywhere')
    .action(() => {
      process.stdout.write(`${newApiKey()}\n`);
      exitWith(0);
    });

  keys
    .command('create')
    .description('create a key and print it once; only its SHA-256 is stored')
    .requiredOption('--name <name>', 'who or what the key is for')
    .option('--expires <duration>', `lifetime, e.g. 90d, 24h, or never (default: ${DEFAULT_KEY_LIFETIME})`, DEFAULT_KEY_LIFETIME)
    .action(async (opts: { name: string; expires: string }, cmd: Command) => {
      const now = new Date();
      const expires = opts.expires === 'never' ? null : new Date(now.getTime() + (await duration(opts.expires, '--expires')));
      if (!/^[\w .@-]{1,64}$/.test(opts.name))
        throw new SignetError('invalid_arguments', '--name takes 1 to 64 letters, digits, spaces and . _ @ -');
      const { key, record } = await (await storeOf(cmd)).create(opts.name, expires, now);
      process.stderr.write(
        `created key ${record.id} for ${JSON.stringify(record.name)}${record.expires_at ? `, expires ${record.expires_at}` : ''}; it is shown once:\n`,
      );
      process.stdout.write(`${key}\n`);
      exitWith(0);
    });

  keys
    .command('list')
    .description('list keys: id, status, name, times, last 4 characters (never a key)')
    .option('--json', 'machine-readable')
    .action(async (opts: { json?: boolean }, cmd: Command) => {
      const now = Date.now();
      const { statusOf } = await storeModule();
      const file = (await storeOf(cmd)).read();
      if (opts.json)
        process.stdout.write(
          `${JSON.stringify(
            file.keys.map((k) => ({ ...k, hash: undefined, status: statusOf(k, now) })),
            null,
            2,
          )}\n`,
        );
      else process.stdout.write(file.keys.length ? `${file.keys.map((k) => describe(k, statusOf(k, now))).join('\n')}\n` : 'no keys\n');
      exitWith(0);
    });

  keys
    .command('revoke')
    .argument('<id>', 'key id (from keys list)')
    .description('revoke a key now; the proxy refuses it within seconds')
    .action(async (id: string, _opts: unknown, cmd: Command) => {
      const s = await storeOf(cmd);
      const record = await s.revoke(id);
      await forgetInitialKey(s, record.id, 'it no longer works, and no other key is kept in a file (keys create prints a new one once)');
      process.stderr.write(`revoked ${record.id} (${JSON.stringify(record.name)})\n`);
      exitWith(0);
    });

  keys
    .command('rotate')
    .argument('<id>', 'key id (from keys list)')
    .option('--grace <duration>', 'how long the old key keeps working', '24h')
    .description('replace a key: prints the new key once; the old one works until the grace period ends')
    .action(async (id: string, opts: { grace: string }, cmd: Command) => {
      const s = await storeOf(cmd);
      const { key, record, old } = await s.rotate(id, await duration(opts.grace, '--grace'));
      await forgetInitialKey(s, old.id, 'the new key is printed below, once, and kept nowhere else: store it now');
      process.stderr.write(`rotated ${old.id} → ${record.id}; ${old.id} stops working at ${old.expires_at}. The new key is shown once:\n`);
      process.stdout.write(`${key}\n`);
      exitWith(0);
    });

  keys
    .command('verify')
    .argument('[key]', 'the key, or - (default) to read it from stdin')
    .description('check a key offline: format and checksum, then the store; exit 0 active, 1 otherwise')
    .action(async (key: string | undefined, _opts: unknown, cmd: Command) => {
      const value = !key || key === '-' ? readFileSync(0, 'utf8').trim() : key;
      const result = (await storeOf(cmd)).verify(value);
      if (result.ok) process.stdout.write(`valid: ${result.record.id} (${JSON.stringify(result.record.name)})\n`);
      else process.stderr.write(`invalid: ${result.reason}\n`);
      exitWith(result.ok ? 0 : 1);
    });

  keys
    .command('init')
    .description('first start of the compose stack: unless SIGNET_API_KEY is set, create a first key if the store is empty')
    .action(async (_opts: unknown, cmd: Command) => exitWith(await init(cmd.parent?.opts<{ store?: string }>().store)));
}
