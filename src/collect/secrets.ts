// Where secrets reach a container, worst first: the doctrine asks for the worst way used.
import type { At } from './sheet.js';

/**
 * Variable names that hold a secret: passwords (`DB_PASS`, `SMTP_PWD` too), tokens, API and access
 * keys, and the keys that sign or encrypt (Django's and Flask's `SECRET_KEY`, Supabase's
 * `SERVICE_ROLE_KEY`), numbered too (ArrEssJay/mcp-utc-time-server's `API_KEY_1`) or as a value
 * (Proxmox's `PROXMOX_TOKEN_VALUE`); a `PUBLIC_KEY` or a
 * `CACHE_KEY` is none.
 */
export const SECRET_NAME =
  /(PASSWORDS?|PASSWD|_PASS|_PWD|SECRETS?|TOKEN|(AUTH|API|ACCESS|BEARER)_TOKENS|CREDENTIALS?|_PAT|(SECRET|API|ACCESS|PRIVATE|PRIVATE_DATA|SIGNING|ENCRYPTION|MASTER|SESSION|AUTH|LICENSE|ROLE)_?KEYS?)(_\d+|_VALUE)?$|^(PAT|.*_PAT_.*)$/i;

/**
 * The scheme an `Authorization` value may start with (RFC 9110 credentials: `Bearer`, `Token` as
 * mem0 and Django REST framework take it, `Basic`, ...), case-insensitive as schemes are.
 */
export const AUTH_SCHEME = String.raw`((?:Bearer|Token|Basic|Bot|ApiKey|Api-Key|Key|JWT|DPoP)\s+)?`;

/**
 * A value that says no secret is needed (`OPENAI_API_KEY=unused` for a local model server,
 * envoyproxy/ai-gateway's compose file): what the container gets is no secret.
 */
const NO_SECRET = new RegExp(
  String.raw`^\s*${AUTH_SCHEME}(unused|dummy|none|null|undefined|fake|local|not[-_ ]?(needed|used|required|set)|no[-_]?(key|token|auth))\s*$`,
  'i',
);
/**
 * Or a switch, not a secret: a boolean (dtkmn/mcp-zap-server's
 * `MCP_SECURITY_ALLOW_PLACEHOLDER_API_KEY: "false"`, a name that ends like a key's).
 */
export const saysNoSecret = (value: string): boolean => NO_SECRET.test(value) || /^\s*(true|false|yes|no|on|off)\s*$/i.test(value);

/**
 * A placeholder for the user to replace, or a value that says none is needed: <your-token>, YOUR_API_KEY,
 * your-api-key-here, xxx, unused, ..., or a token's prefix cut short by an ellipsis (`sk-...`,
 * `tvly-dev-...`, `github_pat_...` in Deivisan/Contexto-Pleno's configurations): no token ends so.
 */
const PLACEHOLDER = new RegExp(
  String.raw`^\s*${AUTH_SCHEME}(<[^>]*>|\[[^\]]*\]|your[_-]?\S*|\S*(YOUR|_HERE|REPLACE|CHANGE[_-]?ME|PLACEHOLDER)\S*|x{3,}|[\w-]{0,24}(\.{3,}|\u2026)|\*{3,}|ghp_x+|sk-x+|-+)\s*$`,
  'i',
);
/**
 * A placeholder in any language: capital words joined by underscores that name the secret
 * (`REMPLACEZ_PAR_VOTRE_TOKEN_VERCEL`, `DEIN_TOKEN_HIER`); a real token has digits or lower case.
 */
const WORDS = /^([A-Z]+_){2,}[A-Z]+$/;
const NAMES_SECRET = /(^|_)(TOKEN|KEY|SECRET|PASSWORD|PASSWORT|CLE|CLEF|CLAVE|CHAVE|CHIAVE|SCHLUESSEL|SCHLÜSSEL|API)(_|$)/;
/** A scheme followed by the name of what goes there (cfchase/text-to-image-demo's `"Authorization": "Bearer token"`). */
const NAMED_ONLY = /^\s*(Bearer|Token|Basic)\s+(token|secret|key|api[-_]?key|access[-_]?token|auth[-_]?token|credentials?)\s*$/i;
export const isPlaceholder = (value: string): boolean => {
  const v = value.trim().replace(new RegExp(`^${AUTH_SCHEME}`, 'i'), '');
  return saysNoSecret(value) || PLACEHOLDER.test(value) || NAMED_ONLY.test(value) || (WORDS.test(v) && NAMES_SECRET.test(v));
};

