// The command an image's entrypoint script ends in: `exec python server.py --transport sse` in
// the script the Dockerfile writes or copies. Read, never run; what the script computes on the
// way (a variable set from the environment) stays as written.
import type { DockerfileInfo } from './dockerfile/read.js';
import { type Inputs, normalise } from './inputs.js';
import type { At } from './sheet.js';
import { commandsOf, unwrap } from './shell.js';

/**
 * The words of the command the image's launcher script hands the process to: its last `exec`
 * line, or else its last command; null when the image starts no script the files hold.
 * `contextDir`: where the build's COPY sources are found.
 */
export function scriptCommand(
  df: DockerfileInfo,
  inputs: Inputs,
  contextDir: string,
): { words: string[]; at: At; drop?: { words: string[]; at: At } } | null {
  const l = df.launcher;
  if (!l) return null;
  const file = l.source === null ? null : inputs.get(normalise(`${contextDir ? `${contextDir}/` : ''}${l.source}`));
  const text = l.text ?? file?.text ?? null;
  if (text === null) return null;
  const rows = text.split('\n');
  const last = (test: (row: string) => boolean) => rows.findLastIndex((r) => test(r.trim()));
  let i = last((r) => /^exec\s/.test(r));
  if (i < 0) i = last((r) => r !== '' && !r.startsWith('#') && !/^(fi|done|esac|\}|;;)$/.test(r));
  if (i < 0) return null;
  const words = unwrap(commandsOf(rows[i]!).at(-1) ?? []);
  if (!words.length) return null;
  // A script written by the Dockerfile is cited at its RUN; one copied in, at its own line.
  const at = (row: number): At => (file ? { file: file.path, line: row + 1 } : l.at);
  // `if [ "$(id -u)" = 0 ]; then exec gosu mcp:mcp …; else exec …; fi` (nordeim/Security-MCP-Server):
  // started as root, the script takes its privilege drop, wherever that exec line stands.
  const d = last((r) => /^exec\s+(\S*\/)?(gosu|su-exec|runuser|setpriv)\s/.test(r));
  const drop = d < 0 ? undefined : { words: unwrap(commandsOf(rows[d]!).at(-1) ?? []), at: at(d) };
  return { words, at: at(i), ...(drop?.words.length ? { drop } : {}) };
}
