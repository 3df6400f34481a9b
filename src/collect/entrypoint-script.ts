// The command an image's entrypoint script ends in: `exec python server.py --transport sse` in
// the script the Dockerfile writes or copies. Read, never run; what the script computes on the
// way (a variable set from the environment) stays as written.
import type { DockerfileInfo } from './dockerfile/read.js';
import { type Inputs, normalise, type TextFile } from './inputs.js';
import type { At } from './sheet.js';
import { commandsOf, unwrap } from './shell.js';

/** The text of the script the image's launcher runs, where the files hold it. */
function launcherText(df: DockerfileInfo, inputs: Inputs, contextDir: string): { text: string; file: TextFile | undefined } | null {
  const l = df.launcher;
  if (!l) return null;
  const file = l.sources.map((src) => inputs.get(normalise(`${contextDir ? `${contextDir}/` : ''}${src}`))).find((f) => f !== undefined);
  const text = l.text ?? file?.text ?? null;
  return text === null ? null : { text, file };
}

/** Every command the launcher script hands over to with `exec`, on any branch (`if …; then exec /bin/altinity-mcp "$@"; else exec "$@"; fi`). */
export function scriptExecs(df: DockerfileInfo, inputs: Inputs, contextDir: string): string[][] {
  const t = launcherText(df, inputs, contextDir);
  if (!t) return [];
  return logicalLines(t.text)
    .texts.filter((r) => /^\s*exec\s/.test(r))
    .map((r) => unwrap(commandsOf(r.trim()).at(-1) ?? []));
}

/**
 * The script's lines as the shell reads them, a line ending in a backslash joined to the next
 * (`supergateway --stdio … \` and its flags on the lines after, pratp7/chrome-devtools-mcp-http),
 * each with the index of the line it starts on.
 */
function logicalLines(text: string): { texts: string[]; starts: number[] } {
  const texts: string[] = [];
  const starts: number[] = [];
  let open = false;
  for (const [n, raw] of text.split('\n').entries()) {
    const row = raw.replace(/\r$/, '');
    const continues = /(^|[^\\])(\\\\)*\\$/.test(row);
    const piece = continues ? row.slice(0, -1) : row;
    if (open) texts[texts.length - 1] += piece;
    else {
      texts.push(piece);
      starts.push(n);
    }
    open = continues;
  }
  return { texts, starts };
}

/**
 * The words of the command the image's launcher script hands the process to: its last `exec`
 * line, or else its last command; null when the image starts no script the files hold.
 * `contextDir`: where the build's COPY sources are found.
 */
export function scriptCommand(
  df: DockerfileInfo,
  inputs: Inputs,
  contextDir: string,
  /** The run replaces the image's CMD (a compose `command`, a pod's `args`): a script the CMD starts does not run. */
  cmdReplaced = false,
): ScriptCommand | null {
  const l = df.launcher;
  if (!l || (cmdReplaced && !l.byEntrypoint)) return null;
  const t = launcherText(df, inputs, contextDir);
  if (!t) return null;
  const { text, file } = t;
  const { texts: rows, starts } = logicalLines(text);
  const last = (test: (row: string) => boolean) => rows.findLastIndex((r) => test(r.trim()));
  let i = last((r) => /^exec\s/.test(r));
  if (i < 0) i = last((r) => r !== '' && !r.startsWith('#') && !/^(fi|done|esac|\}|;;)$/.test(r));
  if (i < 0) return null;
  const words = unwrap(commandsOf(rows[i]!).at(-1) ?? []);
  if (!words.length) return null;
  // A script written by the Dockerfile is cited at its RUN; one copied in, at its own line.
  const at = (row: number): At => (file ? { file: file.path, line: starts[row]! + 1 } : l.at);
  // `if [ "$(id -u)" = 0 ]; then exec gosu mcp:mcp …; else exec …; fi` (nordeim/Security-MCP-Server):
  // started as root, the script takes its privilege drop, wherever that exec line stands.
  const d = last((r) => /^exec\s+(\S*\/)?(gosu|su-exec|runuser|setpriv)\s/.test(r));
  // Under any other condition (createthis/diffcalculia_mcp's `if [ "$SANDBOX_USER_ID" != 0 ]`, or
  // `if command -v su-exec`), the other branch may run the server as the image's user.
  const condition = d < 0 ? null : enclosingCondition(rows, d);
  const conditional = condition !== null && !/\bid\s+-u[nr]*\b|\bwhoami\b|\$\{?E?UID\}?/.test(condition) ? condition : undefined;
  const drop = d < 0 ? undefined : { words: unwrap(commandsOf(rows[d]!).at(-1) ?? []), at: at(d), ...(conditional ? { conditional } : {}) };
  // The last exec on one branch of several (PromptExecution/rust-cargo-docs-rag-mcp's `case
  // "$CRATEDOCS_MODE" in http) exec … ;; stdio) exec … ;; esac`): which one runs is the environment's.
  const branch = rows.filter((r) => /^exec\s/.test(r.trim())).length > 1 ? enclosingCondition(rows, i) : null;
  return {
    words,
    at: at(i),
    env: exported(rows.slice(0, i), at),
    ...(drop?.words.length ? { drop } : {}),
    ...(branch ? { branch } : {}),
  };
}