/** A secret manager's reference, resolved where it runs: 1Password's `op://vault/item/field` (`op run`, `op inject`). */
export const SECRET_MANAGER_REF = new RegExp(String.raw`^\s*${AUTH_SCHEME}op://[^\s/]+/[^\s]+\s*$`, 'i');

/**
 * The password of a connection URL (`postgres://app:hunter22@db/shop`), or null where it has none;
 * `placeholder` when it is one: `<your-password>`, `YOUR_PASSWORD`, or a documentation's template
 * pair (kiliczsh/mcp-mongo-server's `mongodb://username:password@localhost:27017/database`).
 */
export function urlPassword(value: string): { password: string; placeholder: boolean } | null {
  // JDBC's URLs put the driver after `jdbc:` (`jdbc:postgresql://u:pw@h/db`) and may pass the
  // password as a parameter (`?user=u&password=pw`, `;password=pw`).
  const v = value.trim().replace(/^jdbc:/i, '');
  const param = /^[a-z][\w+.-]*:\/\/\S*[?&;]password=([^&;\s]+)/i.exec(v);
  if (param) return { password: param[1]!, placeholder: isPlaceholder(param[1]!) };
  const m = /^[a-z][\w+.-]*:\/\/([^/\s:@]*):([^@\s/]+)@/i.exec(v);
  if (!m) return null;
  let password = m[2]!;
  try {
    password = decodeURIComponent(password);
  } catch {
    // Kept as written.
  }
  const template = /^(user|username|user_?name|login)$/i.test(m[1]!) && /^(password|pass|pwd)$/i.test(password);
  return { password, placeholder: template || isPlaceholder(password) };
}

/** The password a connection URL writes, or null where it has none or only a placeholder. */
export function passwordInUrl(value: string): string | null {
  const p = urlPassword(value);
  return p && !p.placeholder ? p.password : null;
}

const WORST_FIRST = ['baked_into_image', 'manifest_plaintext', 'config_map', 'environment', 'mounted_files', 'secret_manager'];

/** Values shaped like a credential whatever names them: a bearer token, GitHub's, OpenAI's, Slack's, GitLab's, AWS's, ours. */
export const TOKEN_SHAPES =
  /^(Bearer\s+\S{8,}|gh[pousr]_[A-Za-z0-9]{20,}|github_pat_\w{20,}|sk-[A-Za-z0-9-_]{16,}|xox[abpr]-[\w-]{10,}|glpat-[\w-]{16,}|AKIA[0-9A-Z]{16}|sgnk_\S+)$/;

/** A secret-looking name, a flag named as a variable is (`--access-token` as ACCESS_TOKEN, `client_secret`). */
// A flag named for many (`--secrets=docker-desktop`, docker/mcp-gateway's) says where secrets come
// from, not one of them; a variable named so (`AUTH_TOKENS`) holds them.
const secretNamed = (key: string) =>
  key.startsWith('-')
    ? SECRET_NAME.test(key.replace(/^-+/, '').replace(/-/g, '_')) && !/(PASSWORDS|SECRETS|TOKENS|KEYS)$/i.test(key.replace(/-/g, '_'))
    : SECRET_NAME.test(key);

/** A value given under a secret's name, as an Authorization or API-key header, or shaped like a credential. */
export const holdsSecret = (key: string, value: string): boolean =>
  secretNamed(key) || /^(authorization|x-api-key)$/i.test(key) || TOKEN_SHAPES.test(value.trim());

/** One argument of a command line that carries a value to judge as a secret: the name it is given under, the value, the word's index. */
export interface ArgumentValue {
  key: string;
  value: string;
  index: number;
  where: string;
}

