// What COPY and ADD name: their sources in the build context, and what copying out of another stage carries.

import { posix } from 'node:path';

/**
 * Whether copying `source` out of another stage may carry the context file `file` that stage holds:
 * by its name (a glob such as `package-lock.json*`), or a directory that may hold it (`/app`).
 */
export function carries(source: string, file: string): boolean {
  const name = posix.basename(source.replace(/\/+$/, ''));
  if (source.endsWith('/') || name === '.' || name === '' || !/[.*?]/.test(name)) return true;
  const glob = new RegExp(
    `^${name
      .replace(/[.+^${}()|\\]/g, '\\$&')
      .replace(/\*/g, '.*')
      .replace(/\?/g, '.')}$`,
  );
  return glob.test(posix.basename(file));
}

/**
 * The sources of a COPY or ADD (all its arguments but the destination), in shell or JSON form;
 * none for a here-document, whose content is in the Dockerfile, or a URL.
 */
export function copySources(args: string[], content: string): string[] {
  let words = args;
  if (content.trim().startsWith('[')) {
    try {
      const parsed = JSON.parse(content.trim()) as unknown;
      if (Array.isArray(parsed)) words = parsed.map(String);
    } catch {
      return [];
    }
  }
  if (words.some((w) => w.startsWith('<<'))) return [];
  return words.slice(0, -1).filter((w) => !/^[a-z][\w+.-]*:\/\//i.test(w));
}

/** One COPY or ADD from the build context: a source, and the absolute path it lands at in the image. */
export interface ContextCopy {
  source: string;
  dest: string;
  /** Into a directory: the destination ends in `/`, is the working directory, or the instruction has several sources. */
  into: boolean;
}

/** What COPY and ADD from the context land where: each source and its absolute destination, WORKDIR applied. */
export function contextCopies(sources: string[], dest: string, workdir: string): ContextCopy[] {
  if (dest === '') return [];
  const into = dest.endsWith('/') || /^\.\/?$/.test(dest) || sources.length > 1;
  return sources.filter((s) => !/[*?[]/.test(s)).map((source) => ({ source, dest: posix.resolve(workdir, dest), into }));
}

/** A source written as a directory: the context (`.`), a trailing `/`, or a name without an extension (`scripts`). */
const asDirectory = (source: string) => source === '.' || source.endsWith('/') || !posix.basename(source).includes('.');

/**
 * Where an image path may come from in the build context, the latest copy first: a file copied to
 * that name, or a file under a directory copied whole (`COPY . /app` puts each file of the context
 * at the same place under `/app`; Docker copies a directory's contents, not the directory).
 */
export function contextPathsOf(copies: readonly ContextCopy[], path: string): string[] {
  const out: string[] = [];
  for (const c of [...copies].reverse()) {
    const src = c.source.replace(/\/+$/, '') || '.';
    if (c.into ? path === posix.join(c.dest, posix.basename(src)) : path === c.dest) out.push(src);
    if (!asDirectory(c.source)) continue;
    if (path === c.dest) out.push(src);
    const rest = c.dest === '/' ? path.slice(1) : path.startsWith(`${c.dest}/`) ? path.slice(c.dest.length + 1) : null;
    if (rest) out.push(posix.join(src, rest));
  }
  return [...new Set(out.map((p) => posix.normalize(p)))];
}
