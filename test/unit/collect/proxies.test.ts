// biome-ignore-all lint/suspicious/noTemplateCurlyInString: nginx templates' ${VAR}, not JavaScript templates
// nginx (conf files and `nginx -T` output) and Caddy in front of an MCP server.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readDockerfile } from '../../../src/collect/dockerfile/read.js';
import { NginxConfig } from '../../../src/collect/nginx.js';
import { nginxFacts } from '../../../src/collect/nginx-facts.js';
import { imageRole } from '../../../src/collect/roles.js';
import { FactSheet } from '../../../src/collect/sheet.js';
import { collectWith, deploymentOf, fact, inline } from '../../helpers/collect.js';
import { ROOT } from '../../helpers/paths.js';

const compose = (proxyImage: string, mount: string) =>
  [
    'services:',
    '  mcp:',
    '    image: acme/mcp:1.0.0',
    '  edge:',
    `    image: ${proxyImage}`,
    '    ports: ["443:443"]',
    `    volumes: ["${mount}"]`,
  ].join('\n');

describe('nginx in front', () => {
  const conf = [
    'limit_req_zone $binary_remote_addr zone=mcp:10m rate=5r/s;',
    'limit_conn_zone $binary_remote_addr zone=conns:10m;',
    'log_format withauth \'$remote_addr "$http_authorization"\';',
    'server {',
    '    listen 443 ssl;',
    '    ssl_protocols TLSv1.2 TLSv1.3;',
    '    add_header Strict-Transport-Security "max-age=31536000" always;',
    '    access_log /var/log/nginx/access.log withauth;',
    '    error_log /var/log/nginx/error.log info;',
    '    limit_conn conns 20;',
    '    location /mcp {',
    '        limit_req zone=mcp burst=10;',
    '        limit_req_status 429;',
    '        if ($http_authorization != "Bearer s3cr3t-t0ken") { return 401; }',
    '        proxy_pass http://mcp:8000;',
    '        proxy_read_timeout 300s;',
    '    }',
    '}',
  ].join('\n');

  it('reads the MCP location as nginx inherits its directives', () => {
    const d = deploymentOf(
      collectWith(
        inline({ 'compose.yml': compose('nginx:1.27', './nginx/mcp.conf:/etc/nginx/conf.d/mcp.conf:ro'), 'nginx/mcp.conf': conf }),
      ),
      ':mcp',
    );
    expect(d.facts['tls']).toEqual({ enabled: true, min_version: '1.2', hsts: true, backend_hop: 'same_host' });
    expect(d.facts['rate_limit']).toEqual({ enabled: true, per_minute: 300, scope: 'ip', keys_on_real_client_ip: true });
    expect(fact(d, 'http.connections_per_client_limited')).toBe(true);
    // The server behind is not known to answer in one piece: a streamed answer resets the timeout at each event.
    expect(d.reasons['http.execution_deadline_seconds']).toMatch(
      /^proxy_read_timeout 300s bounds the whole call only when the server answers in one JSON body/,
    );
    expect(fact(d, 'logging.logs_authorization_header')).toBe(true);
    expect(fact(d, 'logging.edge_logs_rejected_header_values')).toBe(true);
    expect(d.facts['authentication']).toEqual({ required: true, method: 'static_bearer', static_token_location: 'repository' });
    expect(d.sources['authentication.method']![0]).toMatchObject({ file: 'nginx/mcp.conf', line: 14 });
    expect(fact(d, 'exposure.behind_reverse_proxy')).toBe(true);
  });

  it('a plain listener whose every request is redirected to HTTPS serves the MCP route over TLS only', () => {
    // devopsexpertlearning/mcp-search-server's k8s/nginx-deployment.yaml: listen 80 and 443 ssl in one
    // server block, `if ($scheme != "https") { return 301 https://$host$request_uri; }` before the locations.
    const tls = (redirect: string) =>
      deploymentOf(
        collectWith(
          inline({
            'compose.yml': compose('nginx:1.27', './nginx/mcp.conf:/etc/nginx/conf.d/mcp.conf:ro'),
            'nginx/mcp.conf': [
              'server {',
              '    listen 80;',
              '    listen 443 ssl;',
              redirect,
              '    location /mcp { proxy_pass http://mcp:8000; }',
              '}',
            ].join('\n'),
          }),
        ),
        ':mcp',
      );
    const redirected = tls('    if ($scheme != "https") { return 301 https://$host$request_uri; }');
    expect(fact(redirected, 'tls.enabled')).toBe(true);
    expect(redirected.sources['tls.enabled']![0]).toMatchObject({
      file: 'nginx/mcp.conf',
      line: 4,
      why: 'a listen of the MCP server block has no ssl, but `if ($scheme != https)` redirects every plain-HTTP request to HTTPS before the MCP route answers',
    });
    // A header the client sends is no scheme of the listener; a redirect to plain HTTP is none to HTTPS.
    for (const other of [
      '    if ($http_x_forwarded_proto != "https") { return 301 https://$host$request_uri; }',
      '    if ($scheme = http) { return 301 http://$host:8080$request_uri; }',
      '',
    ])
      expect(fact(tls(other), 'tls.enabled'), other).toBe(false);
  });

  it('reads `nginx -T` output, split back into its files, with lines in the dump', () => {
    const dump = [
      'nginx: the configuration file /etc/nginx/nginx.conf syntax is ok',
      'nginx: configuration file /etc/nginx/nginx.conf test is successful',
      '# configuration file /etc/nginx/nginx.conf:',
      'events {}',
      'http {',
      '    include /etc/nginx/conf.d/*.conf;',
      '}',
      '',
      '# configuration file /etc/nginx/conf.d/mcp.conf:',
      'server {',
      '    listen 80;',
      '    location / { proxy_pass http://mcp:8000; }',
      '}',
    ].join('\n');
    const d = deploymentOf(
      collectWith(inline({ 'compose.yml': compose('nginx:1.27', './nginx-T.txt:/dump:ro'), 'nginx-T.txt': dump })),
      ':mcp',
    );
    expect(fact(d, 'tls.enabled')).toBe(false);
    expect(d.sources['tls.enabled']![0]).toMatchObject({ file: 'nginx-T.txt', line: 11 });
    expect(fact(d, 'http.connections_per_client_limited')).toBe(false);
    expect(d.reasons['http.execution_deadline_seconds']).toMatch(/^nginx's 60 s proxy_read_timeout bounds the whole call only/);
  });
});

describe('Caddy in front', () => {
  it('automatic HTTPS, HSTS, Basic auth, and the hop to the server', () => {
    const caddyfile = [
      '(security) {',
      '    header Strict-Transport-Security "max-age=63072000"',
      '}',
      'mcp.example.org {',
      '    import security',
      '    basic_auth {',
      '        alice $2a$14$hash',
      '    }',
      '    tls {',
      '        protocols tls1.3',
      '    }',
      '    reverse_proxy mcp:8000',
      '}',
    ].join('\n');
    const d = deploymentOf(
      collectWith(inline({ 'compose.yml': compose('caddy:2.8', './Caddyfile:/etc/caddy/Caddyfile'), Caddyfile: caddyfile })),
      ':mcp',
    );
    // Caddy's ACME renews the certificate and serves the renewed one (doctrine 1.3).
    expect(d.facts['tls']).toEqual({
      enabled: true,
      min_version: '1.3',
      hsts: true,
      backend_hop: 'same_host',
      certificate_auto_renewal: true,
    });
    expect(fact(d, 'authentication.required')).toBe(true);
    // One user for every client: a shared password is static_bearer (doctrine 1.3, RFC 7617).
    expect(fact(d, 'authentication.method')).toBe('static_bearer');
    expect(d.inexpressible).toEqual([]);
    const two = deploymentOf(
      collectWith(
        inline({
          'compose.yaml': compose('caddy:2.8', './Caddyfile:/etc/caddy/Caddyfile:ro'),
          Caddyfile:
            'mcp.example.org {\n    basic_auth {\n        alice $2a$14$a\n        bob $2a$14$b\n    }\n    reverse_proxy mcp:8000\n}\n',
        }),
      ),
      ':mcp',
    );
    expect(fact(two, 'authentication.method')).toBe('http_basic');
    expect(two.sources['authentication.method']![0]!.why).toBe('basic_auth lists 2 users, each with a password');
  });

  it('nginx auth_basic: the user file is not among the files, so the method stays open', () => {
    const conf =
      'server {\n    listen 443 ssl;\n    location /mcp {\n        auth_basic "mcp";\n        auth_basic_user_file /etc/nginx/htpasswd;\n        proxy_pass http://mcp:8000;\n    }\n}\n';
    const d = deploymentOf(
      collectWith(inline({ 'compose.yaml': compose('nginx:1.27', './mcp.conf:/etc/nginx/conf.d/mcp.conf:ro'), 'mcp.conf': conf })),
      ':mcp',
    );
    expect(fact(d, 'authentication.required')).toBe(true);
    expect(fact(d, 'authentication.method')).toBeUndefined();
    expect(d.reasons['authentication.method']).toMatch(/auth_basic with \/etc\/nginx\/htpasswd: its password file is not among the files/);
  });
});

describe('the largest body the proxy lets through', () => {
  const nginxd = (conf: string, mount = './nginx/mcp.conf:/etc/nginx/conf.d/mcp.conf:ro', file = 'nginx/mcp.conf') =>
    deploymentOf(collectWith(inline({ 'compose.yml': compose('nginx:1.27', mount), [file]: conf })), ':mcp');
  const route = (extra: string) =>
    `server {\n    listen 443 ssl;\n${extra}    location /mcp {\n        proxy_pass http://mcp:8000;\n    }\n}\n`;

  it("nginx: client_max_body_size on the route, else nginx's 1m where the http block is among the files", () => {
    const set = nginxd(route('    client_max_body_size 4m;\n'));
    expect(fact(set, 'http.max_body_bytes')).toBe(4 * 1024 * 1024);
    expect(set.sources['http.max_body_bytes']![0]).toMatchObject({ file: 'nginx/mcp.conf', line: 3 });
    // A conf.d file: the http block that includes it may set a limit for every server.
    const fragment = nginxd(route(''));
    expect(fact(fragment, 'http.max_body_bytes')).toBeUndefined();
    expect(fragment.reasons['http.max_body_bytes']).toMatch(/no client_max_body_size in the server block or the MCP location/);
    const whole = nginxd(`events {}\nhttp {\n${route('')}}\n`, './nginx.conf:/etc/nginx/nginx.conf:ro', 'nginx.conf');
    expect(fact(whole, 'http.max_body_bytes')).toBe(1048576);
    expect(whole.sources['http.max_body_bytes']![0]!.why).toMatch(/nginx refuses bodies over 1m/);
    // 0 switches nginx's check off: the server's own reader is not in these files.
    expect(nginxd(route('    client_max_body_size 0;\n')).reasons['http.max_body_bytes']).toMatch(/turns the proxy's limit off/);
  });

  it('nginx: of two MCP routes, the larger limit stands', () => {
    const d = nginxd(
      'server {\n    listen 443 ssl;\n    client_max_body_size 1m;\n    location /mcp {\n        proxy_pass http://mcp:8000;\n    }\n    location /sse {\n        client_max_body_size 20m;\n        proxy_pass http://mcp:8000;\n    }\n}\n',
    );
    expect(fact(d, 'http.max_body_bytes')).toBe(20 * 1024 * 1024);
    expect(d.sources['http.max_body_bytes']![0]).toMatchObject({ line: 8 });
  });

  it('Caddy: request_body max_size around the reverse_proxy, in go-humanize units; none leaves it to the server', () => {
    const caddy = (site: string) =>
      deploymentOf(
        collectWith(inline({ 'compose.yml': compose('caddy:2.8', './Caddyfile:/etc/caddy/Caddyfile'), Caddyfile: site })),
        ':mcp',
      );
    const limited = caddy('mcp.example.org {\n    request_body {\n        max_size 10MB\n    }\n    reverse_proxy mcp:8000\n}\n');
    expect(fact(limited, 'http.max_body_bytes')).toBe(10_000_000);
    expect(limited.sources['http.max_body_bytes']![0]).toMatchObject({ file: 'Caddyfile', line: 3 });
    expect(
      fact(
        caddy(
          'mcp.example.org {\n    handle /mcp* {\n        request_body {\n            max_size 1MiB\n        }\n        reverse_proxy mcp:8000\n    }\n}\n',
        ),
        'http.max_body_bytes',
      ),
    ).toBe(1048576);
    // A limit on another route (its own matcher) is not the MCP route's.
    const other = caddy('mcp.example.org {\n    request_body /upload* {\n        max_size 1MB\n    }\n    reverse_proxy mcp:8000\n}\n');
    expect(fact(other, 'http.max_body_bytes')).toBeUndefined();
    expect(other.reasons['http.max_body_bytes']).toMatch(/Caddy sets no limit of its own/);
  });
});

describe("a proxy container's route to the server's /sse", () => {
  it('says the server serves the HTTP+SSE transport, as a host proxy does', () => {
    // berTrindade/terraform-infrastructure-blueprints' Caddyfile: `handle /sse` and `/messages*` to mcp-server:3000.
    const caddy = deploymentOf(
      collectWith(
        inline({
          'compose.yml': compose('caddy:2.8', './Caddyfile:/etc/caddy/Caddyfile'),
          Caddyfile:
            'mcp.example.org {\n    handle /sse {\n        reverse_proxy mcp:8000\n    }\n    handle /messages* {\n        reverse_proxy mcp:8000\n    }\n}\n',
        }),
      ),
      ':mcp',
    );
    expect(fact(caddy, 'transport.legacy_sse')).toBe(true);
    expect(caddy.sources['transport.legacy_sse']![0]).toMatchObject({ file: 'Caddyfile', line: 3 });
    const nginx = (path: string) =>
      deploymentOf(
        collectWith(
          inline({
            'compose.yml': compose('nginx:1.27', './nginx/mcp.conf:/etc/nginx/conf.d/mcp.conf:ro'),
            'nginx/mcp.conf': `server {\n    listen 443 ssl;\n    location ${path} {\n        proxy_pass http://mcp:8000;\n    }\n}\n`,
          }),
        ),
        ':mcp',
      );
    expect(fact(nginx('/sse'), 'transport.legacy_sse')).toBe(true);
    expect(fact(nginx('/mcp'), 'transport.legacy_sse')).toBeUndefined();
  });
});

describe("Red Hat's nginx image", () => {
  it('ubi9/nginx-124 is nginx, its version in the repository name', () => {
    // pgEdge/pgedge-postgres-mcp's Dockerfile.web.
    expect(imageRole('registry.access.redhat.com/ubi9/nginx-124:latest')).toEqual({ kind: 'proxy', product: 'nginx' });
    expect(imageRole('acme/nginx-exporter:1.0')).toBeNull();
  });
});

describe('Caddy configured by its command', () => {
  it('caddy reverse-proxy --from --to reads as the Caddyfile it stands for', () => {
    // meloncafe/chromadb-remote-mcp's docker-compose.yml: `caddy reverse-proxy --from :80 --to mcp-server:3000`.
    const tls = (from: string) => {
      const d = deploymentOf(
        collectWith(
          inline({
            'docker-compose.yml': [
              'services:',
              '  mcp-server:',
              '    image: ghcr.io/acme/mcp-server:1.0.0',
              '  caddy:',
              '    image: caddy:2',
              `    command: caddy reverse-proxy --from ${from} --to mcp-server:3000`,
              '    ports: ["80:80", "443:443"]',
              '',
            ].join('\n'),
          }),
        ),
        ':mcp-server',
      );
      return { tls: fact(d, 'tls.enabled'), hop: fact(d, 'tls.backend_hop'), at: d.sources['tls.enabled']?.[0] };
    };
    expect(tls(':80')).toMatchObject({ tls: false, hop: 'same_host', at: { file: 'docker-compose.yml', line: 6 } });
    expect(tls('mcp.example.com')).toMatchObject({ tls: true, hop: 'same_host' });
  });
});

describe('a proxy on a host whose upstream is named for MCP', () => {
  it('forwards to an MCP server whatever its site or path', () => {
    // Cronus87/ProxmoxMCP-Production's Caddyfile.prod: `your-domain.com { reverse_proxy mcp-server:8080 }`.
    const caddy = collectWith(inline({ Caddyfile: 'your-domain.com {\n    reverse_proxy mcp-server:8080\n}\n' }));
    expect(caddy.deployments.map((d) => [d.name, d.sources['transport.kind']![0]!.why])).toEqual([
      ['proxy:Caddyfile:mcp-server:8080', 'Caddy forwards every path to mcp-server:8080, an MCP server by its name'],
    ]);
    const nginx = collectWith(
      inline({
        'nginx.conf':
          'upstream mcp_backend { server app:8080; }\nserver {\n  listen 443 ssl;\n  server_name example.com;\n  ssl_certificate /c.pem;\n  ssl_certificate_key /k.pem;\n  location / { proxy_pass http://mcp_backend; }\n}\n',
      }),
    );
    expect(nginx.deployments.map((d) => [d.name, d.sources['transport.kind']![0]!.why])).toEqual([
      ['proxy:nginx.conf:mcp_backend', 'nginx forwards / to mcp_backend, an MCP server by its name'],
    ]);
    // An upstream named otherwise, behind a site and path that name nothing: no MCP server shown.
    expect(collectWith(inline({ Caddyfile: 'example.com {\n    reverse_proxy app:8080\n}\n' })).deployments).toEqual([]);
  });
});

describe("a proxy's configuration mounted from where the project is deployed on the host", () => {
  it("is the file of the repository at the tail of that path; a system path is the host's own", () => {
    // Cronus87/ProxmoxMCP-Production: caddy mounts /opt/proxmox-mcp/config/caddy/Caddyfile, the repository's config/caddy/Caddyfile.
    const caddyfile = ':80 {\n    header Access-Control-Allow-Origin *\n    reverse_proxy mcp:8000\n}\n';
    const out = (mount: string) =>
      collectWith(inline({ 'docker/compose.yml': compose('caddy:2.8', mount), 'config/caddy/Caddyfile': caddyfile }));
    const deployed = out('/opt/proxmox-mcp/config/caddy/Caddyfile:/etc/caddy/Caddyfile:ro');
    expect(deployed.deployments.map((d) => d.name)).toEqual(['compose:docker/compose.yml:mcp']);
    const d = deployed.deployments[0]!;
    expect(fact(d, 'exposure.behind_reverse_proxy')).toBe(true);
    expect(fact(d, 'tls.enabled')).toBe(false);
    expect(d.sources['tls.enabled']![0]).toMatchObject({ file: 'config/caddy/Caddyfile' });
    // The host's own /etc is not where the repository is: its file is not the one mounted.
    const system = out('/etc/config/caddy/Caddyfile:/etc/caddy/Caddyfile:ro');
    expect(JSON.stringify(deploymentOf(system, ':mcp').sources)).not.toContain('config/caddy/Caddyfile');
  });
});

describe('Traefik in front (docker labels)', () => {
  const stack = (serverPorts: string, flags = '"--entrypoints.websecure.address=:443"', env = '') =>
    inline({
      'compose.yaml': [
        'services:',
        '  traefik:',
        '    image: traefik:v3.1',
        `    command: ["--providers.docker=true", ${flags}]${env}`,
        '    ports: ["443:443"]',
        '    volumes: ["/var/run/docker.sock:/var/run/docker.sock:ro"]',
        '  mcp:',
        '    image: ghcr.io/acme/mcp:2.1.0',
        serverPorts,
        '    labels:',
        '      - traefik.enable=true',
        '      - traefik.http.routers.mcp.rule=Host(`mcp.example.org`)',
        '      - traefik.http.routers.mcp.entrypoints=websecure',
        '      - traefik.http.routers.mcp.tls.certresolver=le',
        '      - traefik.http.routers.mcp.middlewares=limit,hsts',
        '      - traefik.http.middlewares.limit.ratelimit.average=100',
        '      - traefik.http.middlewares.limit.ratelimit.period=1m',
        '      - traefik.http.middlewares.hsts.headers.stsSeconds=31536000',
      ]
        .filter(Boolean)
        .join('\n'),
    });

  it('routers, TLS, rate limit and HSTS from the labels of the server', () => {
    const d = deploymentOf(collectWith(stack('')), ':mcp');
    expect(fact(d, 'exposure.behind_reverse_proxy')).toBe(true);
    expect(d.facts['tls']).toMatchObject({ enabled: true, hsts: true, backend_hop: 'same_host' });
    expect(d.facts['rate_limit']).toEqual({ enabled: true, per_minute: 100, scope: 'ip' });
    expect(d.sources['rate_limit.per_minute']![0]).toMatchObject({ file: 'compose.yaml', line: 15 });
  });

  it('a router to a server its own command starts on stdio leaves the transport undecided', () => {
    // aRustyDev/dotfiles' .ai/mcp/deploy/global.yaml: a Traefik label beside `command: ["--transport=stdio"]`.
    const transport = (command: string) => {
      const files = stack('');
      const text = new TextDecoder()
        .decode(files[0]!.bytes)
        .replace('    image: ghcr.io/acme/mcp:2.1.0', `    image: ghcr.io/acme/mcp:2.1.0\n    command: ${command}`);
      const d = deploymentOf(collectWith(inline({ 'compose.yaml': text })), ':mcp');
      return fact(d, 'transport.kind') ?? d.reasons['transport.kind'];
    };
    expect(transport('["--transport=stdio"]')).toBe(
      'traefik forwards to mcp, which is started with --transport stdio: the files write both, and which transport runs is not in them',
    );
    expect(transport('["--transport=http"]')).toBe('http');
  });

  it("an access log that keeps the request headers logs the bearer token; Traefik's default drops them", () => {
    // atrawog/mcp-oauth-gateway's traefik/docker-compose.yml: --accesslog=true, --accesslog.fields.headers.defaultmode=keep.
    const logged = (flags: string, env = '') => {
      const d = deploymentOf(collectWith(stack('', flags, env)), ':mcp');
      return [
        fact(d, 'logging.logs_authorization_header'),
        (d.sources['logging.logs_authorization_header']?.[0] as { line?: number } | undefined)?.line,
      ];
    };
    expect(logged('"--accesslog=true", "--accesslog.fields.headers.defaultmode=keep"')).toEqual([true, 4]);
    // Authorization dropped by name, headers left at Traefik's default, or no access log: nothing decided here.
    expect(
      logged('"--accesslog=true", "--accesslog.fields.headers.defaultmode=keep", "--accesslog.fields.headers.names.Authorization=drop"')[0],
    ).toBeUndefined();
    expect(logged('"--accesslog=true"')[0]).toBeUndefined();
    expect(logged('"--accesslog=false", "--accesslog.fields.headers.defaultmode=keep"')[0]).toBeUndefined();
    // The same options as TRAEFIK_* variables.
    expect(logged('"--accesslog=true"', '\n    environment:\n      TRAEFIK_ACCESSLOG_FIELDS_HEADERS_DEFAULTMODE: keep')[0]).toBe(true);
  });

  it('a plain router that only redirects to https serves nothing over HTTP; one that serves does', () => {
    // atrawog/mcp-oauth-gateway: each service's web router uses redirect-to-https, which the Traefik container defines.
    const withRouter = (middleware: string, traefikLabels = true) =>
      deploymentOf(
        collectWith(
          inline({
            'compose.yaml': [
              'services:',
              '  traefik:',
              '    image: traefik:v3.1',
              '    ports: ["80:80", "443:443"]',
              ...(traefikLabels ? ['    labels:', '      - traefik.http.middlewares.redirect-to-https.redirectscheme.scheme=https'] : []),
              '  mcp:',
              '    image: ghcr.io/acme/mcp:2.1.0',
              '    labels:',
              '      - traefik.http.routers.mcp.rule=Host(`mcp.example.org`)',
              '      - traefik.http.routers.mcp.tls.certresolver=le',
              '      - traefik.http.routers.mcp-redirect.rule=Host(`mcp.example.org`)',
              '      - traefik.http.routers.mcp-redirect.entrypoints=web',
              ...(middleware ? [`      - traefik.http.routers.mcp-redirect.middlewares=${middleware}`] : []),
              '',
            ].join('\n'),
          }),
        ),
        ':mcp',
      );
    expect(fact(withRouter('redirect-to-https'), 'tls.enabled')).toBe(true);
    const plain = withRouter('');
    expect(fact(plain, 'tls.enabled')).toBe(false);
    expect(plain.sources['tls.enabled']![0]).toMatchObject({
      line: 12,
      why: 'router mcp-redirect has no tls: plain HTTP reaches the service',
    });
    // Defined by the file provider, or nowhere among the files: whether it redirects is not shown.
    expect(withRouter('redirect-to-https@file').reasons['tls.enabled']).toMatch(/defined outside the labels/);
    expect(withRouter('redirect-to-https', false).reasons['tls.enabled']).toMatch(/defined outside the labels/);
  });

  it("reads the middlewares of the file provider's dynamic configuration the Traefik container mounts", () => {
    // atrawog/mcp-oauth-gateway's traefik/dynamic/middlewares.yml: redirect-to-https and a CORS wildcard.
    const dynamic = [
      'http:',
      '  middlewares:',
      '    mcp-cors:',
      '      headers:',
      '        accessControlAllowOriginList:',
      '          - "*"',
      '    redirect-to-https:',
      '      redirectScheme:',
      '        scheme: https',
      '',
    ].join('\n');
    const d = deploymentOf(
      collectWith(
        inline({
          'compose.yaml': [
            'services:',
            '  traefik:',
            '    image: traefik:v3.1',
            '    command: ["--providers.file.directory=/etc/traefik/dynamic"]',
            '    ports: ["80:80", "443:443"]',
            '    volumes: ["./traefik/dynamic:/etc/traefik/dynamic:ro"]',
            '  mcp:',
            '    image: ghcr.io/acme/mcp:2.1.0',
            '    labels:',
            '      - traefik.http.routers.mcp.rule=Host(`mcp.example.org`)',
            '      - traefik.http.routers.mcp.tls.certresolver=le',
            '      - traefik.http.routers.mcp.middlewares=mcp-cors@file',
            '      - traefik.http.routers.mcp-redirect.rule=Host(`mcp.example.org`)',
            '      - traefik.http.routers.mcp-redirect.middlewares=redirect-to-https@file',
            '',
          ].join('\n'),
          'traefik/dynamic/middlewares.yml': dynamic,
        }),
      ),
      ':mcp',
    );
    expect(fact(d, 'tls.enabled')).toBe(true);
    expect(fact(d, 'http.cors_allow_any_origin')).toBe(true);
    expect(d.sources['http.cors_allow_any_origin']![0]).toMatchObject({ file: 'traefik/dynamic/middlewares.yml', line: 5 });
  });

  it('a port the server publishes itself bypasses Traefik and its TLS', () => {
    const d = deploymentOf(collectWith(stack('    ports: ["8000:8000"]')), ':mcp');
    expect(fact(d, 'exposure.behind_reverse_proxy')).toBe(false);
    expect(fact(d, 'tls.enabled')).toBe(false);
    expect(d.sources['tls.enabled']![0]!.why).toMatch(/past the proxy/);
  });
});

describe('a proxy built from a Dockerfile among the files', () => {
  // IBM/mcp-context-forge's caching proxy (test/fixtures/collect-walk names the sources): a UBI
  // base that installs nginx with microdnf, tagged mcpgateway/nginx-cache.
  const fixture = JSON.parse(readFileSync(join(ROOT, 'test/fixtures/collect-walk/nginx-built-on-ubi.json'), 'utf8')) as {
    files: Record<string, string>;
  };

  it('is the proxy its package install makes it, not an MCP server because its tag names MCP', () => {
    const c = collectWith(inline(fixture.files));
    expect(c.deployments.map((d) => d.name)).toEqual(['compose:docker-compose.yml:gateway']);
    const gateway = c.deployments[0]!;
    // nginx publishes the port; the gateway publishes none, so clients reach it only through nginx.
    expect(fact(gateway, 'exposure.behind_reverse_proxy')).toBe(true);
    expect(gateway.sources['exposure.behind_reverse_proxy']![0]!.why).toMatch(/^nginx \(nginx\) forwards to gateway/);
  });

  it('reads which proxy a distribution package installs, whatever version it pins, and no other package', () => {
    const installed = (run: string) =>
      readDockerfile('Dockerfile', `FROM debian:trixie-slim\nRUN ${run}\n`).proxyInstalled?.product ?? null;
    expect(installed('microdnf install -y nginx curl-minimal ca-certificates && microdnf clean all')).toBe('nginx');
    expect(installed('apt-get update && apt-get install -y --no-install-recommends nginx=1.26.* && rm -rf /var/lib/apt/lists/*')).toBe(
      'nginx',
    );
    expect(installed('apk add --no-cache haproxy')).toBe('haproxy');
    expect(installed('apt-get install -y prometheus-nginx-exporter curl')).toBeNull();
    expect(installed('apt-get download nginx')).toBeNull();
    expect(installed('echo apt-get install nginx')).toBeNull();
    // A proxy installed in a build stage the final image does not build on is not in it.
    expect(
      readDockerfile(
        'Dockerfile',
        'FROM debian:trixie-slim AS tools\nRUN apt-get install -y nginx\nFROM node:24-trixie-slim\nCMD ["node", "server.js"]\n',
      ).proxyInstalled,
    ).toBeNull();
  });
});

describe('nginx on a host: each configuration on its own', () => {
  // mcp-ecosystem/mcp-gateway keeps deploy/docker/allinone/nginx.conf and deploy/docker/multi/nginx.conf:
  // two deployments' configurations, which nginx never reads together.
  const conf = (errorLog: string, include = '') =>
    `events {}\nhttp {\n    error_log /dev/stderr ${errorLog};\n${include}    server {\n        listen 80;\n        location /mcp/ {\n            proxy_pass http://127.0.0.1:5235/;\n        }\n    }\n}\n`;
  const out = collectWith(
    inline({
      'allinone/nginx.conf': conf('error'),
      'multi/nginx.conf': conf('info', '    include conf.d/*.conf;\n'),
      'multi/conf.d/limits.conf': 'limit_conn_zone $binary_remote_addr zone=per_ip:10m;\n',
      'elsewhere/site.conf': 'server {\n    listen 443 ssl;\n    location /sse {\n        proxy_pass http://10.0.0.5:8000;\n    }\n}\n',
    }),
  );

  it('one deployment per configuration; a directive of one never counts in another', () => {
    expect(out.deployments.map((d) => d.name)).toEqual([
      'proxy:allinone/nginx.conf:127.0.0.1:5235',
      'proxy:elsewhere/site.conf:10.0.0.5:8000',
      'proxy:multi/nginx.conf:127.0.0.1:5235',
    ]);
    const named = (prefix: string) => out.deployments.find((d) => d.name.startsWith(`proxy:${prefix}/`))!;
    expect(named('allinone').sources['logging.edge_logs_rejected_header_values']![0]!.why).toBe('error_log level error');
    expect(fact(named('allinone'), 'logging.edge_logs_rejected_header_values')).toBe(false);
    expect(fact(named('multi'), 'logging.edge_logs_rejected_header_values')).toBe(true);
    expect(fact(named('elsewhere'), 'transport.legacy_sse')).toBe(true);
  });
});

describe('an nginx configuration with a directive continued over lines', () => {
  it('is nginx by its blocks, though a continued line looks like key=value; an INI file is not', () => {
    // IBM/mcp-context-forge's infra/nginx/nginx.conf:122-126.
    const conf =
      'events {}\nhttp {\n    proxy_cache_path /var/cache/nginx/api\n                     levels=1:2\n                     keys_zone=api_cache:10m;\n    server {\n        listen 80;\n        location /mcp {\n            proxy_pass http://127.0.0.1:4444;\n        }\n    }\n}\n';
    const out = collectWith(
      inline({ 'infra/nginx/nginx.conf': conf, 'supervisor/app.conf': '[program:app]\ncommand=python server.py\nautostart=true\n' }),
    );
    expect(out.files.map((f) => [f.path, f.kind])).toEqual([
      ['infra/nginx/nginx.conf', 'nginx'],
      ['supervisor/app.conf', 'other'],
    ]);
    expect(fact(out.deployments[0]!, 'tls.enabled')).toBe(false);
  });
});

describe('nginx on a host forwarding through an upstream block', () => {
  it("reaches the server on the same host when the upstream's servers are loopback", () => {
    const hop = (server: string) =>
      fact(
        collectWith(
          inline({
            'nginx.conf': `events {}\nhttp {\n  upstream app { server ${server}; }\n  server {\n    listen 80;\n    location /mcp { proxy_pass http://app; }\n  }\n}\n`,
          }),
        ).deployments[0]!,
        'tls.backend_hop',
      );
    expect(hop('127.0.0.1:3000')).toBe('same_host');
    expect(hop('10.0.0.7:3000')).toBeUndefined();
  });
});

describe("an error_log in nginx's main context", () => {
  it('is inherited by every server below it, as nginx inherits it', () => {
    // LAB271/mcp-studies' nginx-gateway.conf:7: `error_log /var/log/nginx/error.log warn;` above `events` and `http`.
    const level = (main: string) => {
      const d = collectWith(
        inline({
          'nginx.conf': `${main}events {}\nhttp {\n    server {\n        listen 80;\n        location /mcp {\n            proxy_pass http://127.0.0.1:8000;\n        }\n    }\n}\n`,
        }),
      ).deployments[0]!;
      return [fact(d, 'logging.edge_logs_rejected_header_values'), d.sources['logging.edge_logs_rejected_header_values']?.[0]];
    };
    expect(level('error_log /var/log/nginx/error.log warn;\n')).toEqual([
      false,
      { file: 'nginx.conf', line: 1, why: 'error_log level warn' },
    ]);
    expect(level('error_log /var/log/nginx/error.log debug;\n')[0]).toBe(true);
  });
});

describe('an nginx image template that no container mounts', () => {
  it('is no host configuration: no host nginx fills in its variables', () => {
    // HarderBetterFasterStronger/config-1mcp's proxy/nginx.conf.token.template, an alternative its compose file leaves commented out.
    const template = 'server {\n    listen 8080;\n    location /mcp {\n        proxy_pass http://1mcp:${ONE_MCP_PORT};\n    }\n}\n';
    const out = collectWith(inline({ 'proxy/nginx.conf.token.template': template }));
    expect(out.deployments).toEqual([]);
    expect(out.notes).toContainEqual({
      file: 'proxy/nginx.conf.token.template',
      what: "an nginx image template (the image's envsubst step fills in its variables) that no container among the files mounts: not read",
    });
    // A host's own configuration, whatever its name, is read.
    expect(collectWith(inline({ 'sites/mcp.conf': template.replace('1mcp:${ONE_MCP_PORT}', '127.0.0.1:8000') })).deployments).toHaveLength(
      1,
    );
  });
});

describe("a host's server block that includes its MCP routes from another directory", () => {
  // mabi8/mcp-stack: deploy/nginx/box.makkib.com.conf includes /etc/nginx/mcp.d/*.conf, kept in
  // deploy/nginx/mcp.d/, whose locations forward /mcp and /vps/mcp to servers on the host.
  const files = {
    'deploy/nginx/box.conf':
      'server {\n    listen 443 ssl;\n    server_name box.example.com;\n    ssl_certificate /etc/ssl/box.pem;\n    ssl_certificate_key /etc/ssl/box.key;\n    include /etc/nginx/mcp.d/*.conf;\n}\n',
    'deploy/nginx/mcp.d/centerdevice.conf': 'location /mcp {\n    proxy_pass http://127.0.0.1:9543;\n}\n',
    'deploy/nginx/mcp.d/vps.conf': 'location /vps/mcp {\n    proxy_pass http://127.0.0.1:9445/mcp;\n}\n',
    'deploy/nginx/other.d/ignored.conf': 'location /mcp {\n    proxy_pass http://127.0.0.1:7000;\n}\n',
  };

  it('reads them with it: one deployment per server, from the directory the include names', () => {
    const out = collectWith(inline(files));
    expect(out.deployments.map((d) => d.name)).toEqual([
      'proxy:deploy/nginx/mcp.d/centerdevice.conf:127.0.0.1:9543',
      'proxy:deploy/nginx/mcp.d/vps.conf:127.0.0.1:9445',
    ]);
    expect(out.deployments[0]!.sources['transport.kind']![0]).toMatchObject({ file: 'deploy/nginx/mcp.d/centerdevice.conf', line: 1 });
    // Another port of the same host is another server: its routes lend this one nothing.
    expect(out.deployments[1]!.sources['tls.backend_hop']![0]).toMatchObject({ file: 'deploy/nginx/mcp.d/vps.conf', line: 2 });
  });
});

describe('nginx with several MCP routes to one server: the weakest decides', () => {
  // firecrawl/firecrawl-mcp-server's docker/nginx.conf: metadata, /v2/mcp, a key-in-path alias and
  // /sse all reach the app; one route limited and another not is an open door.
  const conf = [
    'events {}',
    'http {',
    '  limit_req_zone $binary_remote_addr zone=per_ip:10m rate=60r/m;',
    '  server {',
    '    listen 8080;',
    '    location = /.well-known/oauth-protected-resource/mcp {',
    '      proxy_read_timeout 5s;',
    '      proxy_pass http://127.0.0.1:3000;',
    '    }',
    '    location = /mcp {',
    '      limit_req zone=per_ip;',
    '      proxy_read_timeout 60s;',
    '      proxy_pass http://127.0.0.1:3000;',
    '    }',
    '    location ~ ^/(?<apikey>[^/]+)/mcp/?$ {',
    '      limit_req zone=per_ip;',
    '      proxy_read_timeout 60s;',
    '      proxy_set_header X-Api-Key $apikey;',
    '      proxy_pass http://127.0.0.1:3000;',
    '    }',
    '    location /sse {',
    '      proxy_read_timeout 620s;',
    '      proxy_pass http://127.0.0.1:3000;',
    '    }',
    '  }',
    '}',
    '',
  ].join('\n');
  const lines = conf.split('\n');
  const at = (re: RegExp) => lines.findIndex((l) => re.test(l)) + 1;
  const d = collectWith(inline({ 'nginx.conf': conf })).deployments[0]!;

  it('the longest deadline and a key in the URL stand at their routes; a limit on some routes only is open', () => {
    expect(d.name).toBe('proxy:nginx.conf:127.0.0.1:3000');
    expect(fact(d, 'http.execution_deadline_seconds')).toBeUndefined();
    // In front of a server that answers in one piece (Signet), the longest route's timeout is the deadline.
    const sheet = new FactSheet('proxy');
    nginxFacts(sheet, new NginxConfig([{ path: 'nginx.conf', text: conf }]), {
      targets: ['127.0.0.1'],
      platform: 'host',
      facesClients: true,
      answersInOnePiece: true,
    });
    const whole = sheet.finish(undefined);
    expect(fact(whole, 'http.execution_deadline_seconds')).toBe(620);
    expect(whole.sources['http.execution_deadline_seconds']![0]).toMatchObject({ line: at(/620s/) });
    expect(fact(d, 'authentication.keys_in_query_string')).toBe(true);
    expect(d.sources['authentication.keys_in_query_string']![0]).toMatchObject({ line: at(/X-Api-Key/) });
    expect(fact(d, 'transport.legacy_sse')).toBe(true);
    expect(fact(d, 'rate_limit.enabled')).toBeUndefined();
    expect(d.reasons['rate_limit.enabled']).toMatch(/^the MCP routes differ: = \/mcp .* shows true, \/sse \(nginx.conf:\d+\) does not say/);
  });

  it('routes that agree decide as one, cited at the first; the metadata route is no MCP route', () => {
    const one = collectWith(
      inline({
        'nginx.conf': conf.replace('      proxy_read_timeout 620s;\n', '      limit_req zone=per_ip;\n      proxy_read_timeout 60s;\n'),
      }),
    ).deployments[0]!;
    expect(fact(one, 'rate_limit.enabled')).toBe(true);
    expect(one.sources['rate_limit.enabled']![0]).toMatchObject({ line: at(/limit_req zone=per_ip;/) });
    expect(one.reasons['http.execution_deadline_seconds']).toMatch(/^proxy_read_timeout 60s bounds the whole call only/);
  });
});

describe('a catch-all of another server block that forwards to the same server', () => {
  // jrmatherly/MCP-Platform's docker/nginx: gateway.conf serves /mcp for its domain with HSTS and a
  // limit; nginx.conf's default_server forwards every path, /mcp/… included, with neither.
  const conf = (fallback: string) =>
    [
      'events {}',
      'http {',
      '  limit_req_zone $binary_remote_addr zone=api:10m rate=100r/m;',
      '  upstream mcp_gateway_backend {',
      '    server 127.0.0.1:8080;',
      '  }',
      '  server {',
      '    listen 443 ssl;',
      '    server_name gateway.example.com;',
      '    ssl_certificate /etc/ssl/gw.pem;',
      '    ssl_certificate_key /etc/ssl/gw.key;',
      '    add_header Strict-Transport-Security "max-age=63072000" always;',
      '    location /mcp/ {',
      '      limit_req zone=api;',
      '      proxy_pass http://mcp_gateway_backend;',
      '    }',
      '  }',
      '  server {',
      '    listen 443 ssl default_server;',
      '    ssl_certificate /etc/ssl/gw.pem;',
      '    ssl_certificate_key /etc/ssl/gw.key;',
      `    location / {\n      proxy_pass ${fallback};\n    }`,
      '  }',
      '}',
      '',
    ].join('\n');
  const facts = (fallback: string) => {
    const d = collectWith(inline({ 'nginx.conf': conf(fallback) })).deployments[0]!;
    return { hsts: fact(d, 'tls.hsts'), limited: fact(d, 'rate_limit.enabled') };
  };

  it('is an MCP route too: the weakest decides', () => {
    const both = facts('http://mcp_gateway_backend');
    expect(both.hsts).toBe(false);
    expect(both.limited).toBeUndefined();
    // A catch-all to another server lends this one nothing.
    expect(facts('http://127.0.0.1:9000')).toMatchObject({ hsts: true, limited: true });
  });
});

describe('a proxy whose routes name neither the server nor an alias of it', () => {
  // agentic-community/mcp-gateway-registry: the registry's nginx forwards to the registry itself
  // (127.0.0.1:7860), its auth service and a public API; the MCP servers' routes are commented out.
  const project = (routes: string, mcp = '', registry = '') =>
    collectWith(
      inline({
        'compose.yaml': [
          'services:',
          '  registry:',
          '    image: nginx:1.30-trixie',
          '    ports: ["80:80"]',
          '    volumes: ["./nginx.conf:/etc/nginx/conf.d/default.conf:ro"]',
          registry,
          '  auth-server:',
          '    image: acme/auth:1.0.0',
          '  mcp:',
          '    image: acme/mcp:1.0.0',
          mcp,
          '',
        ].join('\n'),
        'nginx.conf': `server {\n    listen 80;\n${routes}}\n`,
      }),
    ).deployments.find((d) => d.name.endsWith(':mcp'))!;
  const own =
    '    location / {\n        proxy_pass http://127.0.0.1:7860/;\n    }\n    location /validate {\n        proxy_pass http://auth-server:8888/validate;\n    }\n    location /tsbedrock/ {\n        proxy_pass https://api.example.com/prod/;\n    }\n';

  it('is not in front of the server and lends it none of its routes', () => {
    expect(project(own).sources['tls.enabled']).toBeUndefined();
    expect(fact(project(own), 'exposure.behind_reverse_proxy')).toBe(false);
    expect(project(own).sources['exposure.behind_reverse_proxy']![0]!.why).toBe('no proxy of the project forwards to the server');
  });

  it('a route to a name no service answers to reaches nothing, unless the project is open to others', () => {
    const routes = `${own}    location /mcp {\n        proxy_pass http://backend:8000;\n    }\n`;
    expect(fact(project(routes), 'exposure.behind_reverse_proxy')).toBe(false);
    // The server's network alias, or a network from outside the files that may hold that name.
    const aliased = project(routes, '    networks:\n      default:\n        aliases: [backend]');
    expect(fact(aliased, 'tls.enabled')).toBe(false);
    expect(aliased.sources['tls.enabled']![0]).toMatchObject({ file: 'nginx.conf' });
    expect(fact(aliased, 'exposure.behind_reverse_proxy')).toBe(true);
    const open = project(routes, '', '    external_links: [backend]');
    expect(fact(open, 'exposure.behind_reverse_proxy')).toBe(true);
  });
});

describe("Traefik's configuration by its own keys", () => {
  it("providers: naming Traefik's providers is Traefik's; Grafana's list and an OAuth map of identity providers are not", () => {
    const out = collectWith(
      inline({
        'traefik/traefik.yml': 'providers:\n  # labels of the containers\n  docker:\n    exposedByDefault: false\n',
        // IBM/mcp-context-forge's Grafana provisioning, agentic-community/mcp-gateway-registry's identity providers.
        'grafana/provisioning/dashboards/dashboards.yaml': "apiVersion: 1\n\nproviders:\n  - name: 'default'\n    type: file\n",
        'auth_server/oauth2_providers.yml': 'providers:\n  keycloak:\n    enabled: true\n',
      }),
    );
    expect(out.files.map((f) => [f.path, f.kind])).toEqual([
      ['auth_server/oauth2_providers.yml', 'other'],
      ['grafana/provisioning/dashboards/dashboards.yaml', 'other'],
      ['traefik/traefik.yml', 'traefik'],
    ]);
  });

  it("[providers.docker] in TOML is Traefik's; another tool's [providers.X] table is not", () => {
    // 1natsu172/dotfiles' .config/fnox/config.toml, voznik/dotfiles' .config/walker/config.toml.
    const out = collectWith(
      inline({
        'traefik.toml': '[entryPoints.web]\n  address = ":80"\n[providers.docker]\n  exposedByDefault = false\n',
        'static.toml': '[providers.file]\n  directory = "/etc/traefik/dynamic"\n',
        '.config/fnox/config.toml': '[providers.age]\ntype = "age"\n',
        '.config/walker/config.toml': '[providers.prefixes]\nprefix = "/"\n',
      }),
    );
    expect(out.files.map((f) => [f.path, f.kind])).toEqual([
      ['.config/fnox/config.toml', 'other'],
      ['.config/walker/config.toml', 'other'],
      ['static.toml', 'traefik'],
      ['traefik.toml', 'traefik'],
    ]);
  });
});

describe('a proxy on a host whose server or site is named for MCP', () => {
  // Jacques-Murray/mcp-qbit-server's examples: `server_name mcp-qbit.example.com` with `location /`, and the
  // Caddyfile's `mcp-qbit.example.com { reverse_proxy localhost:8000 }`.
  const nginx = (name: string) =>
    [
      'server {',
      '    listen 443 ssl;',
      `    server_name ${name};`,
      '    location / {',
      '        proxy_pass http://localhost:8000;',
      '    }',
      '}',
    ].join('\n');
  const caddy = (site: string) => `${site} {\n    reverse_proxy localhost:8000\n}\n`;
  const names = (files: Record<string, string>) => collectWith(inline(files)).deployments.map((d) => d.name);

  it('forwards every route to an MCP server; a name with mcp only inside a word does not', () => {
    expect(names({ 'sites/mcp.conf': nginx('mcp-qbit.example.com') })).toEqual(['proxy:sites/mcp.conf:localhost:8000']);
    expect(names({ Caddyfile: caddy('mcp.tillmaessen.de') })).toEqual(['proxy:Caddyfile:localhost:8000']);
    // SlobodaFR/home-remote-mcps's deploy/Caddyfile.
    expect(names({ Caddyfile: caddy('remote-mcps.sloboda.fr') })).toEqual(['proxy:Caddyfile:localhost:8000']);
    const d = collectWith(inline({ Caddyfile: caddy('mcp.tillmaessen.de') })).deployments[0]!;
    expect(d.sources['transport.kind']![0]!.why).toBe('Caddy forwards every path of a site named for MCP to an MCP server');
    for (const other of ['app.example.com', 'assets.example.com', 'mcpx.example.com'])
      expect(names({ 'sites/app.conf': nginx(other), Caddyfile: caddy(other) }), other).toEqual([]);
  });
});

describe('an nginx configuration a Dockerfile copies into its image', () => {
  it("is that container's proxy, not one on a host", () => {
    // firecrawl/firecrawl-mcp-server's Dockerfile.service installs nginx and copies docker/nginx.conf beside the server.
    const out = collectWith(
      inline({
        'package.json': '{"dependencies":{"@modelcontextprotocol/sdk":"1.20.0"}}',
        'Dockerfile.service':
          'FROM node:22-slim\nRUN apt-get update && apt-get install -y nginx\nCOPY package.json ./\nRUN npm install\nCOPY docker/nginx.conf /etc/nginx/nginx.conf\nCMD ["sh", "-c", "nginx && node dist/index.js"]\n',
        'docker/nginx.conf':
          'events {}\nhttp {\n  upstream app { server 127.0.0.1:3000; }\n  server {\n    listen 8080;\n    location /mcp { proxy_pass http://app; }\n  }\n}\n',
      }),
    );
    expect(out.deployments.map((d) => d.name)).toEqual(['image:Dockerfile.service']);
    expect(out.notes).toContainEqual({
      file: 'docker/nginx.conf',
      what: "a proxy configuration Dockerfile.service copies into its image: that container's proxy, not one on a host; not read as a host's",
    });
  });
});

describe('a bridge in front of a stdio server, behind a proxy', () => {
  it("serves HTTP itself: the stdio after its -- is its child's", () => {
    // TheLukasHenry/proxy-server's mcp-github: `mcpo --port 8000 … -- github-mcp-server stdio` behind Caddy.
    const d = deploymentOf(
      collectWith(
        inline({
          'compose.yaml':
            'services:\n  caddy:\n    image: caddy:2.8\n    ports: ["443:443"]\n    volumes: ["./Caddyfile:/etc/caddy/Caddyfile:ro"]\n  mcp-github:\n    build: .\n    command: ["mcp-proxy", "--port=8000", "--host=0.0.0.0", "--", "/usr/local/bin/github-mcp-server", "stdio"]\n',
          Dockerfile: 'FROM python:3.12-slim\nRUN pip install mcp-proxy==0.8.2\nUSER 1000\n',
          Caddyfile: 'mcp.example.com {\n\treverse_proxy mcp-github:8000\n}\n',
        }),
      ),
      ':mcp-github',
    );
    expect(fact(d, 'transport.kind')).toBe('http');
    // Without `--` too: mcp-proxy takes its child's command line after its own flags.
    const plain = deploymentOf(
      collectWith(
        inline({
          'compose.yaml':
            'services:\n  caddy:\n    image: caddy:2.8\n    ports: ["443:443"]\n    volumes: ["./Caddyfile:/etc/caddy/Caddyfile:ro"]\n  mcp-github:\n    image: acme/github-mcp:1.0.0\n    command: ["mcp-proxy", "--port=8000", "--host=0.0.0.0", "github-mcp-server", "stdio"]\n',
          Caddyfile: 'mcp.example.com {\n\treverse_proxy mcp-github:8000\n}\n',
        }),
      ),
      ':mcp-github',
    );
    expect(fact(plain, 'transport.kind')).toBe('http');
  });
});

describe('nginx whose proxy_pass is a variable a map sets', () => {
  it('forwards to the places the map names, and to no other service', () => {
    // IBM/mcp-context-forge's nginx.conf: `proxy_pass $gateway_backend_url`, mapped to http://gateway:4444.
    const out = collectWith(
      inline({
        'compose.yaml':
          'services:\n  nginx:\n    image: nginx:1.27\n    ports: ["8080:80"]\n    volumes: ["./nginx/nginx.conf:/etc/nginx/nginx.conf:ro"]\n  gateway:\n    image: acme/mcp-gateway:1.0.0\n  time_mcp:\n    image: acme/time-mcp-server:1.0.0\n    ports: ["8888:9080"]\n',
        'nginx/nginx.conf':
          'events {}\nhttp {\n    map "" $gateway_backend_url {\n        default "http://gateway:4444";\n    }\n    server {\n        listen 80;\n        location /mcp {\n            proxy_pass $gateway_backend_url;\n        }\n    }\n}\n',
      }),
    );
    expect(fact(deploymentOf(out, ':gateway'), 'exposure.behind_reverse_proxy')).toBe(true);
    const time = deploymentOf(out, ':time_mcp');
    expect(fact(time, 'exposure.behind_reverse_proxy')).toBe(false);
    expect(fact(time, 'tls.backend_hop')).toBeUndefined();
  });
});

describe('nginx in front of a service that names an image and a build', () => {
  it("keeps what the proxy's configuration decides when the pulled image reopens the build's facts", () => {
    // IBM/mcp-context-forge: nginx's infra/nginx/nginx.conf in front of `image: mcpgateway/mcpgateway:latest` with a build.
    const d = deploymentOf(
      collectWith(
        inline({
          'docker-compose.yml':
            'services:\n  nginx:\n    image: nginx:1.27\n    ports: ["8080:80"]\n    volumes: ["./nginx/nginx.conf:/etc/nginx/nginx.conf:ro"]\n  gateway:\n    image: acme/mcpgateway:latest\n    build:\n      context: .\n      dockerfile: Containerfile\n    command: ["mcpgateway", "--host", "0.0.0.0", "--port", "4444"]\n',
          'nginx/nginx.conf':
            'events {}\nhttp {\n  server {\n    listen 80;\n    location /mcp { proxy_pass http://gateway:4444; }\n  }\n}\n',
          Containerfile: 'FROM python:3.12-slim\nRUN pip install mcp==1.9.0\nUSER 1000\n',
        }),
      ),
      ':gateway',
    );
    expect([fact(d, 'exposure.behind_reverse_proxy'), fact(d, 'tls.enabled')]).toEqual([true, false]);
    expect(fact(d, 'supply_chain.builds_server')).toBeUndefined();
  });
});

describe('a proxy of a compose project that forwards only a catch-all', () => {
  it('makes no service an MCP server on a walk; a route or site named for MCP does', () => {
    // trufnetwork/node's dev-gateway: nginx `location / { proxy_pass http://kwil-gateway:8090; }`, and
    // deployments/indexer/Caddyfile's `:80 { reverse_proxy http://indexer:1337 }`: REST services.
    const stack = (proxy: string, mount: string, conf: string) =>
      collectWith(
        inline({
          'compose.yaml': `services:\n  gateway:\n    image: acme/gateway:1.0.0\n  edge:\n    image: ${proxy}\n    ports: ["80:80"]\n    volumes: ["./${mount}"]\n`,
          [mount.split(':')[0]!]: conf,
        }),
        { named: [] },
      ).deployments.map((d) => d.name);
    const nginx = (path: string) => `server {\n    listen 80;\n    location ${path} {\n        proxy_pass http://gateway:8090;\n    }\n}\n`;
    expect(stack('nginx:1.27', 'default.conf:/etc/nginx/conf.d/default.conf', nginx('/'))).toEqual([]);
    expect(stack('nginx:1.27', 'default.conf:/etc/nginx/conf.d/default.conf', nginx('/mcp'))).toEqual(['compose:compose.yaml:gateway']);
    expect(stack('caddy:2.8', 'Caddyfile:/etc/caddy/Caddyfile', ':80 {\n    reverse_proxy http://gateway:8090\n}\n')).toEqual([]);
    // An upstream block or a site address from the environment named for MCP names it too.
    expect(
      stack(
        'nginx:1.27',
        'default.conf:/etc/nginx/conf.d/default.conf',
        'upstream mcp_backend { server gateway:8090; }\nserver {\n    listen 80;\n    location / {\n        proxy_pass http://mcp_backend;\n    }\n}\n',
      ),
    ).toEqual(['compose:compose.yaml:gateway']);
    expect(stack('caddy:2.8', 'Caddyfile:/etc/caddy/Caddyfile', '{$MCP_DOMAIN} {\n    reverse_proxy gateway:8090\n}\n')).toEqual([
      'compose:compose.yaml:gateway',
    ]);
    expect(stack('caddy:2.8', 'Caddyfile:/etc/caddy/Caddyfile', 'mcp.example.com {\n    reverse_proxy http://gateway:8090\n}\n')).toEqual([
      'compose:compose.yaml:gateway',
    ]);
  });
});

describe("Caddy's named matchers on a host", () => {
  it('a route through @name takes the paths the matcher names', () => {
    // trufnetwork/node's docs/examples/mcp-reverse-proxy/Caddyfile.windows.example:10-11.
    const d = (site: string) => collectWith(inline({ 'Caddyfile.windows.example': site })).deployments;
    const oneLine = d(':8080 {\n    @sse path /sse /sse/*\n    reverse_proxy @sse 127.0.0.1:8000\n}\n');
    expect(oneLine.map((x) => x.name)).toEqual(['proxy:Caddyfile.windows.example:127.0.0.1:8000']);
    expect(fact(oneLine[0]!, 'transport.legacy_sse')).toBe(true);
    const block = d(
      ':8080 {\n    @mcp {\n        path /mcp /mcp/*\n    }\n    handle @mcp {\n        reverse_proxy 127.0.0.1:8000\n    }\n}\n',
    );
    expect(block.map((x) => x.name)).toEqual(['proxy:Caddyfile.windows.example:127.0.0.1:8000']);
    // In a compose stack: the service a named matcher's route forwards to is the server, behind the proxy.
    const stack = collectWith(
      inline({
        'compose.yml': compose('caddy:2.8', './Caddyfile:/etc/caddy/Caddyfile').replace(/mcp/g, 'tools'),
        Caddyfile: 'example.com {\n    @mcp path /mcp /mcp/*\n    reverse_proxy @mcp tools:8000\n}\n',
      }),
    );
    expect(stack.deployments.map((x) => x.name)).toEqual(['compose:compose.yml:tools']);
    expect(fact(stack.deployments[0]!, 'exposure.behind_reverse_proxy')).toBe(true);
    // A matcher that names no MCP path forwards no MCP route.
    expect(d(':8080 {\n    @api path /api/*\n    reverse_proxy @api 127.0.0.1:8000\n}\n')).toEqual([]);
  });
});

describe('Caddy sites that forward to one server, read as one deployment', () => {
  // Jacques-Murray/mcp-qbit-server's examples/Caddyfile: three sites in front of localhost:8000, HSTS
  // and basic_auth on some of them only.
  const caddyfile = [
    'mcp-qbit.example.com {',
    '    reverse_proxy localhost:8000',
    '}',
    '',
    'mcp-qbit-secure.example.com {',
    '    basicauth * {',
    '        username $2a$14$Zkx19XLiW6VYouLHR5NmfOFU0z2GTNmpkT/5qqR7hx4wHHSdWRZaq',
    '    }',
    '    reverse_proxy localhost:8000',
    '    header {',
    '        Strict-Transport-Security "max-age=31536000; includeSubDomains"',
    '    }',
    '}',
    '',
  ].join('\n');
  const d = collectWith(inline({ Caddyfile: caddyfile })).deployments[0]!;

  it('the weakest site decides: no HSTS on one is no HSTS; a password on one only is no requirement', () => {
    expect(d.name).toBe('proxy:Caddyfile:localhost:8000');
    expect(fact(d, 'tls.hsts')).toBe(false);
    expect(d.sources['tls.hsts']![0]).toMatchObject({ line: 1, why: 'no Strict-Transport-Security header' });
    expect(fact(d, 'authentication.required')).toBeUndefined();
    expect(d.reasons['authentication.required']).toBe(
      'the MCP routes differ: site mcp-qbit-secure.example.com (Caddyfile:5) shows true, site mcp-qbit.example.com (Caddyfile:1) does not say (not set there)',
    );
    // What every site shows stands.
    expect(fact(d, 'tls.min_version')).toBe('1.2');
  });
});

describe('Caddy sites in front of two servers on one host', () => {
  it('each server gets the sites that forward to its own port only', () => {
    const caddyfile = [
      'mcp-a.example.com {',
      '    reverse_proxy localhost:9001',
      '}',
      '',
      'mcp-b.example.com {',
      '    reverse_proxy localhost:9002',
      '    header {',
      '        Strict-Transport-Security "max-age=31536000; includeSubDomains"',
      '    }',
      '}',
      '',
    ].join('\n');
    const out = collectWith(inline({ Caddyfile: caddyfile }));
    expect(out.deployments.map((d) => [d.name, fact(d, 'tls.hsts')])).toEqual([
      ['proxy:Caddyfile:localhost:9001', false],
      ['proxy:Caddyfile:localhost:9002', true],
    ]);
  });
});
