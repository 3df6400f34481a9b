import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { SIGNATURE_FILE } from '../doctrine/files.js';
import { checkDoctrine, loadDoctrine } from '../doctrine/load.js';
import { checkPublisher, publisherSignature } from '../doctrine/publisher.js';
import { Signer } from '../signing/signer.js';
import { parseSigningKey } from '../signing/signing-key.js';

export function doctrineHash(dir: string): number {
  const { doctrine, problems } = checkDoctrine(dir);
  if (!doctrine) return reportProblems(problems);
  process.stdout.write(`${doctrine.hash}\n`);
  return 0;
}

export function doctrineManifest(dir: string): number {
  const { doctrine, problems } = checkDoctrine(dir);
  if (!doctrine) return reportProblems(problems);
  process.stdout.write(doctrine.manifest.text);
  return 0;
}

function reportProblems(problems: { where: string; message: string }[]): number {
  process.stderr.write(`doctrine is invalid (${problems.length} problem${problems.length === 1 ? '' : 's'}):\n`);
  for (const p of problems) process.stderr.write(`  ${p.where}: ${p.message}\n`);
  return 1;
}

export function doctrineCheck(dir: string, publisherKey?: string): number {
  const { doctrine, problems } = checkDoctrine(dir, { metaSchema: true });
  if (!doctrine) return reportProblems(problems);
  try {
    checkPublisher(doctrine, publisherKey);
  } catch (err) {
    return reportProblems([{ where: SIGNATURE_FILE, message: (err as Error).message }]);
  }
  process.stdout.write(
    `ok: ${doctrine.meta.name} ${doctrine.meta.version}, ${doctrine.documents.length} documents, ${doctrine.rules.length} rules, ` +
      `${doctrine.factPaths.length} facts${doctrine.publisher ? `, signed by ${doctrine.publisher.public_key}` : ''}\n${doctrine.hash}\n`,
  );
  return 0;
}

/** Writes DIR/doctrine.sig: the publisher's signature over the doctrine hash. */
export function doctrineSign(dir: string, keyFile: string): number {
  const doctrine = loadDoctrine(dir);
  const signer = new Signer(parseSigningKey(readFileSync(keyFile, 'utf8'), keyFile));
  const sig = publisherSignature(doctrine.hash, signer);
  writeFileSync(join(dir, SIGNATURE_FILE), `${JSON.stringify(sig, null, 2)}\n`);
  process.stdout.write(`signed ${doctrine.hash} with ${signer.publicKeySpki}\n`);
  return 0;
}
