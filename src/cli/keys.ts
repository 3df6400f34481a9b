import type { Command } from 'commander';
import { newApiKey } from '../keys/format.js';

export function registerKeyCommands(keys: Command, exitWith: (code: number | void) => void): void {
  keys
    .command('new')
    .description('print a fresh, well-formed API key (sgnk_...); it is not stored anywhere')
    .action(() => {
      process.stdout.write(newApiKey() + '\n');
      exitWith(0);
    });
}
