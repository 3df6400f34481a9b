// The verification page (GET /verify, and `signet verify --html` for a file opened offline):
// the portable verifier in a page, with no request to anywhere. Paste or drop an output and
// optionally a trust file or a public key; the page says trusted, unpinned or invalid, and why.
import { invalidReport, parseTrustFile, type TrustFile, trustSet, type VerifyReport, verifyOutput } from '../signing/portable.js';

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

function text(el: HTMLElement, value: string): void {
  el.textContent = value;
}

function show(report: VerifyReport): void {
  const result = $<HTMLElement>('result');
  result.hidden = false;
  result.className = report.status;
  const verdict = VERDICTS[report.status];
  text($('verdict'), verdict.title);
  text($('summary'), verdict.summary);
  const list = $<HTMLUListElement>('reasons');
  list.replaceChildren(
    ...report.reasons
      .filter((r) => report.status !== 'unpinned' || r.code !== 'not_pinned')
      .map((r) => {
        const li = document.createElement('li');
        const code = document.createElement('code');
        code.textContent = r.code;
        li.append(code, `: ${r.message}`);
        return li;
      }),
  );
  text($('f-tool'), report.tool ?? '–');
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
    show(verifyOutput(output, { trust }));
  } catch (err) {
    // A malformed trust file or key: say so, as an invalid verdict that names the input.
    showError(`the trust file or public key is not usable: ${(err as Error).message}`);
  }
}

/** Reads a chosen or dropped file into a text box (no upload: FileReader, in the page). */
function load(file: File | undefined, into: HTMLTextAreaElement): void {
  if (!file) return;
  void file.text().then((content) => {
    into.value = content;
    verify();
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
for (const id of ['output', 'trust']) {
  $<HTMLTextAreaElement>(id).addEventListener('keydown', (e) => {
    if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) verify();
  });
  dropTarget($<HTMLTextAreaElement>(id));
}
$<HTMLInputElement>('output-file').addEventListener('change', (e) => load((e.target as HTMLInputElement).files?.[0], $('output')));
$<HTMLInputElement>('trust-file').addEventListener('change', (e) => load((e.target as HTMLInputElement).files?.[0], $('trust')));
