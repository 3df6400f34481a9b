// The shell text and command words of RUN, ENTRYPOINT and CMD, and the files a RUN writes with echo.

import { commandsOf } from '../shell.js';

/**
 * The shell text a RUN runs. A BuildKit here-document after a bare `RUN <<EOF` (or `RUN <<EOF bash`)
 * is the script itself; one fed to a command (`cat <<EOF > /etc/x.conf`) is that command's data.
 */
export function shellOf(content: string): string {
  const nl = content.indexOf('\n');
  const first = nl < 0 ? content : content.slice(0, nl);
  const HEREDOC = /<<(-?)\s*(["']?)([A-Za-z_][\w.-]*)\2/g;
  const docs = [...first.matchAll(HEREDOC)];
  if (!docs.length) return content;
  const command = first.replace(HEREDOC, '').trim();
  const lines = content.slice(nl + 1).split('\n');
  const [, dash, , name] = docs[0]!;
  const end = lines.findIndex((l) => (dash ? l.replace(/^\t+/, '') : l) === name);
  const body = (end < 0 ? lines : lines.slice(0, end)).map((l) => (dash ? l.replace(/^\t+/, '') : l));
  // A bare here-document, or one handed to a shell, is the script; anything else reads it as data.
  if (command === '' || /^(\/bin\/|\/usr\/bin\/)?(ba|da|z)?sh(\s+-\w+)*$/.test(command)) return body.join('\n');
  return command;
}

export function execForm(content: string): string[] {
  const t = content.trim();
  if (t.startsWith('[')) {
    try {
      const v = JSON.parse(t) as unknown;
      if (Array.isArray(v)) return v.map(String);
    } catch {
      /* shell form after all */
    }
  }
  return commandsOf(t)[0] ?? [];
}

/**
 * Files a RUN writes with echo or printf (`echo '#!/bin/bash\n…\nexec python server.py' >
 * /entrypoint.sh`): their text, with the escapes dash's echo and printf turn into newlines.
 */
export function writtenFiles(shell: string): { path: string; text: string }[] {
  // Docker joins a continued line to the next without a space, inside quotes too.
  const joined = shell.replace(/\\\r?\n/g, '');
  const WRITE = /\b(?:echo|printf)\s+(?:-e\s+)?(?:'([^']*)'|"((?:[^"\\]|\\.)*)")\s*>\s*([^\s;&|]+)/g;
  return [...joined.matchAll(WRITE)].map((m) => ({
    path: m[3]!,
    text: (m[1] ?? m[2]!).replace(/\\n/g, '\n').replace(/\\t/g, '\t'),
  }));
}
