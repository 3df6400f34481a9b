// What a server's own command line says about its transport, where the launch names it
// (`--transport=sse`, `--transport sse`, mcp-proxy's `--sse-port`): read, never run.
import type { At, FactSheet } from './sheet.js';
import { commandsOf, expandVariables, shellScript, unwrap } from './shell.js';

/**
 * The command a shell runs for `sh -c '…'` (MagneticDogSon/fixflow-mcp's `CMD ["sh", "-c", "uvicorn
 * … --host 0.0.0.0 --port ${PORT}"]`): the script's last command, where the server's flags are.
 */
function asRun(words: string[]): string[] {
  const script = shellScript(words);
  return ownPart(unwrap(script === null ? words : (commandsOf(script).at(-1) ?? [])));
}

/** Programs that start another server as their child: what follows their `--` is the child's command line. */
const BRIDGE_PROGRAM = /^(mcpo|mcp-proxy|supergateway|mcp-bridge)(@\S*)?$/;

/**
 * The bridge's own words: `mcpo --port 8000 -- github-mcp-server stdio` (TheLukasHenry/proxy-server)
 * listens on 8000 over HTTP; the `stdio` after `--` is its child's.
 */
function ownPart(words: string[]): string[] {
  const i = words.indexOf('--');
  return i > 0 && words.slice(0, i).some((w) => BRIDGE_PROGRAM.test(w.split('/').pop() ?? '')) ? words.slice(0, i) : words;
}

/** `parts`: what runs, in order (an entrypoint, then a command), each an array or a shell-form string. */
export function legacySse(sheet: FactSheet, at: At, ...parts: unknown[]): void {
  const words = asRun(parts.flatMap((p) => (Array.isArray(p) ? p : typeof p === 'string' ? p.split(/\s+/) : [])).map(String));
  if (transportFlag(words) === 'sse')
    sheet.set('transport.legacy_sse', true, at, `the server is started with ${said(words)}: the deprecated HTTP+SSE transport`);
  else if (words.some((w) => /^--?sse-port(=|$)/.test(w)))
    sheet.set('transport.legacy_sse', true, at, 'the command serves SSE (--sse-port)');
  // zilliztech/mcp-server-milvus's `mcp-server-milvus --sse --port 8000`.
  else if (words.some((w) => w === '--sse' || w === '-sse'))
    sheet.set(
      'transport.legacy_sse',
      true,
      at,
      `the server is started with ${words.includes('--sse') ? '--sse' : '-sse'}: the deprecated HTTP+SSE transport`,
    );
  else {
    // supergateway serves its stdio child over SSE unless --outputTransport says otherwise ("default:
    // sse with --stdio", its README; simomagazzu/mcp-shopify's `supergateway --stdio … --port $PORT`).
    const gateway = words.findIndex((w) => /^supergateway(@\S*)?$/.test(w.split('/').pop() ?? ''));
    const rest = gateway < 0 ? [] : words.slice(gateway);
    const o = rest.findIndex((w) => /^--outputTransport(=|$)/.test(w));
    if (rest.includes('--stdio') && (o < 0 || flagValue(rest, o) === 'sse'))
      sheet.set(
        'transport.legacy_sse',
        true,
        at,
        o < 0
          ? 'supergateway serves its stdio server over SSE when no --outputTransport says otherwise: the deprecated HTTP+SSE transport'
          : 'supergateway is started with --outputTransport sse: the deprecated HTTP+SSE transport',
      );
  }
}

/**
 * The address the command line tells the server to listen on, and its class: `--host 127.0.0.1`
 * (uvicorn's, rb58853/simple-mcp-server's), `--bind 0.0.0.0:8000` (gunicorn's), `--listen`;
 * loopback or every interface, null where no flag says or the value is another address.
 */
/** A server's listen flag: `--host`, `--bind`, `--listen`, Go's one-dash forms (`-host 0.0.0.0`, `-addr 127.0.0.1:8080`). */
const LISTEN_FLAG = /^(--?(host|bind|listen|bind-address|addr|http-addr|listen-addr)|-b)(=|$)/;

