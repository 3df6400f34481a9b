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
