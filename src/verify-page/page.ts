// The verification page (GET /verify, and `signet verify --html` for a file opened offline):
// the portable verifier in a page, with no request to anywhere. Paste or drop an output or an
// attestation (`signet check --attest`) and optionally a trust file or a public key; the page
// says trusted, unpinned or invalid, and why.

import { visible } from '../shared/visible.js';
import {
  type AttestationReport,
  invalidReport,
  isDsseEnvelope,
  parseTrustFile,
  strictUtf8,
  type TrustFile,
  trustSet,
  type VerifyReport,
  verifyAttestation,
  verifyOutput,
} from '../signing/portable.js';

const $ = <T extends HTMLElement>(id: string): T => document.getElementById(id) as T;

const VERDICTS: Record<VerifyReport['status'], { title: string; summary: string }> = {
  trusted: { title: 'Valid and trusted', summary: 'The output is intact, and a key you trust signed it.' },
  unpinned: {
    title: 'Signature valid, but the signer is not pinned',
    summary:
      'The output is intact and consistently signed, but by a key you have not said you trust: anyone can make such an output. Add the trust file or the public key you got from the operator.',
  },
  invalid: { title: 'Invalid', summary: 'Do not rely on this output:' },
};
/** The same verdicts said of an attestation (`signet check --attest`: a DSSE envelope). */
const ATTESTATION_SUMMARIES: Record<VerifyReport['status'], string> = {
  trusted: 'The attestation is intact, and a key you trust signed it: its verdict is about the files listed, by their digests.',
  unpinned: VERDICTS.unpinned.summary.replaceAll('output', 'attestation'),
  invalid: 'Do not rely on this attestation:',
};

/** An attestation's own verdict and files, or null for an output. */
function attestationOf(report: VerifyReport): AttestationReport['attestation'] {
  return (report as Partial<AttestationReport>).attestation ?? null;
}

function text(el: HTMLElement, value: string): void {
  el.textContent = visible(value);
}

/** The result a signed verify_output report carries, read from the same input the verifier accepted. */
function reportedVerdict(input: string): { status: string; trust: { source?: unknown; keys_sha256?: unknown } } | null {
  try {
    type Node = { [k: string]: Node | undefined } | undefined;
    const v = JSON.parse(input) as Node;
    const output = v?.['footer'] ? v : (v?.['structuredContent'] ?? v?.['result']?.['structuredContent']);
    const result = output?.['result'] as { status?: unknown; trust?: { source?: unknown; keys_sha256?: unknown } } | undefined;
    return typeof result?.status === 'string' ? { status: result.status, trust: result.trust ?? {} } : null;
  } catch {
    return null;
  }
}

function show(report: VerifyReport, input = ''): void {
  const result = $<HTMLElement>('result');
  result.hidden = false;
  result.className = report.status;
  const verdict = VERDICTS[report.status];
  const attestation = attestationOf(report);
  text($('verdict'), verdict.title);
  text($('summary'), attestation ? ATTESTATION_SUMMARIES[report.status] : verdict.summary);
  const list = $<HTMLUListElement>('reasons');
  list.replaceChildren(
    ...report.reasons
      .filter((r) => report.status !== 'unpinned' || r.code !== 'not_pinned')
      .map((r) => {
        const li = document.createElement('li');
        const code = document.createElement('code');
        // A reason's message may quote the output (a member name, a tool name): made visible too.
        code.textContent = visible(r.code);
        li.append(code, `: ${visible(r.message)}`);
        return li;
      }),
  );
  // Only a trusted output's own text is vouched for; anything else is a claim, said so.
  $<HTMLElement>('claims').hidden = report.status === 'trusted';
  text($('f-tool'), attestation ? 'signet check (in-toto attestation)' : (report.tool ?? '–'));
  $<HTMLElement>('f-attestation-row').hidden = attestation === null;
  $<HTMLElement>('f-subjects-row').hidden = attestation === null;
  if (attestation) {
    text($('f-attestation'), attestation.verdict ?? '–');
    const list = $<HTMLUListElement>('f-subjects');
    list.replaceChildren(
      ...attestation.subjects.map((s) => {
        const li = document.createElement('li');
        li.textContent = visible(`${s.name} ${s.sha256}`);
        return li;
      }),
    );
  }
  const d = report.doctrine;
  text($('f-doctrine'), d ? `${d.name ?? '?'} ${d.version ?? ''}`.trim() : '–');
  text($('f-hash'), d?.hash ?? '–');
  text($('f-fingerprint'), report.signer?.fingerprint ?? '–');
  const s = report.signer;
  text(
    $('f-signer'),
    s?.status
      ? `${s.name ?? ''} (${s.status})`
      : report.status === 'invalid' && report.signature_valid === false
        ? 'not checked: the output itself is invalid'
        : 'not listed',
  );
  // A signed verify_output report: the signature vouches for the report, and the report's
  // verdict rests on whoever's keys it names (pen test M5: a caller's keys are never the server's).
  const inner = report.tool === 'verify_output' && report.signature_valid ? reportedVerdict(input) : null;
  $<HTMLElement>('f-report-row').hidden = inner === null;
  if (inner) {
    const whose =
      inner.trust.source === 'server'
        ? "by the signing server's own keys"
        : inner.trust.source === 'caller'
          ? `by keys the caller supplied (${String(inner.trust.keys_sha256)}), not the server's`
          : "by keys the report does not name: treat them as the caller's";
    text($('f-report'), `${inner.status}, ${whose}`);
    if (report.status === 'trusted')
      text(
        $('summary'),
        'This verify_output report is intact, and a key you trust signed it. That vouches for the report, not for the output it checked: read the verdict it carries, below.',
      );
  }
}

