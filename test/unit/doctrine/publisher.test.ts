import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SIGNATURE_FILE } from '../../../src/doctrine/files.js';
import { loadDoctrine } from '../../../src/doctrine/load.js';
import { checkPublisher, publisherSignature } from '../../../src/doctrine/publisher.js';
import { MINI_DOCTRINE } from '../../helpers/paths.js';
import { testSigner } from '../../helpers/signer.js';
import { copyDoctrine } from '../../helpers/tmp-doctrine.js';

describe('pre-signed doctrine', () => {
  const publisher = testSigner();

  function signedCopy(): string {
    const dir = copyDoctrine(MINI_DOCTRINE);
    const d = loadDoctrine(dir);
    writeFileSync(join(dir, SIGNATURE_FILE), JSON.stringify(publisherSignature(d.hash, publisher)));
    return dir;
  }

  it('accepts an intact signed doctrine, with or without a pinned publisher key', () => {
    const d = loadDoctrine(signedCopy());
    expect(() => checkPublisher(d)).not.toThrow();
    expect(() => checkPublisher(d, publisher.publicKeySpki)).not.toThrow();
    expect(d.publisher?.public_key).toBe(publisher.publicKeySpki);
  });

  it('refuses a doctrine changed after signing, naming both hashes', () => {
    const dir = signedCopy();
    const p = join(dir, 'rules/tls.json');
    writeFileSync(p, readFileSync(p, 'utf8').replace('Terminate TLS', 'Terminate tls'));
    const d = loadDoctrine(dir);
    expect(() => checkPublisher(d)).toThrow(/a file changed after signing/);
  });

  it('refuses a forged signature, another publisher, or a missing signature when one is pinned', () => {
    const dir = signedCopy();
    const sig = JSON.parse(readFileSync(join(dir, SIGNATURE_FILE), 'utf8'));
    const other = testSigner();
    writeFileSync(join(dir, SIGNATURE_FILE), JSON.stringify({ ...sig, public_key: other.publicKeySpki }));
    expect(() => checkPublisher(loadDoctrine(dir))).toThrow(/does not verify/);
    writeFileSync(join(dir, SIGNATURE_FILE), JSON.stringify(publisherSignature(sig.doctrine_hash, other)));
    expect(() => checkPublisher(loadDoctrine(dir), publisher.publicKeySpki)).toThrow(/other than SIGNET_DOCTRINE_PUBLISHER_KEY/);
    expect(() => checkPublisher(loadDoctrine(MINI_DOCTRINE), publisher.publicKeySpki)).toThrow(/has no doctrine\.sig/);
  });
});
