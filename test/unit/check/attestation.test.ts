// The attestation of a check: an in-toto Statement v1 in a DSSE envelope, signed with the
// server's Ed25519 key. Verified by verifiers this project did not write (sigstore's
// @sigstore/core PAE and key check, and @sigstore/verify's Verifier on a bundle holding the
// envelope), and by Signet's own (the same one `signet verify` runs).
import { createPublicKey } from 'node:crypto';
import { bundleFromJSON } from '@sigstore/bundle';
import { dsse, crypto as sigstoreCrypto } from '@sigstore/core';
import { toSignedEntity, toTrustMaterial, Verifier } from '@sigstore/verify';
import { describe, expect, it } from 'vitest';
import { attest, attestationSigner, CHECK_PREDICATE_TYPE, checkStatement, STATEMENT_TYPE } from '../../../src/check/attestation.js';
import { runCheck } from '../../../src/check/run.js';
import { loadDoctrine } from '../../../src/doctrine/load.js';
import { canonicalJson } from '../../../src/signing/canonical.js';
import { trustSet } from '../../../src/signing/trust.js';
import { verifyAttestation } from '../../../src/signing/verify-attestation.js';
import { collectionOf, deploymentFrom, fixtureFacts } from '../../helpers/check-fixtures.js';
import { DEFAULT_DOCTRINE } from '../../helpers/paths.js';
import { testSigner } from '../../helpers/signer.js';

const doctrine = loadDoctrine(DEFAULT_DOCTRINE);
const signer = testSigner();
const files = { 'docker-compose.yml': 'services:\n  signet: {}\n', 'nginx.conf': 'events {}\n' };
const report = runCheck(doctrine, {
  collection: collectionOf(
    [
      deploymentFrom('compose:signet', 'docker-compose.yml', fixtureFacts('hardened')),
      deploymentFrom('compose:other', 'nginx.conf', fixtureFacts('exposed')),
    ],
    files,
  ),
});
const envelopeText = attest(report, attestationSigner(signer));
const envelope = JSON.parse(envelopeText) as { payload: string; payloadType: string; signatures: { keyid: string; sig: string }[] };
const payload = Buffer.from(envelope.payload, 'base64');
const statement = JSON.parse(payload.toString('utf8'));
const pinned = trustSet({ publicKeys: [signer.publicKeySpki] });

/** A copy of the envelope with its statement changed and re-encoded (the signature left as it was). */
function tampered(change: (s: typeof statement) => void): string {
  const s = structuredClone(statement);
  change(s);
  return JSON.stringify({ ...envelope, payload: Buffer.from(canonicalJson(s)).toString('base64') });
}

