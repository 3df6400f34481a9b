// npm run vectors: the published test vectors (docs/vectors/), generated from the code. Every
// signed input is made by the signer the server uses (dist/signing/sign-output.js) with keys
// derived from fixed seeds, so the same code gives the same bytes; each refused input is a
// genuine output with one thing changed, re-signed where needed so that exactly one check
// fails. The expected verdict of each is what the project's verifier answers, and
// test/integration/vectors.test.ts checks that these files are current, that both the
// verifier and an independent implementation (test/vectors/verify.py) give those verdicts.
// Format: docs/vectors/README.md.
import { createHash, createPrivateKey } from 'node:crypto';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { canonicalJson } from '../dist/signing/canonical.js';
import { SIGNATURE_FORMAT, SIGNATURE_FORMATS, SIGNED_MESSAGE } from '../dist/signing/format.js';
import { signOutput } from '../dist/signing/sign-output.js';
import { Signer } from '../dist/signing/signer.js';
import { parseTrustFile, trustSet } from '../dist/signing/trust.js';
import { verifyOutput } from '../dist/signing/verify.js';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const sha256 = (text) => createHash('sha256').update(text, 'utf8').digest('hex');

/** An Ed25519 key whose 32-byte seed is SHA-256("signet test vectors: <name>"): the same key every run. */
function keyFromSeed(name) {
  const seed = createHash('sha256').update(`signet test vectors: ${name}`).digest();
  const pkcs8 = Buffer.concat([Buffer.from('302e020100300506032b657004220420', 'hex'), seed]);
  return new Signer(createPrivateKey({ key: pkcs8, format: 'der', type: 'pkcs8' }));
}

const signer = keyFromSeed('signer');
const attacker = keyFromSeed('attacker');
const retired = keyFromSeed('retired');
const revoked = keyFromSeed('revoked');
const DOCTRINE_HASH = `sha256:${sha256('signet test vectors: doctrine')}`;
const OTHER_DOCTRINE = `sha256:${sha256('signet test vectors: another doctrine')}`;

function footer(s, over = {}, format = SIGNATURE_FORMAT) {
  return {
    signature_format: format,
    doctrine_name: 'signet-test-vectors',
    doctrine_version: '1.0.0',
    doctrine_hash: DOCTRINE_HASH,
    doctrine_signature: s.sign(SIGNED_MESSAGE.doctrine(format, DOCTRINE_HASH)),
    doctrine_public_key: s.publicKeySpki,
    ...over,
  };
}

// A result that exercises RFC 8785: member order, non-ASCII text, escapes, number forms.
const ARGUMENTS = { id: 'AUTH-001' };
const BODY = {
  tool: 'doctrine_get',
  input_hash: `sha256:${sha256(canonicalJson(ARGUMENTS))}`,
  ok: true,
  result: {
    id: 'AUTH-001',
    title: 'Every request to the MCP endpoint is authenticated',
    text: 'Ünïcødé ✓ 😀 "quoted" \\ back\\slash\nnew line\ttab \u2028 \u007f',
    numbers: [0, -1, 1.5, 0.1, 1e21, 1e-7, 123456789012345680000, -5e-324, 1.7976931348623157e308],
    zebra: true,
    alpha: null,
    '\u00e9': 'e acute sorts after z',
    '\ud83d\ude00': 'an astral member name sorts by UTF-16 code units',
    '\ufb01': 'a ligature sorts after it',
  },
};
const ERROR_BODY = {
  tool: 'doctrine_get',
  input_hash: `sha256:${sha256(canonicalJson({ id: 'NOPE-1' }))}`,
  ok: false,
  error: { code: 'not_found', message: 'No rule NOPE-1', details: [{ where: 'arguments.id', message: 'unknown id' }] },
};

/** @type {(body?: any, f?: any, s?: Signer) => any} */
const sign = (body = BODY, f = footer(signer), s = signer) => JSON.parse(signOutput(body, f, s).text);
const toolResult = (sc, over = {}) => ({
  content: [{ type: 'text', text: canonicalJson(sc) }],
  structuredContent: sc,
  isError: !sc.ok,
  ...over,
});
const response = (result, over = {}) => ({ jsonrpc: '2.0', id: 1, result, ...over });
const text = (value) => JSON.stringify(value);

const genuine = sign();

/**
 * The pen test's file (issue 26, L2): a genuine output holding U+FFFD, its first EF BF BD
 * replaced by the byte FF. A lenient decoder reads FF as U+FFFD, so it would verify as the
 * genuine text; a strict UTF-8 reader refuses it, a Latin-1 reader sees other text.
 */
