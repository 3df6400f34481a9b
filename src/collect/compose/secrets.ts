// Where a Compose server's secrets come from: its environment, compose secrets, env files and
// configuration files it mounts.
import type { Context } from '../context.js';
import { imageMayHoldSecrets } from '../docker-defaults.js';
import { isHostPath } from '../host-paths.js';
import {
  AUTH_SCHEME,
  argumentValues,
  holdsSecret,
  isPlaceholder,
  passwordInUrl,
  SECRET_MANAGER_REF,
  SECRET_NAME,
  saysNoSecret,
  secretInConfig,
  TOKEN_SHAPES,
  urlPassword,
  worstSecrets,
} from '../secrets.js';
import type { At, FactSheet } from '../sheet.js';
import { readYaml, type YamlDoc } from '../yaml-lines.js';
import { parseDotenv, Unresolved } from './interpolate.js';
import { type ComposeProject, isObj, type Obj } from './load.js';
import { type Svc, str, templateWordsOf, volumesOf } from './service.js';

/** A path segment that names secrets, keys or certificates. */
const SECRET_DIR = /^(secrets?|credentials?|creds|certs?|certificates|tls|ssl|keys?|private|\.ssh|\.aws|\.kube|\.gnupg|\.docker)$/i;

/** Variables that hold a database's or a broker's connection URL, which may carry a password (`DATABASE_URL_STRING` too). */
const CONNECTION_URL_NAME =
  /(^|_)(DATABASE|DB|POSTGRES(QL)?|PG|MYSQL|MARIADB|MSSQL|SQL|MONGO(DB)?|REDIS|VALKEY|AMQP|RABBITMQ|NEO4J|CLICKHOUSE|ELASTIC(SEARCH)?|KAFKA|BROKER)_?(URL|URI|DSN|CONN(ECTION)?)(_?STR(ING)?)?$|(^|_)DSN$/i;

/** A path that names a file holding a secret, mounted into the container (`/run/secrets/db`, `/etc/app/key.pem`). */
const SECRET_FILE_PATH = /^\/(run\/secrets\/\S+|\S*\/[^\s/]+\.(json|pem|key|p12|pfx|crt|txt|ya?ml|toml))$/;

