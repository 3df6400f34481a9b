// The files of one collection as the collectors see them: decoded text by normalised path,
// with the helpers every collector needs to find a file next to another.
import { posix } from 'node:path';

export interface TextFile {
  path: string;
  text: string;
}

export class Inputs {
  readonly #byPath = new Map<string, TextFile>();

  constructor(files: TextFile[]) {
    for (const f of files) this.#byPath.set(f.path, f);
  }

  get(path: string): TextFile | undefined {
    return this.#byPath.get(normalise(path));
  }

  all(): TextFile[] {
    return [...this.#byPath.values()];
  }

  /** `rel` resolved against the directory of `from` (both relative to the collection root). */
  resolve(from: string, rel: string): string {
    return normalise(posix.join(posix.dirname(from), rel));
  }
}

/** A path relative to the root, POSIX separators, no `./`; `..` out of the root stays visible. */
export function normalise(path: string): string {
  const n = posix.normalize(path.replace(/\\/g, '/'));
  return n === '.' ? '' : n.replace(/^\.\//, '').replace(/\/$/, '');
}

export const dirOf = (path: string) => {
  const d = posix.dirname(path);
  return d === '.' ? '' : d;
};