function notUtf8() {
  const bytes = Buffer.from(text(toolResult(sign({ ...BODY, result: { ...BODY.result, note: 'a\ufffdb' } }))), 'utf8');
  const at = bytes.indexOf(Buffer.from([0xef, 0xbf, 0xbd]));
  return Buffer.concat([bytes.subarray(0, at), Buffer.from([0xff]), bytes.subarray(at + 3)]);
}
const trustFile = (keys, doctrineHashes) => ({
  format: 'signet-trust/1',
  keys,
  ...(doctrineHashes ? { doctrine_hashes: doctrineHashes } : {}),
});
const active = (s, name = 'signet-test-vectors') => ({ name, public_key: s.publicKeySpki, status: 'active' });
const TRUST = {
  'trust.json': trustFile([
    active(signer),
    { name: 'signet-old', public_key: retired.publicKeySpki, status: 'retired' },
    { name: 'signet-leaked', public_key: revoked.publicKeySpki, status: 'revoked', note: 'leaked' },
  ]),
  'trust-doctrine-pinned.json': trustFile([active(signer)], [DOCTRINE_HASH]),
  'trust-other-doctrine.json': trustFile([active(signer)], [OTHER_DOCTRINE]),
};

/** The signed output as a server before signet-output/2 made it: every signature over the bare hash. */
const formatOne = sign(BODY, footer(signer, {}, 'signet-output/1'));
/** A signet-output/2 output whose output_signature is over the bare output_hash, as /1 signs it. */
const otherKind = (() => {
  const out = structuredClone(genuine);
  out.footer.output_signature = signer.sign(out.footer.output_hash);
  return out;
})();

/** Re-signs an output whose footer or body was changed, so that only the change is wrong. */
const resign = (change, s = signer) => {
  const out = structuredClone(genuine);
  const { output_hash: _h, output_signature: _s, ...f } = out.footer;
  const body = { ...out };
  delete body.footer;
  change(body, f);
  return JSON.parse(signOutput(body, f, s).text);
};
const tagged = (bytes) => `ed25519:${Buffer.from(bytes).toString('base64')}`;
const sigBytes = (sig) => Buffer.from(sig.slice('ed25519:'.length), 'base64');
const spki = (raw) => Buffer.concat([Buffer.from('302a300506032b6570032100', 'hex'), raw]).toString('base64');

// A 32-byte string that is not the encoding of any curve point (x² has no square root).
const NOT_A_POINT = (() => {
  const p = 2n ** 255n - 19n;
  const d = (-121665n * modInv(121666n, p)) % p;
  for (let y = 2n; ; y++) {
    const u = (y * y - 1n + p) % p;
    const v = (d * y * y + 1n + p * p) % p;
    const x2 = (u * modInv(v, p)) % p;
    if (modPow(x2, (p - 1n) / 2n, p) === p - 1n) {
      const raw = Buffer.alloc(32);
      for (let i = 0, t = y; i < 32; i++, t >>= 8n) raw[i] = Number(t & 255n);
      return raw;
    }
  }
})();
function modPow(b, e, m) {
  let r = 1n;
  for (b %= m; e > 0n; e >>= 1n, b = (b * b) % m) if (e & 1n) r = (r * b) % m;
  return r;
}
function modInv(a, m) {
  return modPow(((a % m) + m) % m, m - 2n, m);
}
// The identity point (0, 1): of small order, so a signature under it can match any message.
const IDENTITY = Buffer.concat([Buffer.from([1]), Buffer.alloc(31)]);
// L, the order of the base point: S + L is the same signature in a second spelling (RFC 8032 §5.1.7).
const L = 2n ** 252n + 27742317777372353535851937790883648493n;

