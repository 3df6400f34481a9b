// The fenced code blocks of the doctrine's documents, with the attributes of their info strings:
// ```nginx context=http name=static-token, ```sh run=<recipe>, ```sh manual=<why>, ```yaml kind=...
// The attributes are how the tests know what each block is and how to run it.
import { execFileSync } from 'node:child_process';
import { loadDoctrine } from '../../src/doctrine/load.js';
import { cleanEnv } from './clean-env.js';
import { DEFAULT_DOCTRINE } from './paths.js';

export interface Snippet {
  /** The document's id. */
  doc: string;
  /** The first word of the info string ('' when there is none). */
  lang: string;
  attrs: Record<string, string>;
  /** The block's text, with the indentation of its fence removed. */
  code: string;
  /** 1-based line of the opening fence in the document body. */
  line: number;
}

const FENCE = /^( *)```(.*)$/;

export function snippetsOf(doc: string, body: string): Snippet[] {
  const lines = body.split('\n');
  const out: Snippet[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = FENCE.exec(lines[i]!);
    if (!open) continue;
    const indent = open[1]!.length;
    const [lang = '', ...words] = open[2]!.trim().split(/\s+/).filter(Boolean);
    const pair = (w: string): [string, string] => (w.includes('=') ? [w.slice(0, w.indexOf('=')), w.slice(w.indexOf('=') + 1)] : [w, '']);
    const attrs = Object.fromEntries(words.map(pair));
    const code: string[] = [];
    let j = i + 1;
    for (; j < lines.length && !/^ *```\s*$/.test(lines[j]!); j++) code.push(lines[j]!.slice(Math.min(indent, lines[j]!.search(/\S|$/))));
    if (j === lines.length) throw new Error(`${doc}:${i + 1}: a code block is never closed`);
    out.push({ doc, lang, attrs, code: `${code.join('\n')}\n`, line: i + 1 });
    i = j;
  }
  return out;
}

/** Every fenced block of every document of the bundled doctrine. */
export function doctrineSnippets(): Snippet[] {
  return loadDoctrine(DEFAULT_DOCTRINE).documents.flatMap((d) => snippetsOf(d.id, d.body));
}

/** The block marked name=<name> (nginx) or run=<name> (recipes); there must be exactly one. */
export function snippet(key: 'name' | 'run', value: string): Snippet {
  const found = doctrineSnippets().filter((s) => s.attrs[key] === value);
  if (found.length !== 1) throw new Error(`expected one block with ${key}=${value}, found ${found.length}`);
  return found[0]!;
}

/** A recipe (```sh run=<id>) run with bash -e -o pipefail in `cwd`, as a reader would. */
export function runRecipe(id: string, cwd: string, env: Record<string, string> = {}, args: string[] = []): { ok: boolean; out: string } {
  try {
    const out = execFileSync('bash', ['-e', '-o', 'pipefail', '-c', snippet('run', id).code, id, ...args], {
      cwd,
      // Stated, not inherited: a recipe runs as on a reader's machine.
      env: cleanEnv(env),
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
      timeout: 120_000,
    });
    return { ok: true, out };
  } catch (err) {
    const e = err as { stdout?: string; stderr?: string };
    return { ok: false, out: `${e.stdout ?? ''}${e.stderr ?? ''}` };
  }
}

/**
 * Where each recipe of the doctrine is run: a test file and the call that runs it. The
 * snippet test checks that this list and the documents' run= ids agree, and that each
 * file really calls its recipes, so a new recipe cannot be left unrun.
 */
export const RECIPE_RUNNERS: Record<string, string> = {
  'auth-probes': 'test/stack/doctrine-nginx.test.ts',
  'tls-version-probe': 'test/stack/doctrine-nginx.test.ts',
  'exposure-probe': 'test/stack/doctrine-nginx.test.ts',
  'signing-keygen': 'test/integration/doctrine-recipes.test.ts',
  'output-verification': 'test/integration/doctrine-recipes.test.ts',
  'key-file-mode': 'test/integration/doctrine-recipes.test.ts',
  'pino-redaction': 'test/integration/doctrine-recipes.test.ts',
  'egress-guard': 'test/integration/doctrine-recipes.test.ts',
  'tool-definitions-hash': 'test/integration/doctrine-recipes.test.ts',
  'supply-chain-build': 'test/integration/doctrine-recipes.test.ts',
  'mcp-header-mismatch': 'test/integration/doctrine-recipes.test.ts',
  'safe-command': 'test/integration/doctrine-recipes.test.ts',
  'confine-path': 'test/integration/doctrine-recipes.test.ts',
  'authorization-url-check': 'test/integration/doctrine-recipes.test.ts',
  'container-checks': 'test/stack/doctrine-docker.test.ts',
  'stdio-sandbox': 'test/stack/doctrine-docker.test.ts',
};

/** Why a recipe cannot run on a test machine; a manual= value must be one of these. */
export const MANUAL_REASONS: Record<string, string> = {
  'cloud-account': 'changes a cloud account',
  'registry-access': "needs the npm registry's signature and attestation endpoints",
};
