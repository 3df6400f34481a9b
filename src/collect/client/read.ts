// One server entry read: the program it launches, the secrets written in it (literal, placeholder
// or a reference resolved at start) and a switch that turns off TLS verification.

import { analyseLaunch, type Launch } from '../launch.js';
import { AUTH_SCHEME, argumentValues, holdsSecret, isPlaceholder, passwordInUrl, SECRET_MANAGER_REF, SECRET_NAME } from '../secrets.js';
import { turnsOffTls } from '../server-args.js';
import type { At } from '../sheet.js';
import { commandsOf } from '../shell.js';
import { type Entry, isObj, isScalar } from './entries.js';

/** A file's path, absolute, from home or the project, with no spaces: where a secret is kept, not the secret. */
const FILE_PATH =
  /^(\/|~\/|\.{1,2}\/|\$\{?(HOME|workspaceFolder|CLAUDE_PROJECT_DIR)\}?\/|%USERPROFILE%\\|[A-Za-z]:\\)[^\s]*[/\\][^\s]*\.[A-Za-z0-9]{2,5}$/;
/**
 * A value that refers to a secret kept elsewhere, after an auth scheme or none: ${input:x}, ${env:X},
 * ${X}, $X, OpenCode's {env:X} and {file:path}, Continue's ${{ secrets.X }}, an MCP Bundle's ${user_config.x},
 * a Gemini CLI extension's ${settings.x},
 * LibreChat's {{GITHUB_PAT}} (a customUserVars value each user enters), an installer's {{SECRET:X}}
 * (BartlettUSA/config's templates, filled in at install), a Go template's
 * {{ env "X" }} (AmoyLab/Unla's gateway configurations).
 */
const REFERENCE = new RegExp(
  String.raw`^\s*${AUTH_SCHEME}(\$\{(input|env):[^}]+\}|\$\{(user_config|settings)\.[\w.-]+\}|\$\{[A-Za-z_][A-Za-z0-9_]*\}|\$[A-Za-z_][A-Za-z0-9_]*|\{(env|file):[^}]+\}|\$\{\{\s*(secrets|inputs)\.[\w.-]+\s*\}\}|\{\{\s*[A-Za-z_][\w.]*(:[A-Za-z_][\w.-]*)?\s*\}\}|\{\{\s*(env|getenv)\s+"[A-Za-z_][A-Za-z0-9_]*"\s*\}\}|\{\{\s*\.Env\.[A-Za-z_][A-Za-z0-9_]*\s*\}\})\s*$`,
  'i',
);
/** `${VAR:-default}` (or `${VAR-default}`) as Claude Code expands it: the default is a value written in the file. */
const DEFAULTED = new RegExp(String.raw`^\s*${AUTH_SCHEME}\$\{([A-Za-z_][A-Za-z0-9_]*):?-([^}]*)\}\s*$`, 'i');
/** A reference, or `${VAR:-}`: a value that is only ever the variable's. */
export const refersElsewhere = (v: string) => REFERENCE.test(v) || DEFAULTED.exec(v)?.[3]?.trim() === '';

export interface Read {
  e: Entry;
  stdio: boolean;
  launch: Launch | null;
  secrets: { kind: 'plaintext' | 'placeholder' | 'reference'; at: At; why: string }[];
  tlsOff: (At & { what: string }) | null;
}

export function readEntry(e: Entry, inputIds: Set<string>): Read {
  const command = typeof e.spec['command'] === 'string' && e.spec['command'] !== '' ? e.spec['command'] : null;
  // The clients take text (numbers and booleans as their text); anything else is no argument or value of theirs.
  const written = Array.isArray(e.spec['args']) ? (e.spec['args'] as unknown[]).filter(isScalar).map(String) : [];
  // A whole command line in `command` with no `args` (Bzcasper/n8n-mcp-server's `docker run --rm … n8n-mcp-server`),
  // as a client that runs it through a shell reads it; a path with spaces (`C:\Program Files\…`) is no command line.
  const line =
    command && !written.length && /\s/.test(command.trim()) && !/[\\/]/.test(command.trim().split(/\s+/)[0]!)
      ? (commandsOf(command)[0] ?? [])
      : null;
  const args = line ? line.slice(1) : written;
  const launch = command ? (line?.length ? analyseLaunch(line[0]!, args) : analyseLaunch(command, args)) : null;
  const secrets: Read['secrets'] = [];
  let tlsOff: (At & { what: string }) | null = null;
  const look = (key: string, value: string, at: At, where: string) => {
    if (turnsOffTls(key, value)) tlsOff = { ...at, what: `${key}=${value.trim()}` };
    // A flag is named as a variable is: `--access-token` as ACCESS_TOKEN, `--figma-api-key` as FIGMA_API_KEY.
    if (!holdsSecret(key, value) || value.trim() === '') return;
    // Claude Code's `${VAR:-default}`: the variable, or the default written here when it is unset.
    const fallback = DEFAULTED.exec(value);
    if (fallback) {
      const [, bearer = '', name, written] = fallback;
      if (written!.trim() === '') secrets.push({ kind: 'reference', at, why: `${where} ${key} refers to \${${name}}, with no default` });
      else look(key, `${bearer}${written}`, at, `${where} (the default of \${${name}})`);
      return;
    }
    // `GOOGLE_OAUTH_CREDENTIALS=${HOME}/.config/google-calendar-mcp/gcp-oauth.keys.json` (phatblat/dotfiles):
    // where the secret is kept, a file outside this one.
    if (FILE_PATH.test(value.trim())) {
      secrets.push({ kind: 'reference', at, why: `${where} ${key} names the file that holds it (${value.trim()})` });
      return;
    }
    if (SECRET_MANAGER_REF.test(value)) {
      secrets.push({ kind: 'reference', at, why: `${where} ${key} refers to ${value.trim()}, a secret manager's item` });
      return;
    }
    if (REFERENCE.test(value)) {
      const m = /\$\{input:([^}]+)\}/.exec(value);
      secrets.push({
        kind: 'reference',
        at,
        why: `${where} ${key} refers to ${m && inputIds.has(m[1]!) ? `the input ${m[1]}` : value.trim()}`,
      });
    } else if (isPlaceholder(value))
      secrets.push({
        kind: 'placeholder',
        at,
        why: `${where} ${key} is a placeholder ("${value.trim().slice(0, 40)}") the user replaces with the secret itself`,
      });
    else secrets.push({ kind: 'plaintext', at, why: `${where} ${key} holds a literal value` });
  };
  // `postgres://app:hunter22@db/shop`: a password in a connection URL, in an argument or a variable.
  const urlPassword = (value: string, at: At, where: string) => {
    const password = passwordInUrl(value);
    if (password !== null) look('URL_PASSWORD', password, at, `${where} (a URL with a password)`);
  };
  for (const field of ['env', 'headers', 'http_headers', 'env_http_headers']) {
    const m = e.spec[field];
    if (isObj(m))
      for (const [k, v] of Object.entries(m).filter(([, x]) => isScalar(x))) {
        look(k, String(v), e.at(field, k), field);
        if (!SECRET_NAME.test(k)) urlPassword(String(v), e.at(field, k), `${field} ${k}`);
      }
  }
  args.forEach((a, i) => {
    urlPassword(a, e.at('args', i), 'argument');
  });
  // docker run -e KEY=value and secrets in args (--api-key value, Authorization headers).
  for (const v of argumentValues(args)) look(v.key, v.value, e.at('args', v.index), v.where);
  return { e, stdio: command !== null, launch, secrets, tlsOff };
}
