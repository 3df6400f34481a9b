// `signet signing-key ...`: this server's Ed25519 signing key and its lifecycle (list,
// rotate, revoke); `signet trust export` (cli/trust.ts) publishes the result to consumers.
import { join } from 'node:path';
import type { Command } from 'commander';
import { loadConfig } from '../config.js';
import { SignetError } from '../errors.js';
import { loadServerKeys, spkiOf } from '../signing/keyring.js';
import { GENERATED_KEY_NAME, loadOrCreateSigningKey } from '../signing/signing-key.js';
import { fingerprint } from '../signing/trust.js';

/** The configuration and the keys this server signs with (the current one, retired and revoked). */
export function serverKeys() {
  const config = loadConfig();
  const loaded = loadOrCreateSigningKey({ keyFile: config.signingKeyFile, dataDir: config.dataDir });
  return { config, keys: loadServerKeys(spkiOf(loaded.key), { dataDir: config.dataDir, trustFile: config.trustFile }) };
}

export function registerSigningKeyCommands(program: Command, exitWith: (code: number | undefined) => void): void {
  const sk = program.command('signing-key').description("this server's Ed25519 signing key: list, rotate, revoke");
  sk.command('list')
    .description('the current key and the retired and revoked ones')
    .option('--json', 'as JSON')
    .action((opts: { json?: boolean }) => {
      const { keys } = serverKeys();
      if (opts.json) process.stdout.write(`${JSON.stringify(keys.list, null, 2)}\n`);
      else for (const k of keys.list) process.stdout.write(`${k.status.padEnd(8)} ${k.fingerprint}  ${k.name}  ${k.public_key}\n`);
      exitWith(0);
    });
  sk.command('rotate')
    .description('replace the generated key (data dir) with a new one from the next start; the old one is kept as retired')
    .action(async () => {
      const config = loadConfig();
      if (config.signingKeyFile) {
        throw new SignetError(
          'key_invalid',
          'SIGNET_SIGNING_KEY_FILE is set: rotate by pointing it at a new key (signet keygen --out FILE) and listing the old public key as "retired" in SIGNET_TRUST_FILE',
        );
      }
      const { rotateGeneratedKey } = await import('../signing/rotation.js');
      const { previous, current } = rotateGeneratedKey(config.dataDir);
      process.stdout.write(
        `rotated ${join(config.dataDir, GENERATED_KEY_NAME)}\nretired ${fingerprint(previous)}\ncurrent ${fingerprint(current)} ${current}\n` +
          'Restart the server to sign with the new key, then publish the new trust file (signet trust export).\n',
      );
      exitWith(0);
    });
  sk.command('revoke')
    .description('revoke a retired key (public key, fingerprint or name): outputs it signed are refused from now on')
    .argument('<key>', 'base64 SPKI, SHA256:... fingerprint or signet-... name')
    .option('--note <text>', 'why (kept in the trust file)')
    .action(async (key: string, opts: { note?: string }) => {
      const config = loadConfig();
      const { revokeKey } = await import('../signing/rotation.js');
      const entry = revokeKey(config.dataDir, key, opts.note);
      process.stdout.write(
        `revoked ${fingerprint(entry.public_key)} ${entry.name}\nPublish the new trust file (signet trust export) to every consumer.\n`,
      );
      exitWith(0);
    });
}
