import { readFileSync } from 'node:fs';
import { verifyOutput } from '../signing/verify.js';

export interface VerifyCliOptions {
  publicKey?: string;
  doctrineHash?: string;
  json?: boolean;
}

/** `signet verify [FILE|-]`: 0 when valid, 1 with the reasons otherwise. Uses the portable (noble) verifier. */
export function verifyCommand(file: string | undefined, options: VerifyCliOptions): number {
  let text: string;
  try {
    text = readFileSync(!file || file === '-' ? 0 : file, 'utf8');
  } catch (err) {
    process.stderr.write(`signet verify: cannot read ${file ?? 'stdin'}: ${(err as NodeJS.ErrnoException).code ?? 'error'}\n`);
    return 1;
  }
  const report = verifyOutput(text, { expectedPublicKey: options.publicKey, expectedDoctrineHash: options.doctrineHash });
  if (options.json) process.stdout.write(JSON.stringify(report, null, 2) + '\n');
  else if (report.valid) {
    process.stdout.write(`valid: ${report.tool ?? 'output'} signed by ${report.public_key} over ${report.doctrine_hash} (doctrine ${report.doctrine_version})\n`);
  } else {
    process.stderr.write(`invalid:\n${report.reasons.map((r) => `  - ${r}`).join('\n')}\n`);
  }
  return report.valid ? 0 : 1;
}
