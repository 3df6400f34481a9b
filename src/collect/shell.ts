// Shell command lines read as words, never run: `RUN` lines, compose `command:`, `sh -c` in
// client configs. shell-quote splits words and operators; variables stay as written.
import { parse as parseShell } from 'shell-quote';

/**
 * shell-quote's tokens, variables kept as written. It refuses some parameter expansions a shell
 * takes (`${CONFIG:+--config ${CONFIG}}`, razorpay/razorpay-mcp-server's ENTRYPOINT) with "Bad
 * substitution": such an expansion is then read as one variable, `$CONFIG`, never an error.
 */
function parse(line: string, env: (name: string) => string): ReturnType<typeof parseShell> {
  try {
    return parseShell(line, env);
  } catch {
    let text = line;
    // Innermost first: `${A:+x ${B}}` becomes `${A:+x $B}`, then `$A`.
    for (let i = 0; i < 20 && /\$\{[^{}]*\}/.test(text); i++)
      text = text.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)?[^{}]*\}/g, (_m, n: string | undefined) => `$${n ?? 'VAR'}`);
    try {
      return parseShell(text, env);
    } catch {
      return text.split(/\s+/).filter(Boolean);
    }
  }
}

/** The simple commands of a shell line (split at &&, ||, ;, | and newlines), each as words. */
export function commandsOf(line: string): string[][] {
  const out: string[][] = [];
  // Each line on its own (a script from a here-document): a comment ends its line, not the script.
  for (const row of line.replace(/\\\n/g, ' ').split('\n')) {
    let current: string[] = [];
    for (const t of parse(row, (name) => `$${name}`)) {
      if (typeof t === 'string') current.push(t);
      else if ('op' in t && t.op !== 'glob') {
        const redirect = ['>', '>>', '<', '>&', '<&', '>|'].includes(t.op);
        // `2>/dev/null`, `2>&1`: the descriptor's number belongs to the redirection, not to the command.
        if (redirect && /^\d+$/.test(current.at(-1) ?? '') && row.includes(`${current.at(-1)}${t.op}`)) current.pop();
        if (current.length) out.push(current);
        current = [];
        // A redirection's target is not a command.
        if (redirect) current = ['#redirect'];
      } else if ('pattern' in t) current.push(t.pattern);
      else if ('comment' in t) break;
    }
    if (current.length) out.push(current);
  }
  return out.map((c) => (c[0] === '#redirect' ? c.slice(2) : c)).filter((c) => c.length > 0);
}

/** A command line split into words as a shell (or Compose, for a `command:` string) splits it; operators kept as words. */
export function wordsOfLine(line: string): string[] {
  return parse(line, (name) => `$${name}`).flatMap((t) =>
    typeof t === 'string' ? [t] : 'op' in t && t.op !== 'glob' ? [t.op] : 'pattern' in t ? [t.pattern] : [],
  );
}

/**
 * The command words after leading VAR=value assignments, wrappers (env, sudo, exec, tini --) and
 * the shell's own words that start a command inside a compound one (`if [ -f uv.lock ]; then uv
 * sync --locked; else uv sync; fi`: the two installs are commands of their own).
 */
export function unwrap(words: string[]): string[] {
  let w = words;
  for (;;) {
    if (w.length && /^[A-Za-z_][A-Za-z0-9_]*=/.test(w[0]!)) w = w.slice(1);
    else if (['env', 'sudo', 'exec', 'nohup', 'time', 'if', 'then', 'else', 'elif', 'do', 'while', 'until', '!'].includes(w[0] ?? ''))
      w = w.slice(1);
    else if (/(^|\/)(tini|dumb-init)$/.test(w[0] ?? '')) w = w.slice(w[1] === '--' ? 2 : 1);
    // `dlv exec /app/server --headless --listen=:52202 -- --port 8080` (reportportal's debug.dockerfile):
    // Delve's flags are the debugger's; the program and what follows `--` are the server's.
    // Its flags may come first too (inference-gateway's `/dlv --listen=:2345 --headless=true exec /app/inference-gateway`).
    else if (/(^|\/)dlv$/.test(w[0] ?? '') && w.indexOf('exec') > 0 && w[w.indexOf('exec') + 1] !== undefined) {
      const e = w.indexOf('exec');
      const dash = w.indexOf('--', e + 2);
      w = [w[e + 1]!, ...(dash < 0 ? [] : w.slice(dash + 1))];
    } else return w;
  }
}

/**
 * The script a shell runs for `sh -c '…'` (bash, dash and zsh too, flags before `-c` or with it, `-lc`), or
 * null for any other command. A shell-form line split at spaces keeps the script's quotes
 * (`sh -c "python server.py --transport sse"`): they are dropped.
 */
export function shellScript(words: string[]): string | null {
  const w = unwrap(words);
  // `-c` alone or last of a cluster of flags: `bash -lc`, `sh -ec`.
  const c = w.findIndex((x) => /^-[a-z]*c$/.test(x));
  if (!/^(\/usr)?(\/bin\/)?(ba|da|z)?sh$/.test(w[0] ?? '') || c < 1 || w[c + 1] === undefined) return null;
  if (w.slice(1, c).some((x) => !x.startsWith('-'))) return null;
  return w
    .slice(c + 1)
    .join(' ')
    .replace(/^(["'])([\s\S]*)\1$/, '$2');
}

/**
 * `$NAME`, `${NAME}` and `${NAME:-default}` filled in as a shell would from `value`, the default
 * where it gives none; a variable neither gives stays as written.
 */
export function expandVariables(text: string, value: (name: string) => string | undefined): string {
  return text.replace(
    /\$\{([A-Za-z_]\w*)(?::?-([^}]*))?\}|\$([A-Za-z_]\w*)/g,
    (m, a?: string, d?: string, b?: string) => value(a ?? b!) ?? d ?? m,
  );
}
