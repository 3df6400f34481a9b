// `signet signing-key ...`: this server's Ed25519 signing key and its lifecycle (list, prepare,
// rotate, revoke); `signet trust export` (cli/trust.ts) publishes the result to consumers.
import { join } from 'node:path';
import type { Command } from 'commander';
import { loadConfig } from '../config.js';
import { SignetError } from '../errors.js';
import { loadServerKeys, spkiOf } from '../signing/keyring.js';
import { GENERATED_KEY_NAME, loadOrCreateSigningKey, NEXT_KEY_NAME } from '../signing/signing-key.js';
import { fingerprint } from '../signing/trust.js';

/**
 * The configuration and the keys this server signs with (the current one, retired and revoked),
 * with the prepared next key (signing-key prepare) published beside the current one.
 */
export async function serverKeys() {
  const config = loadConfig();
  const loaded = loadOrCreateSigningKey({ keyFile: config.signingKeyFile, dataDir: config.dataDir });
  const next = config.signingKeyFile ? null : (await import('../signing/rotation.js')).nextKey(config.dataDir);
  return { config, next, keys: loadServerKeys(spkiOf(loaded.key), { dataDir: config.dataDir, trustFile: config.trustFile }, next) };
}

const MOUNTED_KEY =
  'SIGNET_SIGNING_KEY_FILE is set: rotate by pointing it at a new key (signet keygen --out FILE) and listing the old public key as "retired" in SIGNET_TRUST_FILE';

export function registerSigningKeyCommands(program: Command, exitWith: (code: number | undefined) => void): void {
  const sk = program.command('signing-key').description("this server's Ed25519 signing key: list, prepare, rotate, revoke");
  sk.command('list')
    .description('the current key, the prepared next one, and the retired and revoked ones')
    .option('--json', 'as JSON')
    .action(async (opts: { json?: boolean }) => {
      const { keys, next } = await serverKeys();
      const list = keys.list.map((k) => (k.public_key === next ? { ...k, next: true } : k));
      if (opts.json) process.stdout.write(`${JSON.stringify(list, null, 2)}\n`);
      else
        for (const k of list)
          process.stdout.write(`${('next' in k ? 'next' : k.status).padEnd(8)} ${k.fingerprint}  ${k.name}  ${k.public_key}\n`);
      exitWith(0);
    });
  sk.command('prepare')
    .description('make the next key now, to publish (trust export) before it signs; signing-key rotate switches to it')
    .action(async () => {
      const config = loadConfig();
      if (config.signingKeyFile) throw new SignetError('key_invalid', MOUNTED_KEY);
      const { prepareNextKey } = await import('../signing/rotation.js');
      const next = prepareNextKey(config.dataDir);
      process.stdout.write(
        `prepared ${join(config.dataDir, NEXT_KEY_NAME)}\nnext ${fingerprint(next)} ${next}\n` +
          'Publish the trust file now (signet trust export lists it as active beside the current key); once every consumer has it,\n' +
          'signet signing-key rotate and restart: outputs signed by the new key verify at once.\n',
      );
      exitWith(0);
    });
  sk.command('rotate')
    .description('sign with the prepared next key (or a new one) from the next start; the old one is kept as retired')
    .action(async () => {
      const config = loadConfig();
      if (config.signingKeyFile) throw new SignetError('key_invalid', MOUNTED_KEY);
      const { rotateGeneratedKey } = await import('../signing/rotation.js');
      const { previous, current, prepared } = rotateGeneratedKey(config.dataDir);
      process.stdout.write(
        `rotated ${join(config.dataDir, GENERATED_KEY_NAME)}\nretired ${fingerprint(previous)}\ncurrent ${fingerprint(current)} ${current}\n` +
          (prepared
            ? 'It is the key prepared and published before: restart the server to sign with it; consumers who took that trust file verify its outputs already.\n'
            : 'Restart the server to sign with the new key, then publish the new trust file (signet trust export): until consumers take it, they refuse\n' +
              'the new outputs. Next time, signet signing-key prepare first and publish before you rotate.\n'),
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
