import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Verifies an Ed25519 signature with the OpenSSL CLI (`pkeyutl -verify -pubin -rawin`). */
export function opensslVerify(publicKeySpkiB64: string, message: string, signature: string): boolean {
  const dir = mkdtempSync(join(tmpdir(), 'signet-openssl-'));
  try {
    const b64 = publicKeySpkiB64.match(/.{1,64}/g)!.join('\n');
    writeFileSync(join(dir, 'pub.pem'), `-----BEGIN PUBLIC KEY-----\n${b64}\n-----END PUBLIC KEY-----\n`);
    writeFileSync(join(dir, 'msg'), message, 'utf8');
    writeFileSync(join(dir, 'sig'), Buffer.from(signature.replace(/^ed25519:/, ''), 'base64'));
    execFileSync(
      'openssl',
      ['pkeyutl', '-verify', '-pubin', '-inkey', join(dir, 'pub.pem'), '-rawin', '-in', join(dir, 'msg'), '-sigfile', join(dir, 'sig')],
      {
        stdio: 'pipe',
      },
    );
    return true;
  } catch {
    return false;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** sha256:<hex> with the OpenSSL CLI, independent of Node's crypto. */
export function opensslSha256(text: string): string {
  const out = execFileSync('openssl', ['dgst', '-sha256', '-r'], { input: Buffer.from(text, 'utf8') }).toString();
  return `sha256:${out.split(' ')[0]!.trim()}`;
}

/** A self-signed P-256 certificate and its key, written by the OpenSSL CLI (for TLS tests). */
export function selfSignedCert(options: { keyFile: string; certFile: string; commonName: string; altNames: string; days: number }): void {
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:P-256',
      '-nodes',
      '-keyout',
      options.keyFile,
      '-out',
      options.certFile,
    ].concat(['-days', String(options.days), '-subj', `/CN=${options.commonName}`, '-addext', `subjectAltName=${options.altNames}`]),
    { stdio: 'pipe' },
  );
}