export function composeSecrets(ctx: Context, sheet: FactSheet, srv: Svc, project: ComposeProject): void {
  const spec = srv.s.spec;
  const env = isObj(spec['environment']) ? (spec['environment'] as Obj) : {};
  // What the build writes into the image (`ENV MCP_API_KEY=test-key`, TheLukasHenry/proxy-server's
  // mcp-proxy/Dockerfile) is in every container of it, whatever the service sets over it.
  const found: { kind: string; at: At; why: string }[] = (srv.df?.secretsInImage ?? [])
    .slice(0, 1)
    .map((s) => ({ kind: 'baked_into_image', at: s.at, why: s.how }));
  for (const [k, v] of Object.entries(env)) {
    // `DB_PASSWORD_FILE=/run/secrets/db`: a secret read from a mounted file (`LOG_FILE` is no secret).
    if (/_FILE$/.test(k) && SECRET_NAME.test(k.replace(/_FILE$/, '')) && typeof v === 'string' && v.startsWith('/')) {
      found.push({ kind: 'mounted_files', at: srv.s.at('environment', k), why: `${k} points at a mounted file` });
      continue;
    }
    // `GOOGLE_APPLICATION_CREDENTIALS=/root/.config/gcloud/application_default_credentials.json`
    // (osushinekotan/bigquery-mcp-server, beside its bind mount): where the secret is kept, not the secret.
    if (SECRET_NAME.test(k) && typeof v === 'string' && SECRET_FILE_PATH.test(v)) {
      found.push({
        kind: 'mounted_files',
        at: srv.s.at('environment', k),
        why: `${k} names the file that holds it (${v}), mounted into the container`,
      });
      continue;
    }
    if (!SECRET_NAME.test(k)) {
      // `postgresql://postgres:postgres@postgres/mindsdb` (mindsdb/mindsdb): a password in a connection URL,
      // written in the compose file or in the committed .env that fills its variable.
      if (typeof v === 'string' && passwordInUrl(v)) {
        const fromDotenv = srv.s
          .varsAt('environment', k)
          .map((n) => project.envAt(n))
          .find((a) => a !== null);
        found.push({
          kind: 'manifest_plaintext',
          at: fromDotenv ?? srv.s.at('environment', k),
          why: fromDotenv
            ? `${k} is a connection URL whose password is set from a value written in ${fromDotenv.file}`
            : `${k} is a connection URL with a password written in the compose file`,
        });
      }
      // A value shaped like a credential whatever names it (kagenti/mcp-gateway's test server:
      // `EXPECTED_AUTH: "Bearer test-api-key-secret-token"`).
      else if (typeof v === 'string' && TOKEN_SHAPES.test(v.trim()) && !isPlaceholder(v.replace(/^\s*Bearer\s+/i, '')))
        found.push({
          kind: 'manifest_plaintext',
          at: srv.s.at('environment', k),
          why: `${k} holds a credential by its shape, written in the compose file`,
        });
      // `mongodb://username:password@localhost:27017/database` (kiliczsh/mcp-mongo-server's example):
      // a placeholder the operator replaces, as a secret-named variable's is.
      else if (typeof v === 'string' && urlPassword(v)?.placeholder)
        found.push({
          kind: 'environment',
          at: srv.s.at('environment', k),
          why: `${k} is a connection URL whose password is a placeholder the operator replaces: where the real value is kept is not in the files`,
        });
      // `postgresql://mcpuser:${DB_PASSWORD:-changeme}@db/app`: the file's fallback is in the repository.
      else if (v instanceof Unresolved && v.fallback && passwordInUrl(v.asEmpty))
        found.push({
          kind: 'manifest_plaintext',
          at: srv.s.at('environment', k),
          why: `${k} is a connection URL whose password falls back to a value written in the compose file when ${v.variables.join(', ')} is unset`,
        });
      // `postgresql://mcpuser:${DB_PASSWORD}@postgres/mcp_system` (Dezocode/mcp-system): the password is the operator's.
      else if (v instanceof Unresolved && passwordInUrl(v.template)?.includes('${'))
        found.push({
          kind: 'environment',
          at: srv.s.at('environment', k),
          why: `${k} is a connection URL whose password comes from the operator's environment (${v.variables.join(', ')}), not from the files`,
        });
      // `DATABASE_URI=${DATABASE_URI}` (Teradata/teradata-mcp-server, whose example is
      // `teradata://user:password@host`): a connection URL from the operator's environment may carry one.
      else if (v instanceof Unresolved && v.asEmpty === '' && CONNECTION_URL_NAME.test(k))
        found.push({
          kind: 'environment',
          at: srv.s.at('environment', k),
          why: `${k}, a connection URL that may carry a password, comes from the operator's environment (${v.variables.join(', ')}), not from the files`,
        });
      continue;
    }
    const vars = srv.s.varsAt('environment', k);
    // `${PASSWORD:-Chang3d!}` with a .env the files do not hold: the compose file still carries a
    // password in clear, the one the container gets whenever that file leaves the variable unset.
    if (v instanceof Unresolved && v.fallback && v.asEmpty !== '' && !isPlaceholder(v.asEmpty)) {
      found.push({
        kind: 'manifest_plaintext',
        at: srv.s.at('environment', k),
        why: `${k} falls back to a value written in the compose file when ${v.variables.join(', ')} is unset`,
      });
      continue;
    }
    if (v instanceof Unresolved) {
      found.push({
        kind: 'environment',
        at: srv.s.at('environment', k),
        why: `${k} comes from the operator's environment (${(vars.length ? vars : v.variables.length ? v.variables : [k]).join(', ')}), not from the files`,
      });
      continue;
    }
    const value = str(v) ?? '';
    // `GRAFANA_API_KEY: op://employee/grafana/token` (aRustyDev/dotfiles): `op run` puts the item's value there.
    if (SECRET_MANAGER_REF.test(value)) {
      found.push({
        kind: 'secret_manager',
        at: srv.s.at('environment', k),
        why: `${k} refers to ${value.trim()}, a secret manager's item`,
      });
      continue;
    }
    // `APIFY_API_TOKEN: ${APIFY_API_TOKEN:-}` (tas-mcp): empty unless the operator's environment sets it;
    // so with a default that says no key is needed (chromato99/krx-rule-mcp's `${OPENAI_API_KEY:-local}`).
    if ((!value || isPlaceholder(value)) && vars.length && vars.every((n) => project.envAt(n) === null)) {
      found.push({
        kind: 'environment',
        at: srv.s.at('environment', k),
        why: `${k} comes from the operator's environment (${vars.join(', ')}) when it is set there; the file's default is ${value ? `"${value}", no secret` : 'empty'}`,
      });
      continue;
    }
    if (!value || saysNoSecret(value)) continue;
    const fromDotenv = vars.map((n) => project.envAt(n)).find((a) => a !== null);
    // `CREATE_TASK_TOKEN=<your_key>` in a committed .env (lowlyocean/mcp-vikunja): the operator
    // writes the secret in its place, somewhere the files do not show.
    if (isPlaceholder(value)) {
      found.push({
        kind: 'environment',
        at: fromDotenv ?? srv.s.at('environment', k),
        why: `${k} is a placeholder ("${value.slice(0, 40)}") the operator replaces: where the real value is kept is not in the files`,
      });
      continue;
    }
    if (fromDotenv)
      found.push({ kind: 'manifest_plaintext', at: fromDotenv, why: `${k} is set from a value written in ${fromDotenv.file}` });
    else found.push({ kind: 'manifest_plaintext', at: srv.s.at('environment', k), why: `${k} has a value written in the compose file` });
  }
  for (const s of (spec['secrets'] as unknown[]) ?? []) {
    const name = typeof s === 'string' ? s : isObj(s) ? String(s['source']) : '';
    const def = project.secrets[name];
    const committed = isObj(def) && typeof def['file'] === 'string';
    const file = committed ? String((def as Obj)['file']) : '';
    // A secret whose file is among the files read is in the repository: its value is in version control.
    const inRepo = committed && ctx.inputs.get(ctx.inputs.resolve(project.entry, file)) !== undefined;
    found.push({
      kind: inRepo ? 'manifest_plaintext' : 'mounted_files',
      at: srv.s.at('secrets'),
      why: `compose secret ${name}${committed ? ` from the file ${file}${inRepo ? ', which is among the files read' : ''}` : ''}`,
    });
  }
  // A secret on the command line (`--api-key top-secret`, `--fetch-header=…,client_secret=…`): written
  // in the compose file, or the operator's where it is a variable the files leave unset.
  for (const a of argumentValues(templateWordsOf([spec['entrypoint'], spec['command']]))) {
    const value = a.value.trim().replace(new RegExp(`^${AUTH_SCHEME}`, 'i'), '');
    if (!holdsSecret(a.key, a.value) || value === '' || saysNoSecret(value)) continue;
    const where = `the ${a.where} ${a.key}`;
    const at = srv.s.at(spec['command'] !== undefined ? 'command' : 'entrypoint');
    if (value.includes('${'))
      found.push({
        kind: 'environment',
        at,
        why: `${where} on the command line comes from the operator's environment (${value}), not from the files`,
      });
    else if (isPlaceholder(value))
      found.push({
        kind: 'environment',
        at,
        why: `${where} on the command line is a placeholder ("${value.slice(0, 40)}") the operator replaces`,
      });
    // docker/mcp-gateway's `--secrets=/run/secrets/mcp_secrets`: where the secret is kept, not the secret.
    else if (SECRET_FILE_PATH.test(value))
      found.push({ kind: 'mounted_files', at, why: `${where} on the command line names the file that holds it (${value})` });
    else found.push({ kind: 'manifest_plaintext', at, why: `${where} on the command line has a value written in the compose file` });
  }
  // An env_file among the files is read like a committed .env; one that is not may hold anything. A
  // dotenv file bind-mounted for the server to read itself (mcp_agent_mail's `./.env:/app/.env:ro`) too.
  let unreadEnvFile: string | null = null;
  const envFiles = ((Array.isArray(spec['env_file']) ? spec['env_file'] : spec['env_file'] ? [spec['env_file']] : []) as unknown[]).map(
    (e) => `env_file ${e instanceof Unresolved ? e.asEmpty : typeof e === 'string' ? e : isObj(e) ? String(e['path']) : ''}`,
  );
  const dotenvMounts = volumesOf(srv)
    .filter((v) => /^(\.{1,2}\/|\/)/.test(v.source) && /(^|\/)\.env(\.[\w-]+)?$|\.env$/.test(v.source))
    .map((v) => `the bind-mounted ${v.source}`);
  for (const what of [...envFiles, ...dotenvMounts]) {
    const p = what.replace(/^(env_file|the bind-mounted) /, '');
    const where = srv.s.at(what.startsWith('env_file') ? 'env_file' : 'volumes');
    const file = ctx.inputs.get(ctx.inputs.resolve(where.file, p));
    if (!file) {
      unreadEnvFile ??= what;
      continue;
    }
    const { values, lines } = parseDotenv(file.text);
    const secret = [...values].find(([k, v]) => SECRET_NAME.test(k) && v !== '' && !isPlaceholder(v));
    // `TOKEN=<your_key>`: the operator writes the real value in its place, where the files do not show.
    const placeholder = [...values].find(([k, v]) => SECRET_NAME.test(k) && v !== '' && isPlaceholder(v));
    if (secret)
      found.push({
        kind: 'manifest_plaintext',
        at: { file: file.path, line: lines.get(secret[0]) ?? 1 },
        why: `${secret[0]} is written in ${what}, which is among the files read`,
      });
    else if (placeholder)
      found.push(placeholderIn(placeholder[0], placeholder[1], what, { file: file.path, line: lines.get(placeholder[0]) ?? 1 }));
  }
  // A configuration file bind-mounted for the server to read (siakhooi/mcp-mariadb's
  // `./example-config.yaml:/app/config.yaml`, with `password: secret`): a secret written there is
  // in the repository; one the files do not hold may hold any.
  for (const v of volumesOf(srv).filter((x) => /^\.{1,2}\//.test(x.source) && /\.(ya?ml|json)$/i.test(x.source))) {
    const file = ctx.inputs.get(ctx.inputs.resolve(srv.s.at('volumes').file, v.source));
    if (!file) {
      unreadEnvFile ??= `the bind-mounted ${v.source}`;
      continue;
    }
    let doc: YamlDoc | undefined;
    try {
      doc = readYaml(file.text)[0];
    } catch {
      doc = undefined;
    }
    const hit = doc ? secretInConfig(doc) : null;
    const placeholder = doc && !hit ? secretInConfig(doc, 'placeholder') : null;
    if (hit)
      found.push({
        kind: 'manifest_plaintext',
        at: { file: file.path, line: hit.line },
        why: `${hit.key} is written in the bind-mounted ${v.source}, which is among the files read`,
      });
    // DrDroidLab/signoz-mcp-server's `api_key: <api_key>`, which its README has the operator edit.
    else if (placeholder)
      found.push(placeholderIn(placeholder.key, null, `the bind-mounted ${v.source}`, { file: file.path, line: placeholder.line }));
  }
  const environmentOnly = found.filter((f) => f.kind === 'environment');
  if (environmentOnly.length && environmentOnly.length === found.length) {
    sheet.undecided('container.secrets_source', environmentOnly[0]!.why);
    return;
  }
  if (!found.length && unreadEnvFile !== null) {
    sheet.undecided(
      'container.secrets_source',
      `${unreadEnvFile} is not among the files read: whether it holds secrets, and where it comes from, is not in them`,
    );
    return;
  }
  const decided = found.filter((f) => f.kind !== 'environment');
  // A bind mount named for secrets (`./credentials:/workspace/credentials`, `./certs/local:/run/…/tls`):
  // whether it holds them is not in the files, so "none" would be a guess.
  const secretDir = volumesOf(srv).find(
    (v) => isHostPath(v.source) && [v.source, v.target].some((p) => p.split(/[\\/]/).some((seg) => SECRET_DIR.test(seg))),
  );
  if (decided.length) {
    const w = worstSecrets(decided);
    sheet.set('container.secrets_source', w.kind, w.at, w.why);
  } else if (secretDir)
    sheet.undecided(
      'container.secrets_source',
      `${secretDir.source} is mounted at ${secretDir.target}, a directory named for secrets or keys: whether it holds them is not in the files`,
    );
  else if (srv.dockerfile) sheet.set('container.secrets_source', 'none', srv.s.at(), 'no secret reaches the container in the files');
  else if (srv.image) sheet.undecided('container.secrets_source', imageMayHoldSecrets(srv.image));
  // `build: ../book-api-mcp-server-dotnet`: a Dockerfile outside the files may bake one in.
  else
    sheet.undecided(
      'container.secrets_source',
      'no secret reaches the container from the files, but the Dockerfile it is built from is not among them: whether the image holds one is not in them',
    );
}

/** A secret-named setting a file leaves as a placeholder: its real value is kept where the files do not show. */
function placeholderIn(key: string, value: string | null, what: string, at: At): { kind: string; at: At; why: string } {
  return {
    kind: 'environment',
    at,
    why: `${key} in ${what} is a placeholder${value === null ? '' : ` ("${value.slice(0, 40)}")`} the operator replaces: where the real value is kept is not in the files`,
  };
}