describe('the attestation of a check', () => {
  it('is an in-toto Statement v1 about the files read, by sha256, with the verdict, facts, sources and doctrine', () => {
    expect(envelope.payloadType).toBe('application/vnd.in-toto+json');
    expect(statement._type).toBe(STATEMENT_TYPE);
    expect(statement.predicateType).toBe(CHECK_PREDICATE_TYPE);
    const sha = (t: string) => sigstoreCrypto.digest('sha256', t).toString('hex');
    expect(statement.subject).toEqual([
      { name: 'docker-compose.yml', digest: { sha256: sha(files['docker-compose.yml']) }, annotations: { kind: 'compose' } },
      { name: 'nginx.conf', digest: { sha256: sha(files['nginx.conf']) }, annotations: { kind: 'compose' } },
    ]);
    expect(statement.predicate.verdict).toBe('fail');
    expect(statement.predicate.doctrine).toEqual({ name: doctrine.meta.name, version: doctrine.meta.version, hash: doctrine.hash });
    expect(statement.predicate.deployments.map((d: { name: string; verdict: string }) => [d.name, d.verdict])).toEqual([
      ['compose:signet', 'pass'],
      ['compose:other', 'fail'],
    ]);
    expect(statement.predicate.deployments[0].sources['transport.kind']).toEqual([
      expect.objectContaining({ file: 'docker-compose.yml', line: expect.any(Number) }),
    ]);
    expect(statement.predicate.signer.public_key).toBe(signer.publicKeySpki);
    expect(envelope.signatures[0]!.keyid).toBe(statement.predicate.signer.keyid);
  });

  it('is the same bytes every time: canonical JSON at both layers, deterministic Ed25519', () => {
    expect(attest(report, attestationSigner(signer))).toBe(envelopeText);
    expect(payload.toString('utf8')).toBe(canonicalJson(checkStatement(report, attestationSigner(signer))));
    expect(envelopeText).toBe(canonicalJson(envelope));
  });

  it("verifies with sigstore's DSSE pre-authentication encoding and key check (@sigstore/core)", () => {
    const pae = dsse.preAuthEncoding(envelope.payloadType, payload);
    const key = sigstoreCrypto.createPublicKey(Buffer.from(signer.publicKeySpki, 'base64'), 'spki');
    expect(sigstoreCrypto.verify(pae, key, Buffer.from(envelope.signatures[0]!.sig, 'base64'))).toBe(true);
    const other = sigstoreCrypto.createPublicKey(Buffer.from(testSigner().publicKeySpki, 'base64'), 'spki');
    expect(sigstoreCrypto.verify(pae, other, Buffer.from(envelope.signatures[0]!.sig, 'base64'))).toBe(false);
  });

  it("verifies with sigstore's Verifier (@sigstore/verify) as a bundle whose key is pinned by its hint", () => {
    const verify = (dsseEnvelope: unknown, spki: string) => {
      const bundle = bundleFromJSON({
        mediaType: 'application/vnd.dev.sigstore.bundle.v0.3+json',
        verificationMaterial: {
          publicKey: { hint: envelope.signatures[0]!.keyid },
          tlogEntries: [],
          timestampVerificationData: { rfc3161Timestamps: [] },
        },
        dsseEnvelope,
      });
      // The key for the bundle's hint, the way a verifier looks up a pinned key.
      const keys = new Map([[envelope.signatures[0]!.keyid, sigstoreCrypto.createPublicKey(Buffer.from(spki, 'base64'), 'spki')]]);
      const material = toTrustMaterial(
        {
          mediaType: 'application/vnd.dev.sigstore.trustedroot+json;version=0.1',
          tlogs: [],
          certificateAuthorities: [],
          ctlogs: [],
          timestampAuthorities: [],
        },
        (hint) => {
          const publicKey = keys.get(hint);
          if (!publicKey) throw new Error(`no key for ${hint}`);
          return { publicKey, validFor: () => true };
        },
      );
      // No transparency log, certificate or timestamp: the key is the trust, as with a trust file.
      return new Verifier(material, { tlogThreshold: 0, ctlogThreshold: 0, timestampThreshold: 0 }).verify(toSignedEntity(bundle));
    };
    const signerKey = verify(envelope, signer.publicKeySpki).key;
    expect(signerKey.export({ format: 'der', type: 'spki' })).toEqual(
      createPublicKey({ key: Buffer.from(signer.publicKeySpki, 'base64'), format: 'der', type: 'spki' }).export({
        format: 'der',
        type: 'spki',
      }),
    );
    expect(() => verify(envelope, testSigner().publicKeySpki)).toThrow(/signature verification failed/i);
    const forged = JSON.parse(tampered((s) => (s.predicate.verdict = 'pass')));
    expect(() => verify(forged, signer.publicKeySpki)).toThrow(/signature verification failed/i);
  });

  it("verifies with Signet's verifier: trusted when pinned, unpinned without a pin, invalid when changed", () => {
    const trusted = verifyAttestation(envelopeText, { trust: pinned });
    expect(trusted).toMatchObject({
      status: 'trusted',
      envelope: 'dsse_envelope',
      doctrine: { hash: doctrine.hash },
      signer: { public_key: signer.publicKeySpki },
      attestation: {
        predicate_type: CHECK_PREDICATE_TYPE,
        verdict: 'fail',
        subjects: [{ name: 'docker-compose.yml' }, { name: 'nginx.conf' }],
      },
    });
    expect(verifyAttestation(envelopeText).status).toBe('unpinned');
    const forged = verifyAttestation(
      tampered((s) => (s.predicate.verdict = 'pass')),
      { trust: pinned },
    );
    expect(forged.status).toBe('invalid');
    expect(forged.reasons.map((r) => r.code)).toEqual(['output_signature_invalid']);
  });

  it('is refused by the Signet verifier for another signer, a revoked key, an unpinned doctrine', () => {
    const other = trustSet({ publicKeys: [testSigner().publicKeySpki] });
    expect(verifyAttestation(envelopeText, { trust: other }).reasons.map((r) => r.code)).toEqual(['signer_untrusted']);
    const revoked = trustSet({
      files: [{ format: 'signet-trust/1', keys: [{ name: 'old', public_key: signer.publicKeySpki, status: 'revoked' }] }],
    });
    expect(verifyAttestation(envelopeText, { trust: revoked }).reasons.map((r) => r.code)).toEqual(['signer_revoked']);
    const pinDoctrine = trustSet({ publicKeys: [signer.publicKeySpki], doctrineHashes: [`sha256:${'0'.repeat(64)}`] });
    expect(verifyAttestation(envelopeText, { trust: pinDoctrine }).reasons.map((r) => r.code)).toEqual(['doctrine_not_pinned']);
  });

  it('has one reading: the Signet verifier refuses envelopes and statements read two ways', () => {
    const codes = (text: string) => verifyAttestation(text, { trust: pinned }).reasons.map((r) => r.code);
    const withEnvelope = (e: Record<string, unknown>) => JSON.stringify({ ...envelope, ...e });
    expect(codes(withEnvelope({ extra: 1 }))).toContain('dsse_malformed');
    expect(codes(withEnvelope({ payloadType: 'application/json' }))).toContain('dsse_malformed');
    expect(codes(withEnvelope({ signatures: [...envelope.signatures, ...envelope.signatures] }))).toContain('dsse_malformed');
    expect(codes(withEnvelope({ signatures: [{ ...envelope.signatures[0], keyid: 'SHA256:other' }] }))).toEqual(['dsse_malformed']);
    expect(codes(withEnvelope({ payload: `${envelope.payload}\n` }))).toContain('dsse_malformed');
    expect(codes(envelopeText.replace('{"payload"', '{"payloadType":"x","payload"'))).toEqual(['duplicate_member']);
    // The same statement, not canonical: the signature still covers it, but it is read two ways.
    const spaced = Buffer.from(JSON.stringify(statement, null, 1));
    expect(codes(withEnvelope({ payload: spaced.toString('base64') }))).toEqual(['text_not_canonical', 'output_signature_invalid']);
    expect(codes(tampered((s) => (s.predicateType = 'https://slsa.dev/provenance/v1')))).toContain('predicate_type_unsupported');
    expect(codes(tampered((s) => (s.subject = [])))).toContain('statement_malformed');
    expect(codes(tampered((s) => (s.predicate.signer.public_key = 'AAAA')))).toContain('public_key_malformed');
  });
});
