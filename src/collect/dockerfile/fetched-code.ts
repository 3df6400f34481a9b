// Code a build downloads from a branch or a "latest" link (`curl -L -o /assets/libllama_go.so
// https://media.githubusercontent.com/media/kelindar/search/main/dist/…`, ethpandaops/xatu-mcp):
// whatever that ref holds when the image is built, which no lockfile or version fixes.

import { posix } from 'node:path';

/** A path segment that names a moving ref: a branch, HEAD, or a "latest" release link. */
const MOVING = /\/(main|master|trunk|develop|HEAD|latest)(\/|$)/;
/** Files that hold data a program reads, not code it runs: models, documents, certificates. */
const DATA = /\.(gguf|ggml|bin|onnx|safetensors|pt|pth|ckpt|json|ya?ml|toml|txt|csv|md|html|pem|crt|cer|key|png|jpe?g|svg)$/i;

/**
 * The URL a `curl` or `wget` command (or an ADD) fetches from a moving ref into a file of code,
 * or null. `words`: one command; `dest` where ADD writes it.
 */
export function fetchedFromMovingRef(words: string[], dest?: string): string | null {
  const add = dest !== undefined;
  if (!add && !['curl', 'wget'].includes(words[0] ?? '')) return null;
  const url = words.find((w) => /^https?:\/\//.test(w));
  if (!url) return null;
  let path: string;
  try {
    path = new URL(url).pathname;
  } catch {
    return null;
  }
  if (!MOVING.test(path)) return null;
  const o = words.findIndex((w) => w === '-o' || w === '-O' || w === '--output' || w === '--output-document');
  const file = add ? dest : o >= 0 ? (words[o + 1] ?? '') : path.split('/').pop()!;
  return DATA.test(file) || file === '-' ? null : url;
}

/** Branch names that move with every push. */
const BRANCH = /^(main|master|trunk|develop|dev|HEAD|latest|next|nightly)$/;

/**
 * The repository a `git clone` fetches at a branch (its default one, or `-b main`) rather than a
 * tag (`--branch v1.4.2`) or a commit a `git checkout` or `git reset --hard` anywhere in the
 * Dockerfile (`dockerfile`, its text) moves to afterwards: private-llm-aas's
 * `git clone https://github.com/manusa/kubernetes-mcp-server.git && … make build`. Null otherwise.
 */
export function clonedFromBranch(words: string[], dockerfile: string): string | null {
  if (words[0] !== 'git' || words[1] !== 'clone') return null;
  const url = words.slice(2).find((w) => /^(https?|ssh|git):\/\/|^git@/.test(w));
  if (!url) return null;
  // A repository of data, not code (infiniflow/ragflow's `infiniflow/resource`: NLTK data, models).
  if (
    /(^|[-_])(resources?|models?|data|datasets?|weights|assets|fonts|dictionar(y|ies)|corpus)$/i.test(
      posix.basename(url.replace(/\.git$|\/+$/g, '')),
    )
  )
    return null;
  const b = words.findIndex((w) => w === '-b' || w === '--branch');
  const branch = b >= 0 ? words[b + 1] : words.find((w) => w.startsWith('--branch='))?.slice(9);
  if (branch !== undefined && !BRANCH.test(branch)) return null;
  // A checkout or hard reset to a ref that is not a moving branch fixes what the build holds.
  const moves = [...dockerfile.matchAll(/\bgit\b[^\n;&|]*?\b(?:checkout|reset\s+--hard|switch\s+--detach)\s+(?:-q\s+)?([^\s;&|\\]+)/g)];
  if (moves.some((m) => !BRANCH.test(m[1]!.replace(/^origin\//, '')))) return null;
  return url;
}