/** A DSSE envelope (what `signet check --attest` writes) is told apart by its members, as `signet verify` does. */
function isAttestation(input: string): boolean {
  try {
    return isDsseEnvelope(JSON.parse(input));
  } catch {
    return false;
  }
}

function showError(message: string): void {
  show(invalidReport([{ code: 'not_json', message }]));
}

function verify(): void {
  const output = $<HTMLTextAreaElement>('output').value.trim();
  if (output === '') {
    showError('paste a signed output first');
    return;
  }
  const files: TrustFile[] = [];
  const trustText = $<HTMLTextAreaElement>('trust').value.trim();
  const key = $<HTMLInputElement>('key').value.trim();
  try {
    if (trustText !== '') files.push(parseTrustFile(trustText));
    const trust = trustSet({ files, publicKeys: key === '' ? [] : [key] });
    show(isAttestation(output) ? verifyAttestation(output, { trust }) : verifyOutput(output, { trust }), output);
  } catch (err) {
    // A malformed trust file or key: say so, as an invalid verdict that names the input.
    showError(`the trust file or public key is not usable: ${(err as Error).message}`);
  }
}

/**
 * Reads a chosen or dropped file into a text box (no upload: in the page). Its bytes must be
 * UTF-8: File.text() would put U+FFFD where they are not, and the page would verify a text the
 * file does not hold (pen test L2), so such a file is refused and the box emptied.
 */
function load(file: File | undefined, into: HTMLTextAreaElement): void {
  if (!file) return;
  void file.arrayBuffer().then((buffer) => {
    const content = strictUtf8(new Uint8Array(buffer));
    into.value = content ?? '';
    if (content === null) showError(`${file.name} is not UTF-8 (RFC 8259 §8.1): it would read two ways`);
    else verify();
  });
}

function dropTarget(area: HTMLTextAreaElement): void {
  area.addEventListener('dragover', (e) => {
    e.preventDefault();
    area.classList.add('dragging');
  });
  area.addEventListener('dragleave', () => area.classList.remove('dragging'));
  area.addEventListener('drop', (e) => {
    e.preventDefault();
    area.classList.remove('dragging');
    load(e.dataTransfer?.files[0], area);
  });
}

$<HTMLFormElement>('form').addEventListener('submit', (e) => {
  e.preventDefault();
  verify();
});
// A verdict belongs to the input it was made for: any edit takes it away until Verify runs again.
for (const id of ['output', 'trust', 'key']) {
  $<HTMLElement>(id).addEventListener('input', () => {
    $<HTMLElement>('result').hidden = true;
  });
}
for (const id of ['output', 'trust']) {
  $<HTMLTextAreaElement>(id).addEventListener('keydown', (e) => {
    if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) verify();
  });
  dropTarget($<HTMLTextAreaElement>(id));
}
$<HTMLInputElement>('output-file').addEventListener('change', (e) => load((e.target as HTMLInputElement).files?.[0], $('output')));
$<HTMLInputElement>('trust-file').addEventListener('change', (e) => load((e.target as HTMLInputElement).files?.[0], $('trust')));