/** The condition of the innermost `if` or `case` around row `n`, or null where it runs whatever the environment holds. */
function enclosingCondition(rows: string[], n: number): string | null {
  const open: string[] = [];
  for (const raw of rows.slice(0, n)) {
    // `fi # done`, `fi;`: a comment or a trailing `;` closes all the same.
    const row = raw
      .replace(/\s#.*$/, '')
      .trim()
      .replace(/;$/, '');
    if (/^(if|case)\b/.test(row) && !/(^|;\s*)(fi|esac)$/.test(row)) open.push(row);
    else if (/^elif\b/.test(row) && open.length) open[open.length - 1] = row;
    else if (/(^|;\s*)(fi|esac)$/.test(row)) open.pop();
  }
  return open.at(-1) ?? null;
}

/**
 * Variables the script sets, as written, before the command it hands over to: `export
 * MCP_TRANSPORT=sse` (vakosta/telegram-mcp's start.sh). Only plain values on lines outside any
 * `if`, `case`, loop or function, which run whatever the environment holds; a value built from
 * another variable (`${PORT:-8080}`) is the environment's and stays out.
 */
function exported(rows: string[], at: (row: number) => At): Map<string, { value: string; at: At }> {
  const env = new Map<string, { value: string; at: At }>();
  let depth = 0;
  for (const [n, raw] of rows.entries()) {
    const row = raw.trim();
    if (/^(if|case|for|while|until)\b|\(\)\s*\{?$|^\{$/.test(row)) depth++;
    if (/(^|;\s*)(fi|esac|done|\})$/.test(row)) depth = Math.max(0, depth - 1);
    if (depth > 0) continue;
    const m = /^(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)=("[^"$`\\]*"|'[^']*'|[^\s"'$`;&|]*)$/.exec(row);
    if (m) env.set(m[1]!, { value: m[2]!.replace(/^(["'])(.*)\1$/, '$2'), at: at(n) });
  }
  return env;
}

/** The command a launcher script ends in, and what it sets on the way. */
export interface ScriptCommand {
  words: string[];
  at: At;
  env: Map<string, { value: string; at: At }>;
  /** The privilege drop the script takes, and the condition it takes it under when that is not the user's id. */
  drop?: { words: string[]; at: At; conditional?: string };
  /** The condition the command runs under, where the script hands over to another command on another branch. */
  branch?: string;
}

/** The environment the script's command starts with: the container's, then what the script exports. */
export function scriptEnv(env: ReadonlyMap<string, string>, script: ScriptCommand | null): Map<string, string> {
  return new Map([...env, ...[...(script?.env ?? [])].map(([k, v]) => [k, v.value] as const)]);
}