export function listenHost(command: string[]): { flag: string; value: string; loopback: boolean } | null {
  const words = asRun(command);
  // Go's flag package takes one dash as two (`-host 0.0.0.0`, `-addr 127.0.0.1:8080`).
  const i = words.findLastIndex((w) => LISTEN_FLAG.test(w));
  if (i < 0) return null;
  const w = words[i]!;
  const raw = w.includes('=') ? w.slice(w.indexOf('=') + 1) : (words[i + 1] ?? '');
  // `127.0.0.1:8000`, `[::1]:8000`, `0.0.0.0`: the host part.
  const host = raw.replace(/^\[([^\]]*)\](:\d+)?$/, '$1').replace(/^([^:]*):\d+$/, '$1');
  if (/^(127\.\d+\.\d+\.\d+|localhost|::1)$/i.test(host)) return { flag: w.split('=')[0]!, value: raw, loopback: true };
  if (/^(0\.0\.0\.0|::|\*)?$/.test(host) && raw !== '') return { flag: w.split('=')[0]!, value: raw, loopback: false };
  return null;
}

/**
 * What the server's own listen flag decides: loopback only (nothing past its own network namespace
 * reaches it); on the host's network (`hostNetwork`, the way the deployment says it), the host port
 * too, loopback or every interface.
 */
export function listenFacts(
  sheet: FactSheet,
  written: string[],
  at: At,
  hostNetwork: string | null,
  /** The container's variables the files fix, for `--host ${HOST}`; undefined where they do not. */
  value: (name: string) => string | undefined = () => undefined,
): void {
  const words = written.map((w) => expandVariables(w, value));
  const listen = listenHost(words);
  if (!listen) {
    // snapby/snapture-quickdata-mcp's `uvicorn … --host ${HOST}`, HOST from an env_file the files do not hold.
    const flagged = asRun(words).findLastIndex((w) => LISTEN_FLAG.test(w));
    const raw = flagged < 0 ? '' : (asRun(words)[flagged]!.split('=')[1] ?? asRun(words)[flagged + 1] ?? '');
    if (raw.includes('$'))
      sheet.reopen(
        'exposure.bind_address_class',
        `${asRun(words)[flagged]!.split('=')[0]} ${raw}: the address it listens on comes from a variable the files do not fix`,
      );
    return;
  }
  const flag = `${listen.flag} ${listen.value}`;
  if (listen.loopback) sheet.set('exposure.bind_address_class', 'loopback', at, `${flag}: the server listens on loopback only`);
  if (hostNetwork !== null)
    sheet.set(
      'container.published_ports',
      listen.loopback ? 'loopback' : 'all_interfaces',
      at,
      `${hostNetwork} and ${flag}: a host port on ${listen.loopback ? 'loopback only' : 'every interface'}`,
    );
}

/**
 * A server started with its Host check switched off: `--allowed-hosts '*'` (Playwright MCP's, in
 * scottlz0310/Mcp-Docker's compose file) takes requests for any Host name, which DNS rebinding needs.
 */