/**
 * The values a command line passes under a secret's name: `docker run -e KEY=value`, `--api-key
 * value`, `--api-key=value`, `Authorization: Bearer …`, a token by its shape, and the `name=value`
 * lists some flags take (r33drichards/mcp-js's `--fetch-header=…,header=Authorization,value=Bearer
 * ${GITHUB_TOKEN}` and `…,client_id=mcp-client,client_secret=mcp-client-secret`). Each value is
 * for the caller to judge: a literal, a placeholder or a reference. `-e` pairs come with every
 * name, for the caller's other checks (TLS switched off).
 */
export function argumentValues(args: readonly string[]): ArgumentValue[] {
  const out: ArgumentValue[] = [];
  args.forEach((a, i) => {
    const kv = /^([A-Za-z_][A-Za-z0-9_]*)=(.*)$/s.exec(a);
    if (kv && (args[i - 1] === '-e' || args[i - 1] === '--env')) out.push({ key: kv[1]!, value: kv[2]!, index: i, where: 'docker -e' });
    else if (/^--?[\w-]*(token|key|secret|password)[\w-]*$/i.test(a) && args[i + 1] !== undefined && !args[i + 1]!.startsWith('-'))
      out.push({ key: a, value: args[i + 1]!, index: i + 1, where: 'argument' });
    else if (/^--?[\w-]*(token|key|secret|password)[\w-]*=/i.test(a))
      out.push({ key: a.slice(0, a.indexOf('=')), value: a.slice(a.indexOf('=') + 1), index: i, where: 'argument' });
    else if (/^Authorization:\s*/i.test(a))
      out.push({ key: 'Authorization', value: a.replace(/^Authorization:\s*/i, ''), index: i, where: 'header argument' });
    else if (TOKEN_SHAPES.test(a)) out.push({ key: 'argument', value: a, index: i, where: 'argument' });
    else {
      // `--flag=k=v,k=v` or `k=v,k=v`: a list of settings, one of them a secret or an Authorization value.
      const list = a.replace(/^--?[\w-]+=(?=[\w-]+=)/, '');
      const parts = list.split(',').map((p) => /^([A-Za-z_][\w-]*)=(.*)$/s.exec(p));
      if (parts.length < 2 || parts.some((p) => p === null)) return;
      for (const p of parts) {
        const [, k, v] = p!;
        if (secretNamed(k!) || /^(Bearer|Basic|Token)\s+\S/i.test(v!))
          out.push({ key: secretNamed(k!) ? k! : 'Authorization', value: v!, index: i, where: 'argument list' });
      }
    }
  });
  return out;
}

export function worstSecrets<T extends { kind: string; at: At; why: string }>(found: T[]): T {
  return [...found].sort((a, b) => WORST_FIRST.indexOf(a.kind) - WORST_FIRST.indexOf(b.kind))[0]!;
}

/**
 * The first secret written in a configuration file (YAML or JSON): a secret-named key with a
 * literal value, not a placeholder, a reference (`${DB_PASSWORD}`) or a value that says none is
 * needed. siakhooi/mcp-mariadb's example-config.yaml: `password: secret`.
 */
export function secretInConfig(
  doc: { value: unknown; line(path: (string | number)[]): number },
  /** `placeholder`: the first secret-named key whose value is one the operator replaces (`api_key: <api_key>`). */
  want: 'written' | 'placeholder' = 'written',
): { key: string; line: number } | null {
  const walk = (v: unknown, path: (string | number)[], depth: number): { key: string; line: number } | null => {
    if (depth > 32 || v === null || typeof v !== 'object') return null;
    for (const [k, x] of Array.isArray(v) ? v.entries() : Object.entries(v as Record<string, unknown>)) {
      const here = [...path, k];
      if (typeof k === 'string' && typeof x === 'string' && SECRET_NAME.test(k.replace(/[-.]/g, '_'))) {
        const t = x.trim();
        const written = t !== '' && !/^\$\{?[A-Za-z_]/.test(t) && !saysNoSecret(t);
        if (written && isPlaceholder(t) === (want === 'placeholder')) return { key: k, line: doc.line(here) };
      }
      const inner = walk(x, here, depth + 1);
      if (inner) return inner;
    }
    return null;
  };
  return walk(doc.value, [], 0);
}