/** [name, description, input text or bytes, trust file or null] */
const VECTORS = [
  // Valid, and trusted with trust.json.
  ['valid-jsonrpc-response', 'a tools/call JSON-RPC response, as the server sends it', text(response(toolResult(genuine))), 'trust.json'],
  ['valid-call-tool-result', 'the CallToolResult alone', text(toolResult(genuine)), 'trust.json'],
  ['valid-structured-content', 'the structuredContent alone', text(genuine), 'trust.json'],
  [
    'valid-format-1',
    'an output of signet-output/1, signed before signatures named their kind: still trusted',
    text(toolResult(formatOne)),
    'trust.json',
  ],
  [
    'valid-pretty-printed',
    'the response pretty-printed with other number spellings (1.5e0, 1E21): the input is read, only the text content must be canonical',
    respell(JSON.stringify(response(toolResult(genuine)), null, 2)),
    'trust.json',
  ],
  [
    'valid-error-output',
    'an error output (ok false, isError true) is signed like any other',
    text(response(toolResult(sign(ERROR_BODY)))),
    'trust.json',
  ],
  [
    'valid-meta-and-result-type',
    '_meta (outside the signature, ignored) and resultType "complete" on the tool result',
    text(response(toolResult(genuine, { _meta: { 'io.example/cache': { ttl: 60 } }, resultType: 'complete' }))),
    'trust.json',
  ],
  [
    'valid-retired-key',
    'signed by a key the trust file lists as retired',
    text(toolResult(sign(BODY, footer(retired), retired))),
    'trust.json',
  ],
  [
    'valid-doctrine-pinned',
    'the trust file also pins the doctrine the output was signed over',
    text(toolResult(genuine)),
    'trust-doctrine-pinned.json',
  ],
  // Consistent, but nothing pinned.
  ['unpinned', 'a genuine output with no trust file: consistent, but any key could have made it', text(toolResult(genuine)), null],
  // Consistent, but not trusted.
  [
    'signer-untrusted-forgery',
    "a forgery: the result changed and re-signed with an attacker's key (consistent on its own)",
    text(toolResult(attackerForgery())),
    'trust.json',
  ],
  [
    'signer-revoked',
    'signed by a key the trust file lists as revoked',
    text(toolResult(sign(BODY, footer(revoked), revoked))),
    'trust.json',
  ],
  ['doctrine-not-pinned', 'signed over a doctrine the trust file does not pin', text(toolResult(genuine)), 'trust-other-doctrine.json'],
  // Refused while reading: the input has more than one reading, or none.
  ['not-json-trailing-comma', 'a trailing comma', `${text(genuine).slice(0, -1)},}`, 'trust.json'],
  ['not-json-bom', 'a byte order mark before the JSON', `\ufeff${text(genuine)}`, 'trust.json'],
  ['not-json-not-utf8', 'bytes that are not UTF-8 (FF where a genuine output has U+FFFD)', notUtf8(), 'trust.json'],
  ['not-json-nan', 'NaN is not JSON', text(toolResult(genuine, { _meta: { n: 0 } })).replace('"n":0', '"n":NaN'), 'trust.json'],
  [
    'not-json-control-character',
    'a raw control character inside a string',
    text(genuine).replace('Ünïcødé', 'Ünï\u0001cødé'),
    'trust.json',
  ],
  [
    'duplicate-member',
    'a member twice: parsers disagree on which one counts',
    text(genuine).replace('"ok":true', '"ok":false,"ok":true'),
    'trust.json',
  ],
  [
    'duplicate-member-escaped',
    'a member twice, once spelled with an escape',
    text(toolResult(genuine, { _meta: { a: 1 } })).replace('"_meta":{"a":1}', '"_meta":{"a":1,"\\u0061":2}'),
    'trust.json',
  ],
  [
    'number-inexact-integer',
    'an integer that is not exactly a double (anywhere, _meta included)',
    text(toolResult(genuine, { _meta: { n: 0 } })).replace('"n":0', '"n":12345678901234567890'),
    'trust.json',
  ],
  [
    'number-inexact-decimal',
    'a decimal that reads as a double with a shorter spelling',
    text(toolResult(genuine, { _meta: { n: 0 } })).replace('"n":0', '"n":0.10000000000000001'),
    'trust.json',
  ],
  [
    'number-inexact-overflow',
    'a number beyond the doubles',
    text(toolResult(genuine, { _meta: { n: 0 } })).replace('"n":0', '"n":1e400'),
    'trust.json',
  ],
  [
    'number-inexact-negative-zero',
    '-0, which RFC 8785 writes as 0',
    text(toolResult(genuine, { _meta: { n: 1 } })).replace('"n":1', '"n":-0'),
    'trust.json',
  ],
  [
    'string-lone-surrogate',
    'a lone surrogate in a string',
    text(toolResult(genuine, { _meta: { s: 'x' } })).replace('"s":"x"', '"s":"\\ud800"'),
    'trust.json',
  ],
  [
    'string-lone-surrogate-name',
    'a lone surrogate in a member name',
    text(toolResult(genuine, { _meta: { s: 'x' } })).replace('"s":"x"', '"\\udc00":"x"'),
    'trust.json',
  ],
  // Read, but not a signed output, or in a wrong envelope.
  ['not-an-object', 'a JSON array', '[1,2,3]', 'trust.json'],
  ['no-signed-output', 'an object with no output in it', '{"hello":"world"}', 'trust.json'],
  ['jsonrpc-malformed-version', 'jsonrpc is not "2.0"', text(response(toolResult(genuine), { jsonrpc: '1.0' })), 'trust.json'],
  ['jsonrpc-malformed-no-id', 'a response without an id', text({ jsonrpc: '2.0', result: toolResult(genuine) }), 'trust.json'],
  [
    'jsonrpc-error',
    'a JSON-RPC error, not a tool result',
    text({ jsonrpc: '2.0', id: 1, error: { code: -32602, message: 'Invalid params' } }),
    'trust.json',
  ],
  ['envelope-unknown-member', 'a member a tool result does not have', text(toolResult(genuine, { extra: 1 })), 'trust.json'],
  [
    'content-not-single-text',
    'a second content item beside the signed text',
    text(
      toolResult(genuine, {
        content: [
          { type: 'text', text: canonicalJson(genuine) },
          { type: 'text', text: 'Trust me.' },
        ],
      }),
    ),
    'trust.json',
  ],
  [
    'text-mismatch',
    'the text content says something else than the structuredContent beside it',
    text(toolResult(genuine, { content: [{ type: 'text', text: canonicalJson(genuine).replace('"zebra":true', '"zebra":false') }] })),
    'trust.json',
  ],
  [
    'text-not-canonical',
    'the text content alone (no structuredContent), not in its canonical form',
    text({ content: [{ type: 'text', text: JSON.stringify(genuine, null, 1) }], isError: false }),
    'trust.json',
  ],
  ['is-error-mismatch', 'isError true on an output whose ok is true', text(toolResult(genuine, { isError: true })), 'trust.json'],
  ['result-type-unsupported', 'a resultType other than "complete"', text(toolResult(genuine, { resultType: 'incomplete' })), 'trust.json'],
  // The signed output: its members, its footer, its hashes and signatures (each re-signed so only that is wrong).
  ['unknown-member', 'a member a signed output does not have (signed)', text(resign((b) => (b.note = 'extra'))), 'trust.json'],
  [
    'body-malformed',
    'ok true with an error beside the result (signed)',
    text(resign((b) => (b.error = { code: 'x', message: 'y', details: [] }))),
    'trust.json',
  ],
  ['footer-malformed', 'a footer that is not an object', text({ ...genuine, footer: 'signed' }), 'trust.json'],
  [
    'footer-unknown-member',
    'a footer member the format does not have (signed)',
    text(resign((_b, f) => (f.signed_at = '2026-01-01T00:00:00Z'))),
    'trust.json',
  ],
  ['footer-missing-member', 'a footer without doctrine_version (signed)', text(resign((_b, f) => delete f.doctrine_version)), 'trust.json'],
  [
    'unsupported-signature-format',
    'a signature_format this format is not (signed)',
    text(resign((_b, f) => (f.signature_format = 'signet-output/0'))),
    'trust.json',
  ],
  [
    'public-key-malformed',
    'a doctrine_public_key in non-canonical base64 (the same bytes, padding bits set)',
    text(resign((_b, f) => (f.doctrine_public_key = signer.publicKeySpki.replace(/(.)=$/, (_m, c) => `${nextBase64(c)}=`)))),
    'trust.json',
  ],
  [
    'public-key-weak-small-order',
    'a doctrine_public_key of small order (the identity point)',
    text(resign((_b, f) => (f.doctrine_public_key = spki(IDENTITY)))),
    'trust.json',
  ],
  [
    'public-key-weak-not-a-point',
    'a doctrine_public_key that is not a point on the curve',
    text(resign((_b, f) => (f.doctrine_public_key = spki(NOT_A_POINT)))),
    'trust.json',
  ],
  [
    'doctrine-hash-malformed',
    'a doctrine_hash in upper-case hex (signed)',
    text(resign((_b, f) => (f.doctrine_hash = f.doctrine_hash.toUpperCase().replace('SHA256:', 'sha256:')))),
    'trust.json',
  ],
  [
    'doctrine-signature-malformed',
    'a doctrine_signature of 63 bytes (signed)',
    text(resign((_b, f) => (f.doctrine_signature = tagged(sigBytes(f.doctrine_signature).subarray(0, 63))))),
    'trust.json',
  ],
  [
    'output-signature-other-kind',
    'a signet-output/2 output whose output_signature is over the bare output_hash (a signature of another kind)',
    text(toolResult(otherKind)),
    'trust.json',
  ],
  [
    'doctrine-signature-invalid',
    'a doctrine_signature made by another key (signed)',
    text(resign((_b, f) => (f.doctrine_signature = attacker.sign(SIGNED_MESSAGE.doctrine(SIGNATURE_FORMAT, DOCTRINE_HASH))))),
    'trust.json',
  ],
  [
    'output-hash-malformed',
    'an output_hash that is not sha256:<64 lowercase hex>',
    text(withFooter((f) => (f.output_hash = `sha256:${'0'.repeat(63)}`))),
    'trust.json',
  ],
  [
    'output-hash-mismatch',
    'the result changed after signing',
    text({ ...genuine, result: { ...genuine.result, zebra: false } }),
    'trust.json',
  ],
  [
    'output-signature-malformed',
    'an output_signature in the URL-safe base64 alphabet',
    text(withFooter((f) => (f.output_signature = f.output_signature.replace(/\+/g, '-').replace(/\//g, '_')))),
    'trust.json',
  ],
  [
    'output-signature-invalid',
    'an output_signature with one bit flipped',
    text(withFooter((f) => (f.output_signature = flipped(f.output_signature)))),
    'trust.json',
  ],
  [
    'output-signature-invalid-s-plus-l',
    'the output_signature in its second spelling, S + L',
    text(withFooter((f) => (f.output_signature = plusL(f.output_signature)))),
    'trust.json',
  ],
];

function attackerForgery() {
  const body = structuredClone(BODY);
  body.result.title = 'Authentication is optional';
  return sign(body, footer(attacker), attacker);
}
/** Other spellings of two numbers of the structuredContent (not of the text content, which must stay canonical). */
function respell(json) {
  const at = json.indexOf('"structuredContent"');
  return json.slice(0, at) + json.slice(at).replace('1.5,', '1.5e0,').replace('1e+21', '1E21');
}
function withFooter(change) {
  const out = structuredClone(genuine);
  change(out.footer);
  return out;
}
function flipped(sig) {
  const b = sigBytes(sig);
  b[10] ^= 1;
  return tagged(b);
}
function plusL(sig) {
  const b = sigBytes(sig);
  let s = 0n;
  for (let i = 63; i >= 32; i--) s = (s << 8n) | BigInt(b[i]);
  s += L;
  for (let i = 32; i < 64; i++, s >>= 8n) b[i] = Number(s & 255n);
  return tagged(b);
}
/** The base64 character after c: in the last character before "=", it changes only padding bits. */
function nextBase64(c) {
  const A = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
  return A[A.indexOf(c) + 1];
}

/** Writes docs/vectors/ (or OUT): the inputs, the trust files and vectors.json. */
export function writeVectors(out = join(ROOT, 'docs', 'vectors')) {
  rmSync(join(out, 'inputs'), { recursive: true, force: true });
  mkdirSync(join(out, 'inputs'), { recursive: true });
  const trusts = Object.fromEntries(Object.entries(TRUST).map(([f, t]) => [f, trustSet({ files: [parseTrustFile(t)] })]));
  for (const [file, t] of Object.entries(TRUST)) writeFileSync(join(out, file), `${JSON.stringify(t, null, 2)}\n`);
  const index = VECTORS.map(([name, description, input, trust]) => {
    const file = `inputs/${name}.json`;
    writeFileSync(join(out, file), input);
    const report = verifyOutput(input, trust ? { trust: trusts[trust] } : {});
    return { name, description, input: file, trust, expected: { status: report.status, reasons: report.reasons.map((r) => r.code) } };
  });
  // Each vector shows one thing: a valid one is trusted, any other fails for exactly one reason.
  for (const v of index) {
    const r = v.expected;
    if (v.name.startsWith('valid-') ? r.status !== 'trusted' : r.reasons.length !== 1)
      throw new Error(`vector ${v.name} is not what it says: ${JSON.stringify(r)}`);
  }
  if (new Set(index.map((v) => v.name)).size !== index.length) throw new Error('two vectors share a name');
  const doc = {
    format: 'signet-test-vectors/1',
    signature_format: SIGNATURE_FORMAT,
    signature_formats_read: SIGNATURE_FORMATS,
    keys: {
      signer: signer.publicKeySpki,
      retired: retired.publicKeySpki,
      revoked: revoked.publicKeySpki,
      attacker: attacker.publicKeySpki,
    },
    vectors: index,
  };
  writeFileSync(join(out, 'vectors.json'), `${JSON.stringify(doc, null, 2)}\n`);
  return doc;
}

// node scripts/vectors.mjs [OUT]
if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const doc = writeVectors(process.argv[2] ? resolve(process.argv[2]) : undefined);
  const count = {};
  for (const v of doc.vectors) count[v.expected.status] = (count[v.expected.status] ?? 0) + 1;
  process.stderr.write(
    `${doc.vectors.length} vectors: ${Object.entries(count)
      .map(([status, n]) => `${n} ${status}`)
      .join(', ')}\n`,
  );
}