export function hostCheckOff(sheet: FactSheet, at: At, ...parts: unknown[]): void {
  const words = parts.flatMap((p) => (Array.isArray(p) ? p : typeof p === 'string' ? p.split(/\s+/) : [])).map(String);
  const i = words.findIndex((w) => w === '--allowed-hosts' || w.startsWith('--allowed-hosts='));
  const value = i < 0 ? null : words[i]!.includes('=') ? words[i]!.split('=')[1]! : (words[i + 1] ?? '');
  if (value !== null && value.replace(/["']/g, '') === '*' && !sheet.has('http.allowed_hosts_configured'))
    sheet.set('http.allowed_hosts_configured', false, at, '--allowed-hosts * takes requests for any Host name');
}

/**
 * The same switch as a variable: `MCP_V8_ALLOWED_HOSTS=*` (r33drichards/mcp-js's image, the
 * environment form of its --allowed-hosts), Django's `ALLOWED_HOSTS=*`; not an outbound allowlist such as `CLIENT_ENDPOINT_ALLOWED_HOSTS`.
 */
export function hostCheckOffByVariable(sheet: FactSheet, env: Record<string, unknown>, at: (key: string) => At): void {
  for (const [k, v] of Object.entries(env).sort(([a], [b]) => (a < b ? -1 : 1)))
    if (
      // The server's own Host list: ALLOWED_HOSTS or one named for MCP, not an outbound allowlist (CLIENT_ENDPOINT_ALLOWED_HOSTS).
      /^(ALLOWED_HOSTS|\w*MCP\w*_ALLOWED_HOSTS)$/i.test(k) &&
      String(v)
        .trim()
        .replace(/^["']|["']$/g, '') === '*' &&
      !sheet.has('http.allowed_hosts_configured')
    ) {
      sheet.set('http.allowed_hosts_configured', false, at(k), `${k}=* takes requests for any Host name`);
      return;
    }
}

/**
 * A transport flag: `--transport`, or Go's flag package's one-dash `-transport` (`-transport=sse`,
 * Protobomb/mcp-server-framework's `CMD ["-transport=http-streams"]`); `--mode` and a short `-t`
 * only with a transport's own name for its value (Jpisnice/shadcn-ui-mcp-server's `--mode sse`,
 * lreimer/gcp-mcp-server's `-t sse`).
 */
const TRANSPORT_FLAG = /^--?transport(=|$)/;
const MODE_FLAG = /^--mode(=|$)/;
const TRANSPORT_NAME = /^(sse|stdio|streamable-?http|streamable_http|streamableHttp|http-streams?)$/i;
const flagValue = (words: string[], i: number) =>
  words[i]!.includes('=') ? words[i]!.slice(words[i]!.indexOf('=') + 1) : (words[i + 1] ?? '');
const SHORT_FLAG = /^-t(=|$)/;
const transportFlagAt = (words: string[]) =>
  words.findLastIndex(
    (w, j) => TRANSPORT_FLAG.test(w) || ((MODE_FLAG.test(w) || SHORT_FLAG.test(w)) && TRANSPORT_NAME.test(flagValue(words, j))),
  );

/**
 * The value of the server's --transport flag, or null. The last --transport wins, as in argparse,
 * Go's flag package and commander; a short -t after it may be the same flag (mcp-grafana's), so
 * then the files no longer say which transport runs.
 */
function transportFlag(words: string[]): string | null {
  const i = transportFlagAt(words);
  if (i < 0) return transportWord(words);
  if (words.slice(i + 1).some((w) => w === '-t' || /^-t=/.test(w))) return null;
  return flagValue(words, i);
}

/** How the command line gives its transport: `--transport sse`, or the word `sse` alone. */
const said = (words: string[]): string => {
  const i = transportFlagAt(words);
  return i >= 0 ? `${words[i]!.split('=')[0]} ${transportFlag(words)!}` : `the transport word ${transportWord(words)!}`;
};

/**
 * A transport given as a word of its own, not a flag's value: server-everything's `sse` and
 * `streamableHttp`, skymoore/perplexica-mcp-open-webui's `python server.py sse`. `http` only as
 * the subcommand the options follow (elastic/mcp-server-elasticsearch's `CMD ["http"]` after its
 * binary): elsewhere it could be a scheme or another command's word.
 */
function transportWord(words: string[]): string | null {
  // After a bridge (`mcp-proxy --port=8000 server stdio`) the words are its child's command line.
  const bridge = words.findIndex((w) => BRIDGE_PROGRAM.test(w.split('/').pop() ?? ''));
  const i = words.findLastIndex(
    (w, j) =>
      j > 0 &&
      (bridge < 0 || j < bridge) &&
      !words[j - 1]!.startsWith('-') &&
      (/^(sse|stdio|streamable-?http|streamable_http)$/i.test(w) || (w === 'http' && words.slice(j + 1).every((x) => x.startsWith('-')))),
  );
  return i < 0 ? null : words[i]!;
}

/** Variables that turn off certificate verification for a process's outbound TLS (doctrine 1.3, egress.tls_verification_disabled). */
const TLS_OFF: [RegExp, RegExp][] = [
  [/^NODE_TLS_REJECT_UNAUTHORIZED$/, /^0$/],
  [/^PYTHONHTTPSVERIFY$/, /^0$/],
  [/^GIT_SSL_NO_VERIFY$/, /^(1|true)$/i],
  [/^CURL_INSECURE$/, /^(1|true)$/i],
  // A server's own switch, named for it (22syn/crm's OBSIDIAN_VERIFY_SSL=false, SOME_TLS_SKIP_VERIFY=true).
  // SAP_VALIDATE_SSL=false (Gheorghe-Valer/mcp), PG_SSL_REJECT_UNAUTHORIZED=false.
  [
    // Node reads only NODE_TLS_REJECT_UNAUTHORIZED=0 (above); `false` there keeps verification on.
    // Not a switch that skips it (structured-world/gitlab-mcp's SKIP_TLS_VERIFY=false keeps verification on).
    /^(?!NODE_TLS_REJECT_UNAUTHORIZED$)(?!.*(^|_)(SKIP|DISABLE|DISABLED|NO|INSECURE|IGNORE)_).*(^|_)(VERIFY_SSL|SSL_VERIFY|TLS_VERIFY|VERIFY_TLS|VERIFY_CERTS?|SSL_CERT_VERIFY|VALIDATE_SSL|SSL_VALIDATE|VALIDATE_TLS|VALIDATE_CERTS?|VERIFY_CERTIFICATES?|REJECT_UNAUTHORIZED)$/i,
    /^(0|false|no|off)$/i,
  ],
  [
    // A product's own `--insecure` as a variable (peopleforrester's ARGOCD_INSECURE=true), Vault's VAULT_SKIP_VERIFY.
    /(^|_)(SKIP_TLS_VERIFY|TLS_SKIP_VERIFY|SKIP_SSL_VERIFY|INSECURE_SKIP_VERIFY|TLS_INSECURE|SSL_INSECURE|DISABLE_SSL_VERIFICATION|DISABLE_TLS_VERIFICATION|SKIP_VERIFY)$|^[A-Z0-9]+_INSECURE$/i,
    /^(1|true|yes|on)$/i,
  ],
  // SQL Server's connection string (A-Point-Systems-ltd/ms-sql-mcp): the server's certificate is not checked.
  [/./, /(^|;)\s*TrustServerCertificate\s*=\s*(true|yes)\s*(;|$)/i],
];

/** A variable set to a value that turns off certificate verification for a process's outbound TLS. */
export const turnsOffTls = (key: string, value: string): boolean => TLS_OFF.some(([name, v]) => name.test(key) && v.test(value.trim()));

export function tlsVerification(sheet: FactSheet, env: Record<string, unknown>, at: (key: string) => At): void {
  for (const [k, v] of Object.entries(env)) {
    if (turnsOffTls(k, String(v))) {
      sheet.set('egress.tls_verification_disabled', true, at(k), `${k}=${String(v)} turns off certificate verification`);
      return;
    }
  }
}

/** Values of --transport or a TRANSPORT variable that serve over the network. */
const NETWORK_TRANSPORT = /^(https?|sse|streamable[-_]?https?|streamable|streamablehttp)$/i;
/** Servers of HTTP applications: a command that starts one serves the network, whatever the app. */
const HTTP_SERVERS = new Set(['uvicorn', 'gunicorn', 'hypercorn', 'granian', 'daphne']);

export interface TransportNamed {
  kind: 'http' | 'stdio';
  why: string;
  /** The variable that says it, where the environment does; else the command line. */
  variable?: string;
  /** The variable names the deprecated HTTP+SSE transport (`MCP_TRANSPORT=sse`); flags are legacySse's. */
  sse?: boolean;
}

/**
 * TRANSPORT, MCP_TRANSPORT, K8S_MCP_TRANSPORT, the product's own NEO4J_TRANSPORT
 * (neo4j-contrib/mcp-neo4j): not a logger's, a mailer's, a tracer's or a broker's LOG_TRANSPORT.
 */
export const isTransportVariable = (k: string): boolean =>
  // `APOLLO_MCP_TRANSPORT__TYPE`: a nested setting, `__` between the levels (figment, config-rs, pydantic-settings).
  /(^|_)TRANSPORT(__?TYPE|__?MODE|__?KIND)?$/i.test(k) &&
  // EMAIL_MCP_TRANSPORT is an MCP server's all the same.
  (/MCP/i.test(k) ||
    !/(^|_)(LOGS?|LOGGER|LOGGING|SYSLOG|MAIL|SMTP|EMAIL|OTEL|OTLP|TRACES?|TRACING|METRICS|SENTRY|CELERY|KAFKA|AMQP|NATS|BROKER|GRPC)(_|$)/i.test(
      k,
    ));

/**
 * A mode variable set to a transport (reza-gholizade/k8s-mcp-server's `SERVER_MODE=sse`,
 * reportportal's `MCP_MODE=stdio`): a transport by its value, `http` only where the name says MCP
 * (`SERVER_MODE=http` may be anything's).
 */
const modeTransport = (k: string, v: string): boolean =>
  /(^|_)MODE$/i.test(k) &&
  isTransportVariable(k.replace(/MODE$/i, 'TRANSPORT')) &&
  (/^(stdio|sse|streamable[-_]?http)$/i.test(v) || (/MCP/i.test(k) && /^https?$/i.test(v)));

/**
 * Whether a launch line starts a server of the network rather than one on stdio: an ASGI/WSGI
 * server (`python -m uvicorn app:app`, `uv run gunicorn`) or `--transport http|sse`. A port alone
 * says nothing here: a stdio server's `--port 3306` is often its database's.
 */
export function startsNetworkServer(words: string[]): string | null {
  const value = transportFlag(words);
  if (value !== null && value !== 'stdio' && NETWORK_TRANSPORT.test(value)) return `started with ${said(words)}`;
  const i = words.findIndex(
    (w, j) => HTTP_SERVERS.has(w.split('/').pop() ?? '') && (j === 0 || ['-m', 'run', 'exec', '--'].includes(words[j - 1]!)),
  );
  return i < 0 ? null : `${words[i]!.split('/').pop()} serves HTTP`;
}

/**
 * The transport a server's command line or environment names: `--transport stdio|http|sse`, a
 * port to listen on, an ASGI server, `MCP_TRANSPORT=stdio`. The command line first (it overrides
 * what a variable sets in the servers that read both); null when neither says.
 */
export function transportNamed(command: string[], env: ReadonlyMap<string, string>): TransportNamed | null {
  const words = asRun(command);
  const value = transportFlag(words);
  // `--transport=$MCP_CRON_SERVER_TRANSPORT` in a shell line (phildougherty/mcp-compose): the variable's value.
  const ref = value === null ? undefined : /^\$\{?([A-Za-z_][A-Za-z0-9_]*)\}?$/.exec(value)?.[1];
  const given = ref === undefined ? undefined : env.get(ref);
  if (ref !== undefined && given !== undefined && (given.toLowerCase() === 'stdio' || NETWORK_TRANSPORT.test(given))) {
    const why = `started with --transport $${ref}, and ${ref}=${given}`;
    return given.toLowerCase() === 'stdio'
      ? { kind: 'stdio', why, variable: ref }
      : { kind: 'http', why, variable: ref, ...(/^sse$/i.test(given) ? { sse: true } : {}) };
  }
  if (value === 'stdio') return { kind: 'stdio', why: `started with ${said(words)}` };
  if (value !== null && NETWORK_TRANSPORT.test(value)) return { kind: 'http', why: `started with ${said(words)}` };
  // Go's one-dash flags too (`-port 8080`, `-addr=:8080`).
  const port = words.find((w) => /^--?(port|sse-port|http-port|listen|addr|http-addr|listen-addr)(=|$)/.test(w));
  if (port) {
    // The port says HTTP; a transport variable beside it may say which (`MCP_TRANSPORT_MODE=sse`).
    const sse = [...env].find(([k, v]) => (isTransportVariable(k) || modeTransport(k, v)) && /^sse$/i.test(v));
    return {
      kind: 'http',
      why: `started with ${port.split('=')[0]}: it listens on a port`,
      ...(sse ? { sse: true, why: `started with ${port.split('=')[0]}: it listens on a port, and ${sse[0]}=${sse[1]}` } : {}),
    };
  }
  const program = words[0]?.split('/').pop() ?? '';
  const module = words[0] !== undefined && /^python[\d.]*$/.test(program) && words[1] === '-m' ? (words[2] ?? '') : '';
  const server = HTTP_SERVERS.has(program) ? program : HTTP_SERVERS.has(module) ? module : null;
  if (server) return { kind: 'http', why: `${server} serves HTTP` };
  for (const [k, v] of [...env].sort(([a], [b]) => (a < b ? -1 : 1))) {
    // ASP.NET Core's listen URLs (estebanjosse/mcp-server-template's `ENV ASPNETCORE_URLS=http://+:5000`):
    // the C# SDK's HTTP transport is an ASP.NET Core app.
    if (/^ASPNETCORE_(URLS|HTTP_PORTS|HTTPS_PORTS)$/.test(k) && v.trim() !== '')
      return { kind: 'http', why: `${k}=${v}: the ASP.NET Core server listens there`, variable: k };
    if (!isTransportVariable(k) && !modeTransport(k, v)) continue;
    if (v.toLowerCase() === 'stdio') return { kind: 'stdio', why: `${k}=${v}`, variable: k };
    if (NETWORK_TRANSPORT.test(v)) return { kind: 'http', why: `${k}=${v}`, variable: k, ...(/^sse$/i.test(v) ? { sse: true } : {}) };
  }
  return null;
}

/**
 * The server serves TLS itself: a certificate and its key on its command line (nirmata/kyverno-mcp's
 * `--tls-cert … --tls-key …`, uvicorn's `--ssl-certfile`/`--ssl-keyfile`, gunicorn's
 * `--certfile`/`--keyfile`). The flag naming the certificate, or null.
 */
/**
 * A certificate and its key in the server's environment (dgarcoe/dx_cluster_mcp_server's
 * `MCP_SSL_CERTFILE` and `MCP_SSL_KEYFILE`, which it hands to uvicorn; uvicorn's own `UVICORN_SSL_*`):
 * named for the server only, never for a client certificate to a datastore (`PGSSLCERT`,
 * `DB_SSL_CERT`), and OpenSSL's `SSL_CERT_FILE` is a trust store, not a certificate to serve.
 */
export function tlsVariables<V extends { value: string }>(env: ReadonlyMap<string, V>): { name: string; v: V } | null {
  const SERVER_WORD = /^(MCP\w*|\w*MCP|SERVER|HTTPS?|UVICORN|GUNICORN|HYPERCORN|WEB|APP)$/;
  const find = (suffix: RegExp) =>
    [...env].find(([k, v]) => {
      const m = new RegExp(`^((?:[A-Z0-9]+_)*)(SSL|TLS|HTTPS)_${suffix.source}$`).exec(k);
      return (
        m !== null &&
        !/^SSL_CERT_(FILE|DIR)$/.test(k) &&
        v.value.trim() !== '' &&
        !/^\$/.test(v.value) &&
        m[1]!
          .split('_')
          .filter(Boolean)
          .every((w) => SERVER_WORD.test(w))
      );
    });
  const cert = find(/(CERT|CERTFILE|CERT_FILE|CERT_PATH|CERTIFICATE|CERTIFICATE_FILE|CERTIFICATE_PATH|CRT|CRT_FILE)/);
  const key = find(/(KEY|KEYFILE|KEY_FILE|KEY_PATH|PRIVATE_KEY|PRIVATE_KEY_FILE|PRIVATE_KEY_PATH)/);
  return cert && key ? { name: cert[0], v: cert[1] } : null;
}

export function tlsFlags(command: string[]): string | null {
  const words = asRun(command);
  const cert = words.find((w) => /^--(tls-cert(-file)?|tls-crt|tls-certificate|ssl-certfile|ssl-cert|certfile|cert-file)(=|$)/.test(w));
  const key = words.some((w) => /^--(tls-key(-file)?|tls-private-key|ssl-keyfile|ssl-key|keyfile|key-file)(=|$)/.test(w));
  return cert && key ? cert.split('=')[0]! : null;
}
