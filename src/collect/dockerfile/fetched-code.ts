// Code a build downloads from a branch or a "latest" link (`curl -L -o /assets/libllama_go.so
// https://media.githubusercontent.com/media/kelindar/search/main/dist/…`, ethpandaops/xatu-mcp):
// whatever that ref holds when the image is built, which no lockfile or version fixes.

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
