// `signet trust export`: the keys this server signs with, as a trust file consumers pin
// (their lifecycle is `signet signing-key`, cli/signing-key.ts).

import type { Command } from 'commander';
import { serverKeys } from './signing-key.js';

export function registerTrustCommands(program: Command, exitWith: (code: number | undefined) => void): void {
  const trust = program.command('trust').description('trust files: the signing keys consumers pin (signet-trust/1)');
  trust
    .command('export')
    .description('print the trust file for the keys this server signs with (current, prepared next, retired, revoked)')
    .option('--pin-doctrine', 'also pin the doctrine this server serves now (doctrine_hashes)')
    .action(async (opts: { pinDoctrine?: boolean }) => {
      const { config, keys } = await serverKeys();
      const file = { ...keys.file };
      if (opts.pinDoctrine) {
        const { loadDoctrine } = await import('../doctrine/load.js');
        file.doctrine_hashes = [loadDoctrine(config.doctrineDir).hash];
      }
      process.stdout.write(`${JSON.stringify(file, null, 2)}\n`);
      exitWith(0);
    });
}
