import { lstatSync, readdirSync, readFileSync } from 'node:fs';
import { join, posix } from 'node:path';
import { SignetError } from '../errors.js';

/** The pre-signature file. It lives in the doctrine folder but is not part of the manifest. */
export const SIGNATURE_FILE = 'doctrine.sig';

export interface DoctrineFile {
  /** POSIX relative path inside the doctrine folder. */
  path: string;
  bytes: Buffer;
}

/**
 * Every regular file of the folder except dotfiles and the signature file, sorted by
 * path (byte order). Symlinks are refused: the doctrine must not reach outside its folder.
 */
export function readDoctrineFiles(root: string): DoctrineFile[] {
  const out: DoctrineFile[] = [];
  const walk = (rel: string): void => {
    const abs = rel ? join(root, rel) : root;
    let entries: string[];
    try {
      entries = readdirSync(abs);
    } catch (err) {
      throw new SignetError(
        'doctrine_invalid',
        `Cannot read doctrine folder ${rel || '.'}: ${(err as NodeJS.ErrnoException).code ?? 'error'}`,
        [{ where: rel || '.', message: 'folder is not readable' }],
      );
    }
    for (const name of entries) {
      if (name.startsWith('.')) continue;
      const childRel = rel ? posix.join(rel, name) : name;
      if (childRel === SIGNATURE_FILE) continue;
      const st = lstatSync(join(root, childRel));
      if (st.isSymbolicLink()) {
        throw new SignetError('doctrine_invalid', `Symbolic links are not allowed in a doctrine: ${childRel}`, [
          { where: childRel, message: 'symbolic link' },
        ]);
      }
      if (st.isDirectory()) walk(childRel);
      else if (st.isFile()) out.push({ path: childRel, bytes: readFileSync(join(root, childRel)) });
    }
  };
  walk('');
  return out.sort((a, b) => Buffer.compare(Buffer.from(a.path), Buffer.from(b.path)));
}
