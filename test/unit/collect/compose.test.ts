// biome-ignore-all lint/suspicious/noTemplateCurlyInString: Compose variables, not JavaScript templates
// The Compose collector on Signet's own stack (real files) and on inline projects for the
// Compose rules it follows: overrides, .env, profiles, include, extends, !reset.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { namesMcpServer } from '../../../src/collect/roles.js';
import { collectWith, deploymentOf, fact, inline, lineOf, repoFiles } from '../../helpers/collect.js';
import { ROOT } from '../../helpers/paths.js';

const SIGNET = ['docker-compose.yml', 'Dockerfile', 'package.json', 'package-lock.json', 'proxy/Dockerfile'];
// Every template of the reference proxy, its blocks included: the files its image is built from.
const proxyFiles = (d: string): string[] =>
  readdirSync(join(ROOT, d), { withFileTypes: true }).flatMap((f) => (f.isDirectory() ? proxyFiles(`${d}/${f.name}`) : [`${d}/${f.name}`]));
const templates = proxyFiles('proxy/templates');

/**
 * The one deployment of a Compose service built from `files` in the project directory, with
 * `build` lines (args, target) under its `build:` and a port published on loopback.
 */
const builtService = (service: string, port: number, files: Record<string, string>, build: string) =>
  collectWith(
    inline({
      ...files,
      'compose.yaml': `services:\n  ${service}:\n    build:\n      context: .\n${build}    ports: ["127.0.0.1:${port}:${port}"]\n`,
    }),
  ).deployments[0]!;

describe("Compose: Signet's docker-compose.yml", () => {
  const c = collectWith(repoFiles(...SIGNET, ...templates));
  const d = deploymentOf(c, ':signet');

  it('finds one MCP server, signet, behind the proxy; the one-shots and the profiled Redis are not servers', () => {
    expect(c.deployments.map((x) => x.name)).toEqual(['compose:docker-compose.yml:signet']);
    expect(c.notes).toContainEqual({ file: 'docker-compose.yml', what: 'service redis is left out: its profiles (scale) are not enabled' });
    expect(fact(d, 'exposure.behind_reverse_proxy')).toBe(true);
    expect(d.sources['exposure.behind_reverse_proxy']![0]).toMatchObject({
      file: 'proxy/templates/signet.conf.template',
      // /mcp hands an accepted request to the named location that forwards it.
      line: lineOf('proxy/templates/signet.conf.template', /location @signet_forward \{/),
    });
  });

  it('reads the container hardening from the service, with the line that decides each fact', () => {
    expect(d.facts['container']).toMatchObject({
      used: true,
      orchestrator: 'docker',
      runs_as_root: false,
      read_only_root_fs: true,
      capabilities_dropped: true,
      no_new_privileges: true,
      privileged: false,
      docker_socket_mounted: false,
      published_ports: 'none',
      resource_limits: true,
      seccomp: 'runtime_default',
      healthcheck: true,
      image_pinned_by_digest: false,
      secrets_source: 'mounted_files',
    });
    expect(d.sources['container.runs_as_root']).toEqual([
      {
        file: 'docker-compose.yml',
        line: lineOf('docker-compose.yml', /^ {4}user: /, /^ {2}signet:/),
        why: expect.stringMatching(/^user: "/),
      },
    ]);
    // read_only comes from the x-hardening anchor the service merges.
    expect(d.sources['container.read_only_root_fs']![0]).toMatchObject({
      file: 'docker-compose.yml',
      line: lineOf('docker-compose.yml', /^ {2}read_only: true/),
    });
    expect(d.undecided).toContain('container.user_namespace');
    expect(d.reasons['container.user_namespace']).toMatch(/daemon/);
  });

  it('reads exposure and egress from the ports and networks', () => {
    expect(d.facts['exposure']).toMatchObject({
      behind_reverse_proxy: true,
      bind_address_class: 'private',
      endpoint_address_class: 'loopback',
      ingress_restricted_to_proxy: true,
      reachable_from_internet: false,
    });
    expect(d.facts['egress']).toMatchObject({ network_restricted: true, cloud_metadata_credentials_reachable: false });
    expect(d.sources['exposure.endpoint_address_class']![0]).toMatchObject({
      file: 'docker-compose.yml',
      line: lineOf('docker-compose.yml', /^ {4}ports:/, /^ {2}proxy:/),
    });
  });

  it('reads the build from the Dockerfile and the proxy from its nginx templates', () => {
    expect(d.facts['supply_chain']).toEqual({
      builds_server: true,
      deployed_release: 'locked',
      lockfile_enforced: true,
      install_scripts_disabled: true,
      sbom_published: true,
    });
    // No npm audit signatures in the Dockerfile: a CI step on the same lockfile could verify, so it stays open.
    expect(d.reasons['supply_chain.provenance_verified']).toMatch(/a CI step outside it may verify/);
    expect(d.sources['supply_chain.lockfile_enforced']![0]).toMatchObject({
      file: 'Dockerfile',
      line: lineOf('Dockerfile', /^RUN npm ci/),
    });
    expect(d.facts['http']).toMatchObject({
      connections_per_client_limited: true,
      execution_deadline_seconds: 60,
      request_read_deadline_seconds: 0,
    });
    expect(d.sources['http.execution_deadline_seconds']![0]).toMatchObject({
      file: 'proxy/templates/proxy-headers.conf.template',
      line: lineOf('proxy/templates/proxy-headers.conf.template', /^proxy_read_timeout /),
    });
    // TLS is chosen by the proxy's start-up steps from its mounts and environment (the Signet profile):
    // no certificate mounted, plain HTTP to signet over the bridge network.
    expect(d.facts['tls']).toEqual({ enabled: false, backend_hop: 'same_host' });
    expect(d.sources['tls.enabled']![0]!.why).toMatch(/no certificate is mounted/);
  });

  it('with the OAuth overlay merged, the token verifier is an auth sidecar, not a second MCP server', () => {
    const o = collectWith(repoFiles(...SIGNET, ...templates, 'deploy/compose.oauth.yml'), {
      compose: [['docker-compose.yml', 'deploy/compose.oauth.yml']],
    });
    expect(o.deployments.map((x) => x.name)).toEqual(['compose:docker-compose.yml:signet']);
  });

  it('alone, an override file is named as one, not read as a project', () => {
    const o = collectWith(repoFiles('deploy/compose.oauth.yml'));
    expect(o.deployments).toEqual([]);
    expect(o.notes[0]!.what).toMatch(/override/);
  });
});

describe('Compose rules', () => {
  it('merges the default file with its override, .env defaults and ${VAR:-default} as Compose does', () => {
    const c = collectWith(
      inline({
        'app/.env': 'BIND=0.0.0.0\nTOKEN=abc123\n',
        'app/compose.yaml': [
          'services:',
          '  mcp:',
          '    image: ghcr.io/acme/mcp-server:1.2.3',
          '    ports: ["127.0.0.1:${PORT:-8080}:8080"]',
          '    environment:',
          '      API_TOKEN: ${TOKEN}',
          '    cap_drop: [ALL]',
        ].join('\n'),
        'app/compose.override.yaml': ['services:', '  mcp:', '    ports: ["${BIND}:9090:9090"]', '    read_only: true'].join('\n'),
      }),
    );
    const d = deploymentOf(c, ':mcp');
    // The override appends a port on every interface: the worst wins.
    expect(fact(d, 'container.published_ports')).toBe('all_interfaces');
    expect(d.sources['container.published_ports']![0]).toMatchObject({ file: 'app/compose.override.yaml' });
    expect(fact(d, 'container.read_only_root_fs')).toBe(true);
    // A secret taken from a committed .env file is plaintext in the repository.
    expect(fact(d, 'container.secrets_source')).toBe('manifest_plaintext');
    expect(d.sources['container.secrets_source']![0]).toMatchObject({ file: 'app/.env', line: 2 });
    expect(fact(d, 'supply_chain.deployed_release')).toBe('exact_version');
    expect(fact(d, 'container.image_pinned_by_digest')).toBe(false);
    expect(d.undecided).toContain('container.runs_as_root');
    expect(d.reasons['container.runs_as_root']).toMatch(/default user/);
  });

  it('a variable set nowhere leaves what depends on it undecided; --env decides it', () => {
    const files = inline({
      'compose.yaml': [
        'services:',
        '  mcp:',
        `    image: mcp/server@sha256:${'a'.repeat(64)}`,
        '    environment:',
        '      GITHUB_TOKEN: ${GITHUB_TOKEN}',
      ].join('\n'),
    });
    const open = deploymentOf(collectWith(files), ':mcp');
    expect(open.undecided).toContain('container.secrets_source');
    expect(open.reasons['container.secrets_source']).toMatch(/operator's environment/);
    expect(fact(open, 'container.image_pinned_by_digest')).toBe(true);
    expect(fact(open, 'supply_chain.deployed_release')).toBe('digest');
  });

  it("a user: set from the operator's environment leaves who runs undecided, whatever the image's USER", () => {
    // apiwat-chantawibul/mcp-anon: `user: ${UID:-}` over a Dockerfile's `USER 1000:1000`; its launchers `export UID`.
    const user = (line: string, env: Record<string, string> = {}) => {
      const d = collectWith(
        inline({
          'compose.yaml': `services:\n  mcp-server:\n    build: .\n    user: ${line}\n`,
          Dockerfile: 'FROM python:3.13-slim\nRUN pip install mcp==1.9.0\nUSER 1000:1000\nENTRYPOINT ["python", "/app/server.py"]\n',
        }),
        { env },
      ).deployments[0]!;
      return fact(d, 'container.runs_as_root') ?? d.reasons['container.runs_as_root'];
    };
    expect(user('${UID:-}')).toBe(
      "user: is set from UID, which the files leave to the operator's environment: who runs the server is not in them",
    );
    expect(user('${UID}:${GID}')).toMatch(/is set from UID, GID/);
    // A default the file writes is what Compose uses while the variable is unset; --env gives it.
    expect(user('${UID:-0}')).toBe(true);
    expect(user('${UID:-1000}')).toBe(false);
    expect(user('${UID}', { UID: '0' })).toBe(true);
  });

  it('profiles, include, extends and !reset', () => {
    const c = collectWith(
      inline({
        'compose.yaml': [
          'include:',
          '  - infra/db.yaml',
          'services:',
          '  base:',
          '    image: busybox',
          '    privileged: true',
          '  mcp-server:',
          '    extends: base',
          '    image: acme/mcp:2.0.0',
          '    privileged: !reset false',
          '    volumes: ["/var/run/docker.sock:/var/run/docker.sock"]',
          '  debug-mcp:',
          '    image: acme/mcp-debug:latest',
          '    profiles: [debug]',
        ].join('\n'),
        'infra/db.yaml': ['services:', '  db:', '    image: postgres:16'].join('\n'),
      }),
    );
    expect(c.deployments.map((d) => d.name)).toEqual(['compose:compose.yaml:mcp-server']);
    const d = c.deployments[0]!;
    expect(fact(d, 'container.privileged')).toBe(false);
    expect(fact(d, 'container.docker_socket_mounted')).toBe(true);
    expect(c.notes.map((n) => n.what)).toEqual(expect.arrayContaining([expect.stringMatching(/debug-mcp is left out/)]));
    const withDebug = collectWith(
      inline({ 'compose.yaml': 'services:\n  debug-mcp:\n    image: acme/mcp-debug:latest\n    profiles: [debug]\n' }),
      { profiles: ['debug'] },
    );
    expect(withDebug.deployments.map((d) => d.name)).toEqual(['compose:compose.yaml:debug-mcp']);
    // getzep/graphiti: profiles: [""] is on when no profile is named, off when one is.
    const byDefault = (options: { profiles?: string[] }, dotenv?: string) =>
      collectWith(
        inline({
          'compose.yaml':
            'services:\n  graph-mcp:\n    image: acme/mcp:1.0.0\n    profiles: [""]\n  falkordb-mcp:\n    image: acme/mcp-falkor:1.0.0\n    profiles: [falkordb]\n',
          ...(dotenv ? { '.env': dotenv } : {}),
        }),
        options,
      ).deployments.map((d) => d.name);
    expect(byDefault({})).toEqual(['compose:compose.yaml:graph-mcp']);
    expect(byDefault({ profiles: ['falkordb'] })).toEqual(['compose:compose.yaml:falkordb-mcp']);
    expect(byDefault({}, 'COMPOSE_PROFILES=falkordb\n')).toEqual(['compose:compose.yaml:falkordb-mcp']);
  });

  it('use_api_socket: true mounts the engine socket', () => {
    // docker/compose-for-agents's a2a/compose.yaml runs docker/mcp-gateway with use_api_socket.
    const d = collectWith(
      inline({
        'compose.yaml':
          'services:\n  mcp-gateway:\n    image: docker/mcp-gateway:latest\n    use_api_socket: true\n    command: [--transport=sse]\n',
      }),
    ).deployments[0]!;
    expect(fact(d, 'container.docker_socket_mounted')).toBe(true);
    expect(d.sources['container.docker_socket_mounted']![0]).toMatchObject({ line: 4 });
  });

  it('a published server port bypasses the proxy in front of it', () => {
    const c = collectWith(
      inline({
        'compose.yml': [
          'services:',
          '  mcp:',
          '    image: acme/mcp:1.0.0',
          '    ports: ["3000:3000"]',
          '  caddy:',
          '    image: caddy:2',
          '    ports: ["443:443"]',
          '    volumes: ["./Caddyfile:/etc/caddy/Caddyfile:ro"]',
        ].join('\n'),
        Caddyfile: 'mcp.example.com {\n  reverse_proxy mcp:3000\n}\n',
      }),
    );
    const d = deploymentOf(c, ':mcp');
    expect(fact(d, 'exposure.behind_reverse_proxy')).toBe(false);
    expect(d.sources['exposure.behind_reverse_proxy']![0]!.why).toMatch(/bypass/);
    // Caddy serves HTTPS, but the published port serves the endpoint in plain HTTP past it.
    expect(fact(d, 'tls.enabled')).toBe(false);
    expect(fact(d, 'tls.min_version')).toBe('1.2');
    expect(fact(d, 'tls.hsts')).toBe(false);
  });

  it("a published port whose health check speaks plain HTTP is plain, whatever the proxy's files", () => {
    // Jacques-Murray/mcp-qbit-server's examples/docker-compose.yml: nginx mounts ./nginx.conf, which the
    // repository does not hold, and the server publishes 8000 with an http://localhost:8000 health check.
    const compose = [
      'services:',
      '  mcp-qbit-server:',
      '    image: acme/mcp-qbit:1.0.0',
      '    ports: ["8000:8000"]',
      '    healthcheck:',
      '      test: ["CMD", "node", "-e", "require(\'http\').get(\'http://localhost:8000/health\')"]',
      '  nginx:',
      '    image: nginx:1.27',
      '    ports: ["443:443"]',
      '    volumes: ["./nginx.conf:/etc/nginx/conf.d/default.conf:ro"]',
      '    depends_on: [mcp-qbit-server]',
    ].join('\n');
    const d = deploymentOf(collectWith(inline({ 'compose.yml': compose })), ':mcp-qbit-server');
    expect(fact(d, 'tls.enabled')).toBe(false);
    expect(d.sources['tls.enabled']![0]).toMatchObject({
      line: 6,
      why: 'the health check fetches http://…:8000 and the service publishes that port (8000:8000) past nginx: clients reach it in plain HTTP',
    });
  });
});

describe('Compose: tunnels', () => {
  it('a quick tunnel that only forwards is no proxy and puts the server on the internet', () => {
    const c = collectWith(
      inline({
        'compose.yaml': [
          'services:',
          '  mcp:',
          '    image: acme/fastmcp-server:0.4.0',
          '  tunnel:',
          '    image: cloudflare/cloudflared:2025.1.0',
          '    command: tunnel --no-autoupdate --url http://mcp:8000',
        ].join('\n'),
      }),
    );
    const d = deploymentOf(c, ':mcp');
    expect(d.facts['exposure']).toMatchObject({ reachable_from_internet: true, behind_reverse_proxy: false });
    expect(d.sources['exposure.reachable_from_internet']![0]).toMatchObject({ file: 'compose.yaml', line: 6 });
  });

  it("ngrok's configuration file among the files, and a port the server publishes too", () => {
    // KumarDeepankar/mcp_gateway: `ngrok start --all --config /etc/ngrok.yml`, ./ngrok/ngrok.yml with `addr: mcp-server:8000`,
    // and the server publishes 8000:8000 on every interface.
    const c = (addr: string, ports = '') =>
      deploymentOf(
        collectWith(
          inline({
            'docker-compose.yml': [
              'services:',
              '  mcp-server:',
              '    image: acme/mcp-server:1.0.0',
              '    environment: [MCP_TRANSPORT=http]',
              ports,
              '  ngrok:',
              '    image: ngrok/ngrok:latest',
              '    command: ["start", "--all", "--config", "/etc/ngrok.yml"]',
              '    volumes: ["./ngrok/ngrok.yml:/etc/ngrok.yml:ro"]',
              '',
            ]
              .filter((l) => l !== '')
              .join('\n'),
            'ngrok/ngrok.yml': `version: "3"\ntunnels:\n  mcp-server:\n    proto: http\n    addr: ${addr}\n`,
          }),
        ),
        ':mcp-server',
      );
    const d = c('mcp-server:8000');
    expect(fact(d, 'exposure.reachable_from_internet')).toBe(true);
    expect(d.sources['exposure.reachable_from_internet']![0]).toMatchObject({ file: 'ngrok/ngrok.yml', line: 5 });
    expect(fact(c('mcp-server:8000', '    ports: ["8000:8000"]'), 'exposure.reachable_from_internet')).toBe(true);
    // A tunnel to another service says nothing of this one.
    expect(fact(c('other:9000'), 'exposure.reachable_from_internet')).toBeUndefined();
  });
});

describe("a service that runs its build's ENTRYPOINT as written", () => {
  // grafana/mcp-grafana's Dockerfile: ENTRYPOINT ["/app/mcp-grafana", "--transport", "sse", ...] (fixture names the source).
  const { files } = JSON.parse(readFileSync(join(ROOT, 'test/fixtures/collect-walk/grafana-sse-entrypoint.json'), 'utf8')) as {
    files: Record<string, string>;
  };
  const compose = (extra: string) => `services:\n  mcp-grafana:\n    build: .\n    ports: ["127.0.0.1:8000:8000"]\n${extra}`;

  it('serves the transport its ENTRYPOINT names when the service overrides neither command nor entrypoint', () => {
    const d = collectWith(inline({ ...files, 'compose.yaml': compose('') })).deployments[0]!;
    expect(fact(d, 'transport.legacy_sse')).toBe(true);
    expect(d.sources['transport.legacy_sse']).toEqual([
      {
        file: 'Dockerfile',
        line: 47,
        why: 'the server is started with --transport sse: the deprecated HTTP+SSE transport',
      },
    ]);
  });

  it('reads the service instead when it replaces what runs', () => {
    const d = collectWith(
      inline({ ...files, 'compose.yaml': compose('    entrypoint: ["/app/mcp-grafana", "--transport", "streamable-http"]\n') }),
    ).deployments[0]!;
    expect(fact(d, 'transport.legacy_sse')).toBeUndefined();
    const sse = collectWith(inline({ ...files, 'compose.yaml': compose('    entrypoint: ["/app/mcp-grafana", "--transport", "sse"]\n') }))
      .deployments[0]!;
    expect(sse.sources['transport.legacy_sse']).toEqual([
      { file: 'compose.yaml', line: 5, why: 'the server is started with --transport sse: the deprecated HTTP+SSE transport' },
    ]);
  });

  it("joins a service's command to the build's ENTRYPOINT, as Compose runs them; the last transport flag wins", () => {
    const run = (command: string) =>
      collectWith(inline({ ...files, 'compose.yaml': compose(`    command: ${command}\n`) })).deployments[0]!;
    // The command replaces only CMD: the ENTRYPOINT's --transport sse still runs.
    const debug = run('["--debug"]');
    expect(fact(debug, 'transport.legacy_sse')).toBe(true);
    expect(debug.sources['transport.legacy_sse']![0]).toMatchObject({ file: 'compose.yaml', line: 5 });
    // A later --transport replaces it (mcp-grafana's README: `--transport streamable-http`).
    expect(fact(run('["--transport", "streamable-http"]'), 'transport.legacy_sse')).toBeUndefined();
    // Its README's `-t stdio`, the short form with a transport's name for its value: the last wins.
    const short = run('["-t", "stdio"]');
    expect([fact(short, 'transport.legacy_sse'), fact(short, 'transport.kind')]).toEqual([undefined, 'stdio']);
    // lreimer/gcp-mcp-server's `CMD ["/gcp-mcp-server", "-t", "sse", "-p", "8000"]`.
    expect(fact(run('["-t", "sse", "-p", "8000"]'), 'transport.legacy_sse')).toBe(true);
    // A short -t with any other value may be another flag: after --transport, the files no longer say.
    expect(fact(run('["-t", "30"]'), 'transport.legacy_sse')).toBeUndefined();
  });

  it('a bare --sse flag is the legacy transport too', () => {
    // zilliztech/mcp-server-milvus's Dockerfile: CMD ["mcp-server-milvus", "--sse", "--port", "8000"].
    const d = collectWith(
      inline({ ...files, 'compose.yaml': compose('    entrypoint: ["mcp-server-milvus", "--sse", "--port", "8000"]\n') }),
    ).deployments[0]!;
    expect(d.sources['transport.legacy_sse']).toEqual([
      { file: 'compose.yaml', line: 5, why: 'the server is started with --sse: the deprecated HTTP+SSE transport' },
    ]);
    expect(
      fact(
        collectWith(inline({ ...files, 'compose.yaml': compose('    entrypoint: ["srv", "--sse-only-metrics"]\n') })).deployments[0]!,
        'transport.legacy_sse',
      ),
    ).toBeUndefined();
  });
});

describe("a build's args, as Compose passes them to the Dockerfile", () => {
  // microsoft/playwright-mcp's runtime stage: `ARG USERNAME=node`, `USER ${USERNAME}`.
  const dockerfile =
    'FROM node:22-bookworm-slim\nARG USERNAME=node\nUSER ${USERNAME}\nENTRYPOINT ["node", "/app/cli.js", "--port", "8931"]\n';
  const run = (build: string) => builtService('playwright-mcp', 8931, { Dockerfile: dockerfile }, build);

  it("takes the ARG's default when the service passes none, and says so", () => {
    const d = run('');
    expect(fact(d, 'container.runs_as_root')).toBe(false);
    expect(d.sources['container.runs_as_root']).toEqual([
      { file: 'Dockerfile', line: 3, why: "USER ${USERNAME} in the final stage: node, from the build's ARG values and ENV" },
    ]);
  });

  it('a build arg replaces the default; one passed from the shell leaves the user undecided', () => {
    expect(fact(run('      args:\n        USERNAME: root\n'), 'container.runs_as_root')).toBe(true);
    expect(fact(run('      args: ["USERNAME=0"]\n'), 'container.runs_as_root')).toBe(true);
    const shell = run('      args: [USERNAME]\n');
    expect(fact(shell, 'container.runs_as_root')).toBeUndefined();
    expect(shell.undecided).toContain('container.runs_as_root');
  });
});

describe('an image that installs a released server at build time', () => {
  // mongodb-js/mongodb-mcp-server's Dockerfile: `ARG VERSION=latest`, `npm install -g mongodb-mcp-server@${VERSION}`.
  const dockerfile = [
    'FROM node:24-alpine',
    'ARG VERSION=latest',
    'RUN addgroup -S mcp && adduser -S mcp -G mcp',
    'RUN npm install -g mongodb-mcp-server@${VERSION}',
    'USER mcp',
    'ENTRYPOINT ["mongodb-mcp-server"]',
  ].join('\n');
  const run = (args: string) => builtService('mongodb-mcp', 3000, { Dockerfile: dockerfile }, args);

  it('floats on the default tag; an exact version passed as a build arg is exact_version', () => {
    const latest = run('');
    expect(fact(latest, 'supply_chain.deployed_release')).toBe('floating');
    expect(latest.sources['supply_chain.deployed_release']![0]!.why).toBe(
      'npm install -g mongodb-mcp-server@latest resolves versions at build time',
    );
    const pinned = run('      args: { VERSION: "1.2.3" }\n');
    expect(fact(pinned, 'supply_chain.deployed_release')).toBe('exact_version');
    expect(pinned.sources['supply_chain.deployed_release']).toEqual([
      {
        file: 'Dockerfile',
        line: 4,
        why: 'npm install -g mongodb-mcp-server@1.2.3 installs an exact version; its dependencies resolve from their ranges at build time',
      },
    ]);
    expect(fact(pinned, 'supply_chain.lockfile_enforced')).toBe(false);
  });
});

describe('a service built to one stage of a multi-stage Dockerfile (build.target)', () => {
  const dockerfile = ['FROM node:24 AS prod', 'RUN npm ci --ignore-scripts', 'USER node', 'FROM prod AS dev', 'USER root'].join('\n');
  const run = (target: string) =>
    builtService('mcp', 3000, { Dockerfile: dockerfile, 'package.json': '{"dependencies":{"@modelcontextprotocol/sdk":"1.0.0"}}' }, target);

  it('reads the stage the build stops at, not the last one', () => {
    expect(fact(run(''), 'container.runs_as_root')).toBe(true);
    expect(fact(run('      target: prod\n'), 'container.runs_as_root')).toBe(false);
  });
});

describe('a volume whose source a missing .env sets', () => {
  it('mounts what the .env says: the socket and host paths are open, the other volumes still read', () => {
    // yonaka15/mcp-server-as-http-go: `${DOCKER_SOCKET_PATH:-/dev/null}:${DOCKER_SOCKET_MOUNT:-/dev/null}`, its
    // .env.example setting the Docker socket.
    const d = (volumes: string) =>
      collectWith(inline({ 'compose.yaml': `services:\n  mcp:\n    image: acme/mcp:1.0.0\n    env_file: .env\n    volumes:\n${volumes}` }))
        .deployments[0]!;
    const open = d('      - ${DOCKER_SOCKET_PATH:-/dev/null}:${DOCKER_SOCKET_MOUNT:-/dev/null}\n      - ./data:/data\n');
    expect(fact(open, 'container.docker_socket_mounted')).toBeUndefined();
    expect(open.reasons['container.docker_socket_mounted']).toBe(
      'a volume set from ${DOCKER_SOCKET_PATH}, ${DOCKER_SOCKET_MOUNT}, which a .env the files do not hold may set: what it mounts is not in the files',
    );
    expect(fact(open, 'container.host_path_mounts')).toBeUndefined();
    // A socket or a system path mounted beside it decides all the same.
    const sock = d('      - ${DATA:-./data}:/data\n      - /var/run/docker.sock:/var/run/docker.sock\n');
    expect([fact(sock, 'container.docker_socket_mounted'), fact(sock, 'container.host_path_mounts')]).toEqual([true, 'host_system']);
  });
});

describe('a .env that a service requires and the files do not hold', () => {
  // metatool-ai/metamcp's docker-compose.yml: `env_file: [.env]` (only example.env is committed) and
  // `${POSTGRES_PASSWORD:-m3t4mcp}`: Compose refuses to start without .env, and reads it for every ${VAR}.
  const compose = (envFile: string) =>
    [
      'services:',
      '  app:',
      '    image: ${APP_IMAGE:-ghcr.io/acme/mcp-server:1.2.0}',
      envFile,
      '    ports: ["${BIND:-127.0.0.1}:12008:12008"]',
      '    environment:',
      '      POSTGRES_PASSWORD: ${POSTGRES_PASSWORD:-m3t4mcp}',
      '      NODE_TLS_REJECT_UNAUTHORIZED: ${TLS_REJECT:-0}',
    ]
      .filter((l) => l !== '')
      .join('\n');
  const run = (files: Record<string, string>) => collectWith(inline(files));

  it('leaves what its variables decide undecided, defaults included, and says why', () => {
    const out = run({ 'docker-compose.yml': compose('    env_file: [.env]') });
    const d = out.deployments[0]!;
    for (const path of ['container.published_ports', 'egress.tls_verification_disabled', 'container.image_pinned_by_digest'])
      expect(fact(d, path), path).toBeUndefined();
    expect(d.undecided).toEqual(expect.arrayContaining(['container.published_ports', 'egress.tls_verification_disabled']));
    expect(out.notes).toContainEqual({
      file: 'docker-compose.yml',
      what: 'service app in docker-compose.yml needs .env (env_file), which is not among the files: every variable it may set is undecided, defaults included; add the file, or set the variables with --env',
    });
    // The password the file writes is still in clear: the container gets it whenever .env leaves it unset.
    expect(fact(d, 'container.secrets_source')).toBe('manifest_plaintext');
    expect(d.sources['container.secrets_source']![0]!.why).toBe(
      'POSTGRES_PASSWORD falls back to a value written in the compose file when POSTGRES_PASSWORD is unset',
    );
    expect(d.sources['container.secrets_source']![0]).toMatchObject({ line: 7 });
    // So in list form, cited at its item (hkgnobody/mcp-for-splunk: `- SPLUNK_PASSWORD=${SPLUNK_PASSWORD:-Chang3d!}`).
    const listed = run({
      'docker-compose.yml': compose('    env_file: [.env]').replace(
        '      POSTGRES_PASSWORD: ${POSTGRES_PASSWORD:-m3t4mcp}\n      NODE_TLS_REJECT_UNAUTHORIZED: ${TLS_REJECT:-0}',
        '      - MCP_TRANSPORT=http\n      - POSTGRES_PASSWORD=${POSTGRES_PASSWORD:-m3t4mcp}',
      ),
    }).deployments[0]!;
    expect(listed.sources['container.secrets_source']![0]).toMatchObject({
      line: 8,
      why: expect.stringMatching(/^POSTGRES_PASSWORD falls back/),
    });
  });

  it('with the .env among the files, or not required, the defaults are what Compose uses', () => {
    const cases: Record<string, string>[] = [
      { 'docker-compose.yml': compose('    env_file: [.env]'), '.env': 'OTHER=1\n' },
      { 'docker-compose.yml': compose('    env_file: [{ path: .env, required: false }]') },
      { 'docker-compose.yml': compose('') },
    ];
    for (const files of cases) {
      const d = run(files).deployments[0]!;
      expect(fact(d, 'container.published_ports')).toBe('loopback');
      expect(fact(d, 'egress.tls_verification_disabled')).toBe(true);
    }
  });
});

describe("where a service's secrets come from, env_file and list-form environment included", () => {
  const build = { Dockerfile: 'FROM node:24-slim\nUSER node\nCMD ["node", "mcp-server.js"]\n' };
  const secrets = (files: Record<string, string>) => {
    const d = collectWith(inline({ ...build, ...files })).deployments[0]!;
    return {
      value: fact(d, 'container.secrets_source'),
      why: d.sources['container.secrets_source']?.[0]?.why,
      undecided: d.undecided,
      reason: d.reasons['container.secrets_source'],
    };
  };
  const service = (extra: string) => `services:\n  mcp:\n    build: .\n${extra}`;

  it('an env_file among the files is read: a secret written there is in the repository', () => {
    const s = secrets({
      'compose.yaml': service('    env_file: [config/app.env]\n'),
      'config/app.env': 'LOG_LEVEL=info\nGITHUB_TOKEN=ghp_abc\n',
    });
    expect(s.value).toBe('manifest_plaintext');
    expect(s.why).toBe('GITHUB_TOKEN is written in env_file config/app.env, which is among the files read');
    expect(secrets({ 'compose.yaml': service('    env_file: [config/app.env]\n'), 'config/app.env': 'LOG_LEVEL=info\n' }).value).toBe(
      'none',
    );
  });

  it('one that is not among the files may hold anything: undecided, never "none"', () => {
    const s = secrets({ 'compose.yaml': service('    env_file: [secrets.env]\n') });
    expect(s.value).toBeUndefined();
    expect(s.undecided).toContain('container.secrets_source');
  });

  it('a secret read from a file is a mounted file; a log file is no secret', () => {
    // atrawog/mcp-oauth-gateway: LOG_FILE=/logs/server.log.
    expect(secrets({ 'compose.yaml': service('    environment:\n      - LOG_FILE=/logs/server.log\n') }).value).toBe('none');
    expect(secrets({ 'compose.yaml': service('    environment:\n      - DB_PASSWORD_FILE=/run/secrets/db\n') })).toMatchObject({
      value: 'mounted_files',
      why: 'DB_PASSWORD_FILE points at a mounted file',
    });
    // osushinekotan/bigquery-mcp-server: a secret-named variable that names the credentials file it bind-mounts.
    expect(
      secrets({
        'compose.yaml': service(
          '    volumes:\n      - ${HOME}/.config/gcloud/application_default_credentials.json:/root/.config/gcloud/application_default_credentials.json:ro\n    environment:\n      - GOOGLE_APPLICATION_CREDENTIALS=/root/.config/gcloud/application_default_credentials.json\n',
        ),
      }),
    ).toMatchObject({
      value: 'mounted_files',
      why: 'GOOGLE_APPLICATION_CREDENTIALS names the file that holds it (/root/.config/gcloud/application_default_credentials.json), mounted into the container',
    });
  });

  it('a value that says no key is needed is no secret; a real one beside it still is', () => {
    // envoyproxy/ai-gateway's cmd/aigw/docker-compose.yaml: OPENAI_API_KEY=unused for a local model server.
    expect(secrets({ 'compose.yaml': service('    environment:\n      - OPENAI_API_KEY=unused\n') }).value).toBe('none');
    // chromato99/krx-rule-mcp: `${OPENAI_API_KEY:-local}`, the server's own no-key default: the real key is the operator's.
    const local = secrets({ 'compose.yaml': service('    environment:\n      - OPENAI_API_KEY=${OPENAI_API_KEY:-local}\n') });
    expect(local.value).toBeUndefined();
    expect(local.undecided).toContain('container.secrets_source');
    expect(
      secrets({ 'compose.yaml': service('    environment:\n      - OPENAI_API_KEY=not-needed\n      - DB_PASSWORD=hunter22\n') }),
    ).toMatchObject({
      value: 'manifest_plaintext',
      why: 'DB_PASSWORD has a value written in the compose file',
    });
  });

  it('a dotenv file bind-mounted for the server to read is read as an env_file is', () => {
    // Dicklesworthstone/mcp_agent_mail's compose.yaml: `./.env:/app/.env:ro`, a file the repository does not hold.
    const mount = service('    volumes:\n      - ./.env:/app/.env:ro\n');
    const unread = secrets({ 'compose.yaml': mount });
    expect(unread.value).toBeUndefined();
    expect(unread.undecided).toContain('container.secrets_source');
    expect(secrets({ 'compose.yaml': mount, '.env': 'HTTP_BEARER_TOKEN=s3cr3t-value\n' })).toMatchObject({
      value: 'manifest_plaintext',
      why: 'HTTP_BEARER_TOKEN is written in the bind-mounted ./.env, which is among the files read',
    });
    expect(secrets({ 'compose.yaml': mount, '.env': 'LOG_LEVEL=info\n' }).value).toBe('none');
    expect(secrets({ 'compose.yaml': mount, '.env': 'LOG_LEVEL=info\nAPI_TOKEN=<your_token>\n' }).reason).toBe(
      'API_TOKEN in the bind-mounted ./.env is a placeholder ("<your_token>") the operator replaces: where the real value is kept is not in the files',
    );
    // A named volume called env is no file of the repository.
    expect(secrets({ 'compose.yaml': service('    volumes:\n      - app.env:/data\n') }).value).toBe('none');
  });

  it('a configuration file bind-mounted for the server is read for secrets written in it', () => {
    // siakhooi/mcp-mariadb: `./example-config.yaml:/app/config.yaml`, holding `password: secret`.
    const mount = service('    volumes:\n      - ./example-config.yaml:/app/config.yaml:ro\n');
    expect(secrets({ 'compose.yaml': mount, 'example-config.yaml': 'mariadb:\n  host: db\n  user: app\n  password: secret\n' })).toEqual({
      value: 'manifest_plaintext',
      why: 'password is written in the bind-mounted ./example-config.yaml, which is among the files read',
      undecided: expect.any(Array),
      reason: undefined,
    });
    // A reference there is no secret; a file the files do not hold may hold one.
    expect(secrets({ 'compose.yaml': mount, 'example-config.yaml': 'mariadb:\n  password: ${DB_PASSWORD}\n' }).value).toBe('none');
    // A placeholder the operator edits (DrDroidLab/signoz-mcp-server's `api_key: <api_key>`): the real
    // value is then kept where the files do not show, as for one in a committed .env.
    const placeholder = secrets({ 'compose.yaml': mount, 'example-config.yaml': 'signoz:\n  host: x\n  api_key: <api_key>\n' });
    expect(placeholder.value).toBeUndefined();
    expect(placeholder.reason).toBe(
      'api_key in the bind-mounted ./example-config.yaml is a placeholder the operator replaces: where the real value is kept is not in the files',
    );
    const unread = secrets({ 'compose.yaml': mount });
    expect(unread.value).toBeUndefined();
    expect(unread.undecided).toContain('container.secrets_source');
  });

  it('a bind mount named for secrets or keys leaves the source open, not "none"', () => {
    // nickweedon/google-docs-mcp-docker: `./credentials:/workspace/credentials`; alexei-led/k8s-mcp-server: `~/.kube`.
    for (const mount of [
      './credentials:/workspace/credentials',
      '~/.kube:/home/appuser/.kube:ro',
      './certs/local:/run/proxmox-mcp/tls:ro',
    ]) {
      const s = secrets({ 'compose.yaml': service(`    volumes:\n      - ${mount}\n`) });
      expect(s.value, mount).toBeUndefined();
      expect(s.undecided, mount).toContain('container.secrets_source');
    }
    expect(secrets({ 'compose.yaml': service('    volumes:\n      - ./data:/app/data\n') }).value).toBe('none');
  });

  it('an empty default is the operator environment\'s value when set there, not "none"', () => {
    // Tributary-ai-services/tas-mcp's apify-mcp: `APIFY_API_TOKEN: ${APIFY_API_TOKEN:-}`.
    const s = secrets({ 'compose.yaml': service('    environment:\n      APIFY_API_TOKEN: ${APIFY_API_TOKEN:-}\n') });
    expect(s.value).toBeUndefined();
    expect(s.undecided).toContain('container.secrets_source');
    // Set empty in a committed .env, the container gets no secret.
    expect(
      secrets({ 'compose.yaml': service('    environment:\n      APIFY_API_TOKEN: ${APIFY_API_TOKEN:-}\n'), '.env': 'APIFY_API_TOKEN=\n' })
        .value,
    ).toBe('none');
  });

  it('a list-form entry whose variable is set nowhere is a secret from the environment, not dropped', () => {
    const s = secrets({ 'compose.yaml': service('    environment:\n      - LOG_LEVEL=info\n      - API_KEY=${API_KEY}\n') });
    expect(s.value).toBeUndefined();
    expect(s.undecided).toContain('container.secrets_source');
  });

  it('a connection URL from the operator\'s environment may carry a password: open, not "none"', () => {
    // Teradata/teradata-mcp-server: `DATABASE_URI=${DATABASE_URI}`, documented as teradata://user:password@host.
    for (const env of [
      'DATABASE_URI=${DATABASE_URI}',
      'REDIS_URL=${REDIS_URL}',
      'PG_DSN=${PG_DSN}',
      'MONGODB_CONNECTION_STRING=${MONGO}',
      // stonediggity/unified-docker-mcps: documented as postgresql://username:password@host:port/database.
      'DATABASE_URL_STRING=${DATABASE_URL_STRING}',
    ]) {
      const d = collectWith(inline({ ...build, 'compose.yaml': service(`    environment:\n      - ${env}\n`) })).deployments[0]!;
      expect(fact(d, 'container.secrets_source'), env).toBeUndefined();
      expect(d.reasons['container.secrets_source'], env).toMatch(
        /a connection URL that may carry a password, comes from the operator's environment/,
      );
    }
    // One written without a password, or a URL of another kind from the environment, says nothing of secrets.
    expect(secrets({ 'compose.yaml': service('    environment:\n      - DATABASE_URL=postgresql://db:5432/app\n') }).value).toBe('none');
    expect(secrets({ 'compose.yaml': service('    environment:\n      - API_BASE_URL=${API_BASE_URL}\n') }).value).toBe('none');
    // A database's name is no connection URL.
    expect(secrets({ 'compose.yaml': service('    environment:\n      - POSTGRES_DB=${POSTGRES_DB}\n') }).value).toBe('none');
  });

  it('a placeholder in a committed .env is no secret written: where the real one is kept is open', () => {
    // lowlyocean/mcp-vikunja: `CREATE_TASK_TOKEN: ${CREATE_TASK_TOKEN}` and `.env` holds `CREATE_TASK_TOKEN=<your_key>`.
    const s = secrets({
      'compose.yaml': service('    environment:\n      CREATE_TASK_TOKEN: ${CREATE_TASK_TOKEN}\n'),
      '.env': 'CREATE_TASK_TOKEN=<your_key>\n',
    });
    expect(s.value).toBeUndefined();
    expect(s.undecided).toContain('container.secrets_source');
    expect(
      secrets({
        'compose.yaml': service('    environment:\n      CREATE_TASK_TOKEN: ${CREATE_TASK_TOKEN}\n'),
        '.env': 'CREATE_TASK_TOKEN=tk_9f2c\n',
      }).value,
    ).toBe('manifest_plaintext');
  });

  it("a connection URL whose password is a variable: from the environment, or the file's fallback", () => {
    // Dezocode/mcp-system's prod compose: `DATABASE_URL=postgresql://mcpuser:${DB_PASSWORD}@postgres:5432/mcp_system`.
    const env = (line: string, dotenv?: string) =>
      secrets({ 'compose.yaml': service(`    environment:\n      - ${line}\n`), ...(dotenv ? { '.env': dotenv } : {}) });
    const open = env('DATABASE_URL=postgresql://mcpuser:${DB_PASSWORD}@postgres:5432/mcp_system');
    expect(open.value).toBeUndefined();
    expect(open.undecided).toContain('container.secrets_source');
    // A fallback written in the file, or a committed .env, puts the password in the repository.
    expect(env('DATABASE_URL=postgresql://mcpuser:${DB_PASSWORD:-hunter2}@postgres/mcp').value).toBe('manifest_plaintext');
    expect(env('DATABASE_URL=postgresql://mcpuser:${DB_PASSWORD}@postgres/mcp', 'DB_PASSWORD=hunter2\n').value).toBe('manifest_plaintext');
  });

  it('a build whose Dockerfile is not among the files leaves the source open: the image may hold one', () => {
    // 0x1D-1983/book-api-mcp-docker-compose-bundle builds from ../book-api-mcp-server-dotnet.
    const d = collectWith(
      inline({ 'compose.yaml': 'services:\n  mcp:\n    build:\n      context: ../book-api-mcp-server\n    ports: ["8080:8080"]\n' }),
    ).deployments[0]!;
    expect(fact(d, 'container.secrets_source')).toBeUndefined();
    expect(d.reasons['container.secrets_source']).toMatch(/the Dockerfile it is built from is not among them/);
  });
});

describe('a service whose image installs or runs an MCP server', () => {
  it('is one, however many such services the project has', () => {
    // antvis/mcp-server-chart's docker/docker-compose.yml: services sse and streamable, each built
    // from a Dockerfile that runs `npm install -g @antv/mcp-server-chart` and `CMD ["mcp-server-chart", …]`.
    const dockerfile = (transport: string, port: number) =>
      `FROM node:22-slim\nRUN npm install -g @antv/mcp-server-chart@0.9.1\nCMD ["mcp-server-chart", "--transport", "${transport}", "--port", "${port}"]\n`;
    const out = collectWith(
      inline({
        'docker/docker-compose.yml':
          'services:\n  sse:\n    build: { context: ./sse }\n    ports: ["1123:1123"]\n  streamable:\n    build: { context: ./streamable }\n    ports: ["1122:1122"]\n',
        'docker/sse/Dockerfile': dockerfile('sse', 1123),
        'docker/streamable/Dockerfile': dockerfile('streamable', 1122),
      }),
    );
    expect(out.deployments.map((d) => [d.name, d.sources['container.used']?.[0]?.why])).toEqual([
      ['compose:docker/docker-compose.yml:sse', 'service sse runs in a container (its image installs @antv/mcp-server-chart)'],
      [
        'compose:docker/docker-compose.yml:streamable',
        'service streamable runs in a container (its image installs @antv/mcp-server-chart)',
      ],
    ]);
    // An MCP client library is no server (gzhai5/partselect-chatbot's agent installs langchain-mcp-adapters).
    const agent = collectWith(
      inline({
        'compose.yaml': 'services:\n  agent:\n    build: .\n    ports: ["8000:8000"]\n  db:\n    image: postgres:16\n',
        Dockerfile: 'FROM python:3.12-slim\nRUN pip install langchain-mcp-adapters==0.1.9\nCOPY . .\nCMD ["uvicorn", "app:api"]\n',
      }),
    );
    expect(agent.deployments.map((d) => d.sources['container.used']?.[0]?.why)).not.toContainEqual(
      expect.stringMatching(/langchain-mcp-adapters/),
    );
  });

  it('is no one-shot for restart: "no" while it waits on others, when it exposes a port or names MCP', () => {
    // onyx-dot-app/onyx's mcp_server: `restart: "no"`, depends_on, `command: exec python -m onyx.mcp_server_main`, behind nginx.
    const compose = (extra: string) =>
      `services:\n  api: { image: "onyxdotapp/onyx-backend:1.0.0" }\n  mcp_server:\n    image: onyxdotapp/onyx-backend:1.0.0\n    restart: "no"\n    depends_on: [api]\n${extra}`;
    const names = (extra: string) => collectWith(inline({ 'compose.yaml': compose(extra) })).deployments.map((d) => d.name);
    expect(names('    command: ["/bin/sh", "-c", "exec python -m onyx.mcp_server_main"]\n')).toEqual(['compose:compose.yaml:mcp_server']);
    // A job that waits on others and runs once, such as a migration, stays a one-shot.
    expect(names('    command: ["alembic", "upgrade", "head"]\n')).not.toContain('compose:compose.yaml:mcp_server');
    // Nor one whose command, naming MCP, says a job (TheLukasHenry/proxy-server's db-init: seed_mcp_servers.py).
    expect(names('    command: ["python", "/app/scripts/seed_mcp_servers.py", "--clear"]\n')).not.toContain(
      'compose:compose.yaml:mcp_server',
    );
  });
});

describe('a Dockerfile a Compose service builds belongs to that project', () => {
  // docker/mcp-gateway's examples/client: a service built from a Dockerfile that installs the MCP SDK
  // to be a client of the gateway beside it (commit 2bd20fe83dd04870e8d87dc1ed059d4d19fc7c68).
  const files = {
    'examples/client/Dockerfile':
      'FROM python:3.13-alpine\n\nRUN pip install mcp[cli]\n\nWORKDIR /app\nCOPY main.py ./\nENTRYPOINT ["python", "main.py"]',
    'examples/client/compose.yaml':
      'services:\n  client:\n    build: .\n    environment:\n      - MCP_HOST=http://gateway:9011/mcp\n    depends_on:\n      - gateway\n\n  gateway:\n    image: docker/mcp-gateway\n    command:\n      - --transport=streaming\n      - --port=9011\n    volumes:\n      - /var/run/docker.sock:/var/run/docker.sock\n',
  };

  it('is no image deployment of its own: the client is described by its project, which serves the gateway', () => {
    const out = collectWith(inline(files));
    expect(out.deployments.map((d) => d.name)).toEqual(['compose:examples/client/compose.yaml:gateway']);
  });
});

describe('a list-form build arg whose variable is set nowhere', () => {
  it('leaves the ARG unknown rather than falling back to its default', () => {
    const dockerfile = 'FROM node:22-bookworm-slim\nARG USERNAME=node\nUSER ${USERNAME}\nCMD ["node", "mcp-server.js"]\n';
    const d = builtService('mcp', 3000, { Dockerfile: dockerfile }, '      args: ["USERNAME=${APP_USER}"]\n');
    expect(fact(d, 'container.runs_as_root')).toBeUndefined();
    expect(d.undecided).toContain('container.runs_as_root');
  });
});

describe('the transport of a service no port or proxy shows', () => {
  // BeehiveInnovations/zen-mcp-server's docker-compose.yml: a stdio server its clients start with
  // `docker compose run --rm zen-mcp`; docker/mcp-gateway's examples/sqlite-vec keeps stdin open.
  const server = (lines: string, files: Record<string, string> = {}) =>
    collectWith(
      inline({
        Dockerfile: 'FROM python:3.13-slim\nRUN pip install mcp==1.9.0\nCMD ["python", "server.py"]\n',
        ...files,
        'compose.yaml': `services:\n  mcp:\n    build: .\n${lines}`,
      }),
    ).deployments.find((d) => d.name.endsWith(':mcp'))!;
  const kind = (lines: string, files?: Record<string, string>) => {
    const d = server(lines, files);
    return { kind: fact(d, 'transport.kind'), at: d.sources['transport.kind']?.[0] };
  };

  it('is open where nothing says: a stdio server run by a client looks the same', () => {
    const d = server('    read_only: true\n');
    expect(fact(d, 'transport.kind')).toBeUndefined();
    expect(d.undecided).toContain('transport.kind');
    // A -t after --transport may be the same flag (mcp-grafana's): given a transport's name it is, and
    // the last wins; given anything else, the command no longer says which.
    expect(fact(server('    command: ["python", "server.py", "--transport", "stdio", "-t", "sse"]\n'), 'transport.kind')).toBe('http');
    expect(fact(server('    command: ["python", "server.py", "--transport", "stdio", "-t", "x"]\n'), 'transport.kind')).toBeUndefined();
  });

  it('a command that prints its help serves nothing, whatever port is published', () => {
    const d = server('    ports: ["8050:8050"]\n    command: ["mcp-universal", "--help"]\n');
    expect(fact(d, 'transport.kind')).toBeUndefined();
    expect(d.reasons['transport.kind']).toBe(
      'mcp runs mcp-universal --help, which prints its help and exits: no server listens or reads stdin as written',
    );
  });

  it("a port of another protocol says nothing of HTTP: VNC, SSH, a database's, UDP", () => {
    // HamCops/omarchy-dotfiles: `"5900:5900"  # VNC port` on a server its clients reach with docker exec -i.
    const vnc = server('    ports:\n      - "5900:5900"  # VNC port\n');
    expect(fact(vnc, 'transport.kind')).toBeUndefined();
    expect(vnc.reasons['transport.kind']).toBe(
      'mcp publishes only 5900 (VNC), no HTTP port, and its command names no transport: whether it serves MCP on the network is in its code',
    );
    expect(fact(server('    ports: ["2222:22", "5353:5353/udp"]\n'), 'transport.kind')).toBeUndefined();
    // One HTTP-able port beside them decides as before.
    expect(fact(server('    ports: ["5900:5900", "8000:8000"]\n'), 'transport.kind')).toBe('http');
    expect(fact(server('    ports:\n      - target: 8000\n        published: 8000\n'), 'transport.kind')).toBe('http');
  });

  it('nor does a port a variable named for health sets', () => {
    // Tributary-ai-services/tas-mcp's napkin-mcp: `HEALTH_PORT: "8087"` and only `"8087:8087"` published.
    const health = server('    environment:\n      HEALTH_PORT: "8087"\n    ports: ["8087:8087"]\n');
    expect(fact(health, 'transport.kind')).toBeUndefined();
    expect(health.reasons['transport.kind']).toBe(
      'mcp publishes only its health port (8087, HEALTH_PORT), and its command names no transport: whether it serves MCP on the network is in its code',
    );
    expect(fact(server('    environment:\n      HEALTH_PORT: "8087"\n    ports: ["8087:8087", "8000:8000"]\n'), 'transport.kind')).toBe(
      'http',
    );
  });

  it('stdio where the command, a variable or stdin_open says so', () => {
    expect(kind('    command: ["python", "server.py", "--transport", "stdio"]\n')).toMatchObject({ kind: 'stdio', at: { line: 4 } });
    expect(kind('    environment:\n      MCP_TRANSPORT: stdio\n')).toMatchObject({ kind: 'stdio', at: { line: 5 } });
    expect(kind('    stdin_open: true\n')).toMatchObject({ kind: 'stdio', at: { line: 4 } });
    expect(server('    stdin_open: true\n').reasons['exposure.bind_address_class']).toBe(
      'a stdio server listens on no address: its client is attached to its stdin',
    );
    // executeautomation/mcp-playwright: no port, and no network endpoint either (not "private").
    expect(fact(server('    stdin_open: true\n'), 'exposure.endpoint_address_class')).toBeUndefined();
    expect(server('    stdin_open: true\n').reasons['exposure.endpoint_address_class']).toMatch(/^a stdio server has no network endpoint/);
    expect(fact(server('    stdin_open: true\n'), 'exposure.reachable_from_internet')).toBe(false);
  });

  it('network where the command, a variable, EXPOSE, expose:, a caller or an HTTP health check says so', () => {
    expect(kind('    command: ["python", "server.py", "--transport=streamable-http"]\n').kind).toBe('http');
    expect(kind('    command: uvicorn app:app --host 0.0.0.0\n').kind).toBe('http');
    expect(kind('    environment:\n      - TRANSPORT=sse\n').kind).toBe('http');
    // The variable names the deprecated transport too (phildougherty/mcp-compose's MCP_CRON_SERVER_TRANSPORT=sse).
    expect(fact(server('    environment:\n      - TRANSPORT=sse\n'), 'transport.legacy_sse')).toBe(true);
    expect(fact(server('    environment:\n      - TRANSPORT=streamable-http\n'), 'transport.legacy_sse')).toBeUndefined();
    expect(kind('    expose: ["8000"]\n')).toMatchObject({ kind: 'http', at: { line: 4 } });
    const exposed = { Dockerfile: 'FROM python:3.13-slim\nRUN pip install mcp==1.9.0\nEXPOSE 8000\nCMD ["python", "server.py"]\n' };
    expect(kind('', exposed)).toMatchObject({ kind: 'http', at: { file: 'Dockerfile', line: 3 } });
    expect(kind('  agent:\n    image: agent:1\n    environment:\n      - MCP_URL=http://mcp:8000\n')).toMatchObject({
      kind: 'http',
      at: { line: 4 },
    });
    expect(kind('    healthcheck:\n      test: ["CMD", "curl", "-f", "http://localhost:8000/health"]\n').kind).toBe('http');
  });

  it('a published port says network, unless the command names the transport or stdin_open says stdio too', () => {
    expect(kind('    ports: ["127.0.0.1:8000:8000"]\n')).toMatchObject({ kind: 'http', at: { line: 4 } });
    // LAB271/mcp-studies' graphdb spike: port 8000 published, stdin kept open, `mcp.run()` in its
    // code defaults to stdio. The files write both.
    const both = server('    ports: ["127.0.0.1:8000:8000"]\n    stdin_open: true\n    tty: true\n');
    expect(fact(both, 'transport.kind')).toBeUndefined();
    expect(both.reasons['transport.kind']).toMatch(
      /publishes a port and keeps its stdin open \(stdin_open: true\), and its command names no transport/,
    );
    // Whether it listens at all is then open too, and with it what a listener would decide.
    for (const path of ['exposure.bind_address_class', 'exposure.ingress_restricted_to_proxy'])
      expect(both.reasons[path], path).toBe('whether the server listens on the network at all is open: its transport is undecided');
    const unpublished = server('    environment:\n      MCP_TRANSPORT: ${MCP_TRANSPORT}\n');
    expect(fact(unpublished, 'exposure.endpoint_address_class')).toBeUndefined();
    expect(fact(unpublished, 'exposure.reachable_from_internet')).toBe(false);
    // A transport the command names decides: a health port beside a stdio server is not MCP's.
    const flag = '    ports: ["127.0.0.1:8000:8000"]\n    stdin_open: true\n    command: ["python", "server.py", "--transport", "%"]\n';
    expect(kind(flag.replace('%', 'streamable-http'))).toMatchObject({ kind: 'http', at: { line: 6 } });
    expect(kind(flag.replace('%', 'stdio'))).toMatchObject({ kind: 'stdio', at: { line: 6 } });
    expect(kind('    ports: ["8080:8080"]\n    environment:\n      MCP_TRANSPORT: stdio\n')).toMatchObject({
      kind: 'stdio',
      at: { line: 6 },
    });
  });

  it('a transport written as a word of its own, as server-everything and python server.py take it', () => {
    expect(kind('    command: ["python", "server.py", "sse"]\n').kind).toBe('http');
    expect(fact(server('    command: ["python", "server.py", "sse"]\n'), 'transport.legacy_sse')).toBe(true);
    expect(server('    command: ["python", "server.py", "sse"]\n').sources['transport.legacy_sse']![0]!.why).toBe(
      'the server is started with the transport word sse: the deprecated HTTP+SSE transport',
    );
    expect(kind('    command: npx -y @modelcontextprotocol/server-everything streamableHttp\n').kind).toBe('http');
    expect(kind('    command: ["node", "index.js", "stdio"]\n').kind).toBe('stdio');
    // A flag's value is the flag's, not a transport: `--mode sse`, `--name stdio`.
    expect(kind('    command: ["python", "server.py", "--name", "stdio"]\n').kind).toBeUndefined();
  });

  // firecrawl/firecrawl-mcp-server's Dockerfile.service starts docker/entrypoint.sh;
  // agentic-community/mcp-gateway-registry's writes /entrypoint.sh with one echo.
  const copied = (script: string) => ({
    Dockerfile:
      'FROM python:3.13-slim\nRUN pip install mcp==1.9.0\nCOPY docker/entrypoint.sh /entrypoint.sh\nENTRYPOINT ["/entrypoint.sh"]\n',
    'docker/entrypoint.sh': script,
  });

  it("reads the command an entrypoint script ends in, the build's copy or its echo", () => {
    const sse = server('', copied('#!/bin/sh\nset -e\n# start\nexec python server.py --port "$PORT" --transport sse "$@"\n'));
    expect(fact(sse, 'transport.kind')).toBe('http');
    expect(sse.sources['transport.kind']![0]).toMatchObject({ file: 'docker/entrypoint.sh', line: 4, why: 'started with --transport sse' });
    expect(fact(sse, 'transport.legacy_sse')).toBe(true);
    expect(sse.sources['transport.legacy_sse']![0]).toMatchObject({ file: 'docker/entrypoint.sh', line: 4 });
    const echoed = {
      Dockerfile:
        'FROM python:3.13-slim\nRUN pip install mcp==1.9.0\nRUN echo \'#!/bin/bash\\n\\\nset -e\\n\\\nexec python server.py --transport stdio\' > /entrypoint.sh && \\\n    chmod +x /entrypoint.sh\nENTRYPOINT ["/entrypoint.sh"]\n',
    };
    expect(kind('', echoed)).toMatchObject({ kind: 'stdio', at: { file: 'Dockerfile', line: 3 } });
    // Its last command where it has no exec line.
    expect(kind('', copied('#!/bin/sh\nif [ -n "$DEBUG" ]; then set -x; fi\npython server.py --transport stdio\n')).kind).toBe('stdio');
  });

  it('not when the service replaces the entrypoint, nor a script the files do not hold', () => {
    const script = copied('#!/bin/sh\nexec python server.py --transport sse\n');
    expect(kind('    entrypoint: ["python", "server.py"]\n', script).kind).toBeUndefined();
    expect(kind('', { Dockerfile: script.Dockerfile }).kind).toBeUndefined();
  });

  // vakosta/telegram-mcp: `CMD ["sh", "/app/start.sh"]`, a script written with printf that exports
  // MCP_TRANSPORT=sse before its exec line; the service keeps stdin open all the same.
  const printed = {
    Dockerfile: [
      'FROM python:3.13-alpine',
      'RUN pip install mcp==1.9.0',
      "RUN printf '#!/bin/sh\\nexport MCP_TRANSPORT=sse\\nexport PORT=${PORT:-8080}\\nexec python /app/main.py\\n' > /app/start.sh && \\",
      '    chmod +x /app/start.sh',
      'CMD ["sh", "/app/start.sh"]',
      '',
    ].join('\n'),
  };

  it('takes what the script exports for the command it hands over to, over stdin_open', () => {
    const d = server('    stdin_open: true\n', printed);
    expect(fact(d, 'transport.kind')).toBe('http');
    expect(fact(d, 'transport.legacy_sse')).toBe(true);
    expect(d.sources['transport.kind']![0]).toMatchObject({ file: 'Dockerfile', line: 3, why: 'MCP_TRANSPORT=sse' });
    // Set inside an `if`, it depends on what the environment holds: not read.
    const guarded = copied('#!/bin/sh\nif [ -n "$REMOTE" ]; then\n  export MCP_TRANSPORT=sse\nfi\nexec python server.py\n');
    expect(kind('    stdin_open: true\n', guarded)).toMatchObject({ kind: 'stdio', at: { file: 'compose.yaml' } });
  });

  it("not a script the image's CMD starts when the service replaces the CMD", () => {
    expect(kind('    command: ["python", "/app/main.py"]\n    stdin_open: true\n', printed).kind).toBe('stdio');
  });
});

describe("an included file's relative paths", () => {
  // atrawog/mcp-oauth-gateway: the root compose file includes each service's own, whose build
  // context (../), bind mounts and the Traefik container's ./dynamic are relative to that file.
  const out = collectWith(
    inline({
      'docker-compose.yml': 'include:\n  - traefik/docker-compose.yml\n  - mcp-fetch/docker-compose.yml\n',
      'traefik/docker-compose.yml':
        'services:\n  traefik:\n    image: traefik:v3.1\n    ports: ["443:443"]\n    volumes: ["./dynamic:/etc/traefik/dynamic:ro"]\n',
      'traefik/dynamic/middlewares.yml':
        'http:\n  middlewares:\n    mcp-cors:\n      headers:\n        accessControlAllowOriginList: ["*"]\n',
      'mcp-fetch/docker-compose.yml': [
        'services:',
        '  mcp-fetch:',
        '    build:',
        '      context: ../',
        '      dockerfile: mcp-fetch/Dockerfile',
        '    env_file: [fetch.env]',
        '    labels:',
        '      - traefik.http.routers.mcp-fetch.rule=Host(`fetch.example.org`)',
        '      - traefik.http.routers.mcp-fetch.tls.certresolver=le',
        '      - traefik.http.routers.mcp-fetch.middlewares=mcp-cors@file',
        '',
      ].join('\n'),
      'mcp-fetch/Dockerfile': 'FROM python:3.13-slim\nRUN pip install mcp-server-fetch==2025.4.7\nUSER 1000\nCMD ["mcp-server-fetch"]\n',
      'mcp-fetch/fetch.env': 'FETCH_TOKEN=abc123def456\n',
    }),
  );
  const d = out.deployments.find((x) => x.name.endsWith(':mcp-fetch'))!;

  it("resolve from that file's directory, as Compose resolves them", () => {
    expect(fact(d, 'supply_chain.builds_server')).toBe(true);
    expect(d.sources['supply_chain.builds_server']![0]!.why).toBe('the image is built here from mcp-fetch/Dockerfile');
    expect(fact(d, 'container.runs_as_root')).toBe(false);
    expect(d.sources['container.secrets_source']![0]).toMatchObject({ file: 'mcp-fetch/fetch.env', line: 1 });
    expect(fact(d, 'http.cors_allow_any_origin')).toBe(true);
    expect(d.sources['http.cors_allow_any_origin']![0]).toMatchObject({ file: 'traefik/dynamic/middlewares.yml' });
  });
});

describe('an agent that calls the MCP server of its project', () => {
  // docker/compose-for-agents: agents built with an MCP SDK call docker/mcp-gateway.
  const project = (agentEnv: string) =>
    collectWith(
      inline({
        'agent/pyproject.toml': '[project]\nname = "critic"\ndependencies = ["mcp>=1.9"]\n',
        'agent/Dockerfile': 'FROM python:3.13-slim\nCOPY pyproject.toml .\nRUN pip install .\nCMD ["python", "-m", "critic"]\n',
        'compose.yaml': [
          'services:',
          '  critic:',
          '    build: agent',
          '    environment:',
          `      - ${agentEnv}`,
          '  mcp-gateway:',
          '    image: docker/mcp-gateway:latest',
          '    command: [--transport=sse]',
          '',
        ].join('\n'),
      }),
    );

  it('is a client of it, not a server, whether the URL has the MCP path or its variable says MCP', () => {
    for (const env of ['MCPGATEWAY_ENDPOINT=http://mcp-gateway:8811/sse', 'MCP_GATEWAY_URL=http://mcp-gateway:8811']) {
      const out = project(env);
      expect(out.deployments.map((d) => d.name)).toEqual(['compose:compose.yaml:mcp-gateway']);
      expect(out.notes).toContainEqual({
        file: 'compose.yaml',
        what: "service critic calls mcp-gateway's MCP endpoint: a client of it (the MCP SDK in its build serves clients too), not read as a server; name it with --server if it serves MCP as well",
      });
    }
    // Unless it serves MCP too (tchiro88/MCP_CREATOR's mcp-integrator: MCP_TRANSPORT=http beside its backends' URLs).
    const both = collectWith(
      inline({
        'agent/pyproject.toml': '[project]\nname = "critic"\ndependencies = ["mcp>=1.9"]\n',
        'agent/Dockerfile': 'FROM python:3.13-slim\nCOPY pyproject.toml .\nRUN pip install .\nCMD ["python", "-m", "critic"]\n',
        'compose.yaml':
          'services:\n  critic:\n    build: agent\n    environment:\n      - MCP_GATEWAY_URL=http://mcp-gateway:8811\n      - MCP_TRANSPORT=http\n  mcp-gateway:\n    image: docker/mcp-gateway:latest\n    command: [--transport=sse]\n',
      }),
    );
    expect(both.deployments.map((d) => d.name)).toEqual(['compose:compose.yaml:critic', 'compose:compose.yaml:mcp-gateway']);
    // Its backends, named for MCP and built without an SDK, stay servers: it calls them at their MCP endpoints
    // (TheLukasHenry/proxy-server's mcp-proxy, MCP_GITHUB_URL=http://mcp-github:8000).
    const gateway = collectWith(
      inline({
        'compose.yaml':
          'services:\n  mcp-proxy:\n    image: ghcr.io/acme/mcp-proxy:1.0.0\n    environment:\n      - MCP_GITHUB_URL=http://mcp-github:8000\n    ports: ["9090:9090"]\n  mcp-github:\n    build: ./github\n    expose: ["8000"]\n',
        'github/Dockerfile': 'FROM node:22-slim\nCOPY package.json .\nRUN npm install\nCMD ["node", "server.js"]\n',
        'github/package.json': JSON.stringify({ name: 'github', dependencies: { express: '4.21.0' } }),
      }),
    );
    expect(gateway.deployments.map((d) => d.name)).toEqual(['compose:compose.yaml:mcp-github', 'compose:compose.yaml:mcp-proxy']);
    // Another URL of it (its health, a web page) is no call to its MCP endpoint.
    expect(project('GATEWAY_HEALTH=http://mcp-gateway:8811/health').deployments.map((d) => d.name)).toEqual([
      'compose:compose.yaml:critic',
      'compose:compose.yaml:mcp-gateway',
    ]);
  });
});

describe('an external network', () => {
  // korotovsky/slack-mcp-server's docker-compose.yml: the server's only network is app-tier, external: true.
  const egress = (networks: string) =>
    collectWith(
      inline({
        'compose.yaml': `services:\n  mcp-server:\n    image: ghcr.io/korotovsky/slack-mcp-server:v1.1.0\n    ports: ["3001:3001"]\n    networks: [app-tier]\nnetworks:\n${networks}`,
      }),
    ).deployments[0]!;

  it('was created outside the files: whether it is internal is not in them', () => {
    const d = egress('  app-tier:\n    name: app-tier\n    external: true\n');
    expect(fact(d, 'egress.network_restricted')).toBeUndefined();
    expect(d.reasons['egress.network_restricted']).toBe(
      'network app-tier is external: created outside these files, which do not say whether it is internal',
    );
    expect(fact(egress('  app-tier:\n    internal: true\n'), 'egress.network_restricted')).toBe(true);
    expect(fact(egress('  app-tier: {}\n'), 'egress.network_restricted')).toBe(false);
  });

  it('behind a proxy on it, containers outside the files may reach the server too', () => {
    // atrawog/mcp-oauth-gateway: Traefik and the servers on the external network public.
    const behind = (external: string) =>
      collectWith(
        inline({
          'compose.yaml': [
            'services:',
            '  proxy:',
            '    image: nginx:1.30-trixie',
            '    ports: ["443:443"]',
            '    networks: [public]',
            '    volumes: ["./nginx.conf:/etc/nginx/conf.d/default.conf:ro"]',
            '  mcp-server:',
            '    image: ghcr.io/acme/mcp:1.0.0',
            '    networks: [public]',
            'networks:',
            `  public:${external}`,
            '',
          ].join('\n'),
          'nginx.conf': 'server {\n  listen 443 ssl;\n  location /mcp {\n    proxy_pass http://mcp-server:8000;\n  }\n}\n',
        }),
      ).deployments[0]!;
    expect(fact(behind(' {}'), 'exposure.ingress_restricted_to_proxy')).toBe(true);
    const external = behind('\n    external: true');
    expect(fact(external, 'exposure.ingress_restricted_to_proxy')).toBeUndefined();
    expect(external.reasons['exposure.ingress_restricted_to_proxy']).toBe(
      'network public is external: containers outside these files may share it with the server',
    );
  });

  it('with no proxy of the project, one outside the files may front the server there', () => {
    // WebSurfinMurf/mcp: each server on the external traefik-net, Traefik defined in another stack.
    const on = (lines: string, external: string) =>
      collectWith(
        inline({
          'compose.yaml': `services:\n  mcp-server:\n    image: ghcr.io/acme/mcp:1.0.0\n    command: ["--transport", "http"]\n${lines}    networks: [traefik-net]\nnetworks:\n  traefik-net:${external}\n`,
        }),
      ).deployments[0]!;
    const closed = on('', ' {}');
    expect(fact(closed, 'exposure.reachable_from_internet')).toBe(false);
    expect(fact(closed, 'exposure.endpoint_address_class')).toBe('private');
    expect(fact(closed, 'exposure.behind_reverse_proxy')).toBe(false);
    const open = on('', '\n    external: true');
    const why = 'network traefik-net is external: a proxy or tunnel outside these files may reach the server on it';
    // Maicon-Bartoski-Saas/mcp-server: whether only that proxy reaches it is open as well.
    for (const k of [
      'exposure.reachable_from_internet',
      'exposure.endpoint_address_class',
      'exposure.behind_reverse_proxy',
      'exposure.ingress_restricted_to_proxy',
    ]) {
      expect(fact(open, k), k).toBeUndefined();
      expect(open.reasons[k], k).toBe(why);
    }
    // Published on loopback too: still reachable through the network; a port of its own stays a way past any proxy.
    const loopback = on('    ports: ["127.0.0.1:9075:8000"]\n', '\n    external: true');
    expect(fact(loopback, 'exposure.reachable_from_internet')).toBeUndefined();
    expect(fact(loopback, 'exposure.behind_reverse_proxy')).toBe(false);
    expect(fact(loopback, 'exposure.ingress_restricted_to_proxy')).toBe(false);
  });
});

describe('a certificate and its key in the environment of a server nothing fronts', () => {
  const tls = (env: string) => {
    const d = collectWith(
      inline({
        'compose.yaml': `services:\n  mcp:\n    image: ghcr.io/acme/mcp:1.0.0\n    command: ["--transport", "http"]\n    ports: ["443:8000"]\n    environment:\n${env}`,
      }),
    ).deployments[0]!;
    return { tls: fact(d, 'tls.enabled'), why: d.sources['tls.enabled']?.[0]?.why ?? d.reasons['tls.enabled'] };
  };

  it('serves TLS itself: variables named for the server', () => {
    // dgarcoe/dx_cluster_mcp_server's docker-compose.production.yml, handed to uvicorn by the server.
    expect(tls('      - MCP_SSL_CERTFILE=/app/certs/fullchain.pem\n      - MCP_SSL_KEYFILE=/app/certs/privkey.pem\n')).toEqual({
      tls: true,
      why: 'the server serves TLS itself (MCP_SSL_CERTFILE and its key in its environment)',
    });
    expect(tls('      - TLS_CERT_FILE=/certs/tls.crt\n      - TLS_KEY_FILE=/certs/tls.key\n').tls).toBe(true);
    expect(tls('      - UVICORN_SSL_CERTFILE=/c.pem\n      - UVICORN_SSL_KEYFILE=/k.pem\n').tls).toBe(true);
  });

  it('with none, a service of the stack that calls its MCP endpoint in plain HTTP shows it speaks plain HTTP', () => {
    // whales-workshops/mcp-gateway-experiments: the client's MCP_HOST=http://mcp-gateway:9011/mcp.
    const d = collectWith(
      inline({
        'compose.yaml':
          'services:\n  mcp-gateway:\n    image: docker/mcp-gateway:latest\n    command: ["--transport", "streaming", "--port", "9011"]\n  client:\n    image: ghcr.io/acme/agent:1.0.0\n    environment:\n      - MCP_HOST=http://mcp-gateway:9011/mcp\n',
      }),
    ).deployments.find((x) => x.name.endsWith(':mcp-gateway'))!;
    expect(fact(d, 'tls.enabled')).toBe(false);
    expect(d.sources['tls.enabled']![0]!.why).toBe(
      'service client calls it at http://mcp-gateway:9011/mcp, with nothing in front: the endpoint speaks plain HTTP',
    );
  });

  it("a plain health check on a port a variable's default gives, or on the MCP endpoint beside other ports", () => {
    const tls = (service: string, dockerfile = 'FROM node:22-slim\nCMD ["node", "server.js"]\n') =>
      fact(
        collectWith(inline({ 'compose.yaml': `services:\n  mcp:\n    build: .\n${service}`, Dockerfile: dockerfile })).deployments[0]!,
        'tls.enabled',
      );
    // agigante80/actual-mcp-server: `HEALTHCHECK CMD curl -f http://localhost:${MCP_BRIDGE_PORT:-3600}/health`, 3600:3600.
    const hc = 'FROM node:22-slim\nHEALTHCHECK CMD curl -f http://localhost:${MCP_BRIDGE_PORT:-3600}/health\nCMD ["node", "server.js"]\n';
    expect(tls('    ports: ["3600:3600"]\n', hc)).toBe(false);
    expect(tls('    ports: ["3700:3700"]\n    environment:\n      MCP_BRIDGE_PORT: "3700"\n', hc)).toBe(false);
    // fyl080801/comfyui-mcp: 3000 and 8080 published, the check fetches http://localhost:8080/mcp.
    const two = (url: string) =>
      tls(`    ports: ["3000:3000", "8080:8080"]\n    healthcheck:\n      test: ["CMD", "curl", "-f", "${url}"]\n`);
    expect(two('http://localhost:8080/mcp')).toBe(false);
    // A health path beside other ports says nothing of the endpoint's port, and the reason says so.
    expect(two('http://localhost:8080/health')).toBeUndefined();
    const reason = collectWith(
      inline({
        'compose.yaml':
          'services:\n  mcp:\n    build: .\n    ports: ["3000:3000", "8080:8080"]\n    healthcheck:\n      test: ["CMD", "curl", "-f", "http://localhost:8080/api/health"]\n',
        Dockerfile: 'FROM node:22-slim\nCMD ["node", "server.js"]\n',
      }),
    ).deployments[0]!.reasons['tls.enabled'];
    expect(reason).toMatch(/its health check fetches plain HTTP, but it publishes several ports \(3000:3000, 8080:8080\)/);
  });

  it("not a client certificate to a datastore, OpenSSL's trust store, a certificate without its key or an empty value", () => {
    const open =
      'nothing fronts the server, and neither its command nor its environment gives it a certificate, nor does a health check show plain HTTP: whether it serves TLS is in its code';
    for (const env of [
      '      - DB_SSL_CERT=/c.pem\n      - DB_SSL_KEY=/k.pem\n',
      '      - SSL_CERT_FILE=/etc/ssl/certs/ca.pem\n      - SSL_KEY_FILE=/k.pem\n',
      '      - MCP_SSL_CERTFILE=/c.pem\n',
      '      - MCP_SSL_CERTFILE=\n      - MCP_SSL_KEYFILE=\n',
    ])
      expect(tls(env), env).toEqual({ tls: undefined, why: open });
  });
});

describe('labels that route a Traefik the files do not hold', () => {
  // Maicon-Bartoski-Saas/mcp-server's docker-stack.yml: Traefik in another stack on the external network `cloud`.
  const stack = (labels: string, ports = '', where = '    labels:\n') =>
    deploymentOf(
      collectWith(
        inline({
          'docker-stack.yml': `services:\n  mcp-server:\n    image: ghcr.io/acme/mcp-server:1.2.3\n${ports}${where}${labels}    networks: [cloud]\nnetworks:\n  cloud:\n    external: true\n`,
        }),
      ),
      ':mcp-server',
    );
  const router =
    '      - traefik.http.routers.mcp-server.rule=Host(`mcp.example.com`)\n      - traefik.http.services.mcp-server.loadbalancer.server.port=8080\n';

  it('make it an HTTP server that Traefik may front and may terminate TLS for', () => {
    for (const where of ['    labels:\n', '    deploy:\n      labels:\n']) {
      const d = stack(router.replace(/ {6}/g, where.startsWith('    deploy') ? '        ' : '      '), '', where);
      expect(fact(d, 'transport.kind'), where).toBe('http');
      expect(d.sources['transport.kind']![0]).toEqual({
        file: 'docker-stack.yml',
        line: where.startsWith('    deploy') ? 6 : 5,
        why: 'its label traefik.http.routers.mcp-server.rule has Traefik forward HTTP to it',
      });
      expect(fact(d, 'tls.enabled')).toBeUndefined();
      expect(d.reasons['tls.enabled']).toBe(
        'its label traefik.http.routers.mcp-server.rule routes a Traefik the files do not hold to it, which may terminate TLS',
      );
      expect(fact(d, 'exposure.behind_reverse_proxy')).toBeUndefined();
    }
    // A TCP route only says nothing of HTTP; with no label the transport stays open.
    expect(
      fact(stack('      - traefik.enable=true\n      - traefik.tcp.routers.db.rule=HostSNI(`*`)\n'), 'transport.kind'),
    ).toBeUndefined();
    expect(fact(stack('      - com.example.team=ai\n'), 'transport.kind')).toBeUndefined();
  });

  it('a port the server publishes itself stays a way past that Traefik', () => {
    // tomcat65/neural-ai-collaboration-platform's docker-compose.unified-neural-mcp.yml publishes 6174 beside its labels.
    const d = stack(router, '    ports: ["6174:8080"]\n');
    expect(fact(d, 'exposure.behind_reverse_proxy')).toBe(false);
    expect(d.sources['exposure.behind_reverse_proxy']![0]!.why).toBe(
      'the server publishes port 6174:8080 itself: clients can bypass the Traefik its labels name',
    );
  });
});

describe('Traefik in a Swarm stack reads deploy.labels', () => {
  const stack = (provider: string, where: 'labels' | 'deploy') => {
    const labels = [
      '      - traefik.enable=true',
      '      - traefik.http.routers.mcp.rule=Host(`mcp.example.org`)',
      '      - traefik.http.routers.mcp.tls.certresolver=le',
    ];
    return deploymentOf(
      collectWith(
        inline({
          'docker-stack.yml': [
            'services:',
            '  traefik:',
            '    image: traefik:v3.1',
            `    command: ["${provider}", "--entrypoints.websecure.address=:443"]`,
            '    ports: ["443:443"]',
            '  mcp:',
            '    image: ghcr.io/acme/mcp:2.1.0',
            '    command: ["--transport", "http"]',
            ...(where === 'deploy' ? ['    deploy:', '      labels:', ...labels.map((l) => `  ${l}`)] : ['    labels:', ...labels]),
          ].join('\n'),
        }),
      ),
      ':mcp',
    );
  };

  it('with the swarm provider, the routers under deploy.labels decide; with the docker provider, the container labels', () => {
    expect(fact(stack('--providers.swarm=true', 'deploy'), 'tls.enabled')).toBe(true);
    expect(fact(stack('--providers.swarm.endpoint=unix:///var/run/docker.sock', 'deploy'), 'tls.enabled')).toBe(true);
    expect(fact(stack('--providers.docker.swarmMode=true', 'deploy'), 'tls.enabled')).toBe(true);
    expect(fact(stack('--providers.docker=true', 'labels'), 'tls.enabled')).toBe(true);
    // Each provider reads only its own set: routers it does not read route nothing.
    expect(fact(stack('--providers.docker=true', 'deploy'), 'tls.enabled')).toBeUndefined();
    expect(fact(stack('--providers.swarm=true', 'labels'), 'tls.enabled')).toBeUndefined();
  });
});

describe('network_mode: host', () => {
  it("egress is the host's own network, open as the host is", () => {
    // Alzarak/Kali-Linux-MCP, as a client entry's `docker run --network host` reads.
    const d = collectWith(
      inline({ 'compose.yaml': 'services:\n  kali-mcp-server:\n    image: acme/kali-mcp:1.0\n    network_mode: host\n' }),
    ).deployments[0]!;
    expect(fact(d, 'egress.network_restricted')).toBe(false);
    expect(d.sources['egress.network_restricted']![0]).toMatchObject({ line: 4 });
  });
});

describe("a transport variable that is not the server's", () => {
  it('LOG_TRANSPORT=http says nothing of how MCP is served; K8S_MCP_TRANSPORT=stdio does', () => {
    const d = (env: string) =>
      collectWith(inline({ 'compose.yaml': `services:\n  mcp-server:\n    image: acme/mcp:1.0.0\n    environment:\n      ${env}\n` }))
        .deployments[0]!;
    expect(fact(d('LOG_TRANSPORT: http'), 'transport.kind')).toBeUndefined();
    // alexei-led/k8s-mcp-server's deploy/docker/docker-compose.yml.
    expect(fact(d('K8S_MCP_TRANSPORT: stdio'), 'transport.kind')).toBe('stdio');
  });
});

describe('a client configuration among the files that reaches a published port', () => {
  it('shows the endpoint speaks plain HTTP where nothing fronts the server', () => {
    // Azure-Samples/azure-ai-travel-agents: .vscode/mcp.json's `http://localhost:5004/mcp` and `"5004:3000"`.
    const d = (url: string) =>
      deploymentOf(
        collectWith(
          inline({
            'docker-compose.yml': 'services:\n  tool-echo-ping:\n    image: acme/echo-ping-mcp:1.0.0\n    ports: ["5004:3000"]\n',
            '.vscode/mcp.json': JSON.stringify(
              { servers: { other: { url: 'https://example.com/mcp' }, echo: { type: 'http', url } } },
              null,
              2,
            ),
          }),
        ),
        'compose:docker-compose.yml:tool-echo-ping',
      );
    const plain = d('http://localhost:5004/mcp');
    expect(fact(plain, 'tls.enabled')).toBe(false);
    expect(plain.sources['tls.enabled']![0]).toMatchObject({ file: '.vscode/mcp.json' });
    // Another port is another server.
    expect(fact(d('http://localhost:5005/mcp'), 'tls.enabled')).toBeUndefined();
  });
});

describe('supergateway with nothing in front', () => {
  it('serves plain HTTP: it has no TLS options', () => {
    // stadiumphenom/primus_stack: supergateway bridges in Compose, published, no proxy.
    const d = (command: string) =>
      collectWith(
        inline({
          'compose.yaml': `services:\n  memory-mcp:\n    image: node:22-slim\n    command: ${command}\n    ports: ["8000:8000"]\n`,
        }),
      ).deployments[0]!;
    const served = d(
      '["npx", "-y", "supergateway@3.4.3", "--stdio", "npx -y @modelcontextprotocol/server-memory@2025.8.4", "--port", "8000"]',
    );
    expect(fact(served, 'tls.enabled')).toBe(false);
    expect(served.sources['tls.enabled']![0]!.why).toBe('supergateway serves plain HTTP (it has no TLS options), and nothing fronts it');
  });
});

describe("a Docker-label MCP gateway's labels", () => {
  it('mark the service an MCP server, and its transport', () => {
    // matthewdart/toolbox: `mcp.enabled: "true"`, `mcp.transport: "stdio"`, the Docker socket and ~/.ssh mounted.
    const walk = (labels: string) =>
      collectWith(
        inline({
          'docker-compose.yml': `services:\n  toolbox:\n    image: ghcr.io/acme/toolbox:latest\n    volumes: ["/var/run/docker.sock:/var/run/docker.sock:ro"]\n    labels:\n${labels}`,
        }),
        { named: [] },
      ).deployments;
    const d = walk('      mcp.enabled: "true"\n      mcp.transport: "stdio"\n');
    expect(d.map((x) => [x.name, x.sources['container.used']![0]!.why])).toEqual([
      ['compose:docker-compose.yml:toolbox', 'service toolbox runs in a container (its label mcp.enabled: true marks it an MCP server)'],
    ]);
    expect([fact(d[0]!, 'transport.kind'), fact(d[0]!, 'container.docker_socket_mounted')]).toEqual(['stdio', true]);
    expect(d[0]!.sources['transport.kind']![0]).toMatchObject({ line: 7, why: 'its label mcp.transport says stdio' });
    // Other labels mark nothing.
    expect(walk('      com.example.team: "tools"\n')).toEqual([]);
  });
});

describe("the project's only proxy, its configuration not among the files", () => {
  it('is in front of a server that serves HTTP, not of one that says it speaks stdio', () => {
    // loaishar/mcp-server's docker/docker-compose.yml: nginx mounts ./nginx.conf, which the repository does not hold.
    const run = (env: string) =>
      deploymentOf(
        collectWith(
          inline({
            'compose.yaml': `services:\n  unified-mcp:\n    image: acme/unified-mcp:1.0.0\n    environment:\n      - MCP_TRANSPORT=${env}\n  nginx:\n    image: nginx:1.27\n    ports: ["443:443"]\n    volumes: ["./nginx.conf:/etc/nginx/nginx.conf:ro"]\n`,
          }),
        ),
        ':unified-mcp',
      );
    const stdio = run('stdio');
    expect([fact(stdio, 'transport.kind'), fact(stdio, 'exposure.behind_reverse_proxy')]).toEqual(['stdio', false]);
    const http = run('http');
    expect([fact(http, 'transport.kind'), fact(http, 'exposure.behind_reverse_proxy')]).toEqual(['http', true]);
  });
});

describe('a service that names a registry image and a build', () => {
  // unclecode/crawl4ai's docker-compose.yml: `image: unclecode/crawl4ai:latest` beside `build: .`. Compose
  // pulls the image first and builds only when the registry has none (pull_policy: build builds).
  const dockerfile =
    'FROM python:3.12-slim\nRUN pip install mcp fastapi\nUSER appuser\nHEALTHCHECK CMD curl -f http://localhost:8000/health\nCMD ["python", "server.py"]\n';
  const run = (image: string, extra = '') =>
    collectWith(
      inline({
        Dockerfile: dockerfile,
        'compose.yaml': `services:\n  mcp:\n    image: ${image}\n    build: .\n${extra}    ports: ["127.0.0.1:8000:8000"]\n`,
      }),
    ).deployments[0]!;

  it('what only the build decides stays open: the registry image may run instead', () => {
    const d = run('acme/mcp-server:latest');
    for (const path of [
      'supply_chain.builds_server',
      'supply_chain.lockfile_enforced',
      'container.runs_as_root',
      'container.healthcheck',
      // "No secret" rested on the build being the files' (derekslenk/airis-mcp-gateway).
      'container.secrets_source',
    ]) {
      expect(fact(d, path), path).toBeUndefined();
      expect(d.reasons[path], path).toMatch(
        /Compose pulls acme\/mcp-server:latest first and builds Dockerfile only when the registry has none/,
      );
    }
    // Both ways the tag names no digest, and both resolve versions at build time.
    expect(fact(d, 'container.image_pinned_by_digest')).toBe(false);
    expect(fact(d, 'supply_chain.deployed_release')).toBe('floating');
    // The compose file's own settings hold either way.
    expect(fact(d, 'container.published_ports')).toBe('loopback');
  });

  it("a transport only the build's files gave reopens the addresses that rest on it", () => {
    // Prometheus-P/hwp-bridge: `ENV HWP_MCP_TRANSPORT=http` in the image, `stdin_open: true` and no port in the service.
    const d = collectWith(
      inline({
        Dockerfile: 'FROM python:3.12-slim\nRUN pip install mcp==1.20.0\nUSER 1000\nENV MCP_TRANSPORT=http\nCMD ["python", "server.py"]\n',
        'compose.yaml': 'services:\n  mcp:\n    image: acme/mcp-server:latest\n    build: .\n    stdin_open: true\n',
      }),
    ).deployments[0]!;
    for (const path of [
      'transport.kind',
      'exposure.bind_address_class',
      'exposure.endpoint_address_class',
      'exposure.ingress_restricted_to_proxy',
    ]) {
      expect(fact(d, path), path).toBeUndefined();
      expect(d.reasons[path], path).toMatch(/Compose pulls acme\/mcp-server:latest first/);
    }
  });

  it('pull_policy: build, a bare local name or a digest decide which runs', () => {
    for (const d of [run('acme/mcp-server:latest', '    pull_policy: build\n'), run('mcp-server:local')]) {
      expect(fact(d, 'supply_chain.builds_server')).toBe(true);
      expect(fact(d, 'container.secrets_source')).toBe('none');
      expect(fact(d, 'container.runs_as_root')).toBe(false);
    }
    const pinned = run(`acme/mcp-server@sha256:${'a'.repeat(64)}`);
    expect(fact(pinned, 'container.image_pinned_by_digest')).toBe(true);
    expect(fact(pinned, 'supply_chain.deployed_release')).toBe('digest');
    expect(fact(pinned, 'container.runs_as_root')).toBeUndefined();
  });
});

describe('bind mounts and the host paths they expose', () => {
  const mounts = (volumes: string) => {
    const d = collectWith(
      inline({
        Dockerfile: 'FROM node:24-slim\nUSER node\nCMD ["node", "mcp-server.js"]\n',
        'compose.yaml': `services:\n  mcp:\n    build: .\n    volumes:\n${volumes}`,
      }),
    ).deployments[0]!;
    return fact(d, 'container.host_path_mounts') ?? `undecided: ${d.reasons['container.host_path_mounts']}`;
  };

  it('a variable set nowhere is still the path it names: ${HOME} is the home directory', () => {
    // Pimzino/spec-workflow-mcp's containers/docker-compose.yml.
    expect(mounts('      - "${HOME}/.spec-workflow-mcp:/home/node/.spec-workflow-mcp:rw"\n')).toBe('host_system');
    expect(mounts('      - "${HOST_PROJECT_ROOT:-${HOME}}:/projects:rw"\n')).toBe('host_system');
    expect(mounts('      - type: bind\n        source: ${HOME}/.config\n        target: /config\n')).toBe('host_system');
    // A directory a variable names, set nowhere: where it is on the host is not in the files.
    expect(mounts('      - "${DATA_DIR}:/data"\n')).toMatch(/^undecided: whether \$\{DATA_DIR\} belongs to the deployment/);
    expect(mounts('      - "${DATA_DIR:-./data}:/data"\n')).toBe('deployment_files');
  });

  it("the host's /tmp is a system path: other processes' sockets live there", () => {
    // jae-jae/fetcher-mcp's docker-compose.yml: `/tmp:/tmp` for Playwright.
    expect(mounts('      - /tmp:/tmp\n')).toBe('host_system');
    expect(mounts('      - ./tmp:/tmp\n')).toBe('deployment_files');
  });

  it('a source that starts with a dot is a path of the project, as Compose reads it', () => {
    // topoteretes/cognee's docker-compose.yml: `.env:/app/.env:ro`.
    expect(mounts('      - .env:/app/.env:ro\n')).toBe('deployment_files');
    expect(mounts('      - .config/app:/config\n')).toBe('deployment_files');
  });

  it('a relative source that climbs above the files read is not placed', () => {
    // WebSurfinMurf/mcp's filesystem-sse/docker-compose.yml: `../../:/workspace:ro`, the folder of every project.
    const at = (compose: string, volume: string) => {
      const d = collectWith(
        inline({
          [compose]: `services:\n  mcp:\n    image: mcp/filesystem:1.0.0\n    volumes:\n      - ${volume}\n`,
        }),
      ).deployments[0]!;
      return fact(d, 'container.host_path_mounts') ?? d.reasons['container.host_path_mounts'];
    };
    expect(at('filesystem-sse/docker-compose.yml', '../../:/workspace:ro')).toBe(
      '../../ climbs above the files read: what that host directory holds (other projects, their secrets) is not in them',
    );
    expect(at('compose.yaml', '../shared:/shared')).toMatch(/^\.\.\/shared climbs above the files read/);
    expect(at('deploy/compose.yaml', '../shared:/shared')).toBe('deployment_files');
    expect(at('deploy/compose.yaml', '/var/run/docker.sock:/var/run/docker.sock')).toBe('host_system');
  });

  it("the long syntax's bind source is a path of the project whatever it starts with; a short one's is a volume's name", () => {
    // hyprmcp/mcp-gateway's docker-compose.yaml: `type: bind`, `source: config.yaml`.
    expect(mounts('      - type: bind\n        source: config.yaml\n        target: /opt/config.yaml\n')).toBe('deployment_files');
    expect(mounts('      - type: volume\n        source: data\n        target: /data\n')).toBe('none');
    expect(mounts('      - data:/data\n')).toBe('none');
  });
});

describe("a build from a Git repository's URL", () => {
  // rjboer/Openhands-LIST-MCP's docker-compose.yml: `build: https://github.com/rjboer/Openhands-LIST-MCP.git#main`.
  const built = (build: string) => {
    const d = collectWith(inline({ 'docker-compose.yml': `services:\n  mcp-server:\n    build: ${build}\n    ports: ["3002:3002"]\n` }))
      .deployments[0]!;
    return {
      pinned: fact(d, 'container.image_pinned_by_digest'),
      builds: fact(d, 'supply_chain.builds_server'),
      release: fact(d, 'supply_chain.deployed_release') ?? d.reasons['supply_chain.deployed_release'],
      lockfile: d.reasons['supply_chain.lockfile_enforced'],
    };
  };

  it('builds the server, runs no digest, and floats on a branch', () => {
    expect(built('https://github.com/rjboer/Openhands-LIST-MCP.git#main')).toEqual({
      pinned: false,
      builds: true,
      release: 'floating',
      lockfile:
        'built from https://github.com/rjboer/Openhands-LIST-MCP.git#main: the Dockerfile and what it installs are in that repository, not among the files',
    });
    expect(built('{ context: "git@github.com:acme/mcp.git" }').release).toBe('floating');
  });

  it('a tag or a commit fixes the source, not what its Dockerfile installs', () => {
    expect(built('https://github.com/acme/mcp.git#v1.4.0').release).toBe(
      'builds v1.4.0 of the repository: the Dockerfile and what it installs are in that repository, not among the files',
    );
  });
});

describe('a service that extends one in a file the project does not otherwise load', () => {
  // Tributary-ai-services/tas-mcp's deployments/docker-compose/full-stack.yml: `extends: { file:
  // apify-mcp/docker-compose.yml, service: apify-mcp }`, whose build context is relative to that file.
  const files = {
    'deploy/full-stack.yml': 'services:\n  apify-mcp:\n    extends:\n      file: apify-mcp/docker-compose.yml\n      service: apify-mcp\n',
    'deploy/apify-mcp/docker-compose.yml':
      'services:\n  apify-mcp:\n    build: .\n    ports: ["127.0.0.1:3005:3005"]\n    read_only: true\n  other:\n    image: redis:7\n',
    'deploy/apify-mcp/Dockerfile': 'FROM node:22-slim\nCOPY package.json ./\nRUN npm install\nUSER node\nCMD ["node", "server.js"]\n',
    'deploy/apify-mcp/package.json': '{"name": "apify-mcp", "dependencies": {"@modelcontextprotocol/sdk": "^1.0.0"}}',
  };

  it('reads the base service from that file, its paths from its directory, and adds none of its other services', () => {
    const c = collectWith(inline(files), { compose: [['deploy/full-stack.yml']] });
    const d = deploymentOf(c, 'compose:deploy/full-stack.yml:apify-mcp');
    expect(c.notes.map((n) => n.what).join('\n')).not.toMatch(/not among the files read/);
    expect(fact(d, 'container.read_only_root_fs')).toBe(true);
    expect(d.sources['container.read_only_root_fs']![0]).toMatchObject({ file: 'deploy/apify-mcp/docker-compose.yml', line: 5 });
    // The build context `.` is the extended file's directory: its Dockerfile is read.
    expect(fact(d, 'container.runs_as_root')).toBe(false);
    expect(d.sources['container.runs_as_root']![0]).toMatchObject({ file: 'deploy/apify-mcp/Dockerfile' });
    expect(c.deployments.filter((x) => x.name.startsWith('compose:deploy/full-stack.yml')).map((x) => x.name)).toEqual([
      'compose:deploy/full-stack.yml:apify-mcp',
    ]);
  });

  it("the extended file's settings hold when a published image may run instead of the build", () => {
    const withImage = {
      ...files,
      'deploy/apify-mcp/docker-compose.yml': files['deploy/apify-mcp/docker-compose.yml'].replace(
        '    build: .\n',
        '    build: .\n    image: tas-mcp/apify-mcp-server:1.0.0\n',
      ),
    };
    const d = deploymentOf(
      collectWith(inline(withImage), { compose: [['deploy/full-stack.yml']] }),
      'compose:deploy/full-stack.yml:apify-mcp',
    );
    expect(fact(d, 'container.published_ports')).toBe('loopback');
    expect(fact(d, 'container.read_only_root_fs')).toBe(true);
    // What only the build shows is open: the registry's image may run.
    expect(d.reasons['container.runs_as_root']).toMatch(/^Compose pulls tas-mcp\/apify-mcp-server:1\.0\.0 first/);
  });
});

describe('restart: "no", Compose\'s default, and a one-shot', () => {
  const names = (compose: string) => collectWith(inline({ 'compose.yaml': compose })).deployments.map((d) => d.name);

  it('a server started on its own with restart: no is a server; a job that waits on others is not', () => {
    // Malaccamaxgit/whatsapp-mcp-docker: `restart: no`, no ports, a stdio server.
    expect(names('services:\n  whatsapp-mcp:\n    image: malaccamax/whatsapp-mcp-docker:1.0.0\n    restart: no\n')).toEqual([
      'compose:compose.yaml:whatsapp-mcp',
    ]);
    // IBM/mcp-context-forge's register_fast_time: runs once the gateway is healthy, then exits.
    expect(
      names(
        'services:\n  mcp-gateway:\n    image: acme/mcp-gateway:1.0.0\n    ports: ["4444:4444"]\n  register-mcp:\n    image: acme/mcp-gateway:1.0.0\n    restart: "no"\n    depends_on:\n      mcp-gateway:\n        condition: service_healthy\n',
      ),
    ).toEqual(['compose:compose.yaml:mcp-gateway']);
  });
});

describe('an nginx that only serves files', () => {
  it('is no proxy: it neither fronts the server nor makes a server of what it names', () => {
    // ROFIIGANSS/deep-thought-platform: haproxy publishes 3000 for mcp-server; catalog-ui is
    // `FROM nginx:alpine` serving its build with try_files, and names consul in its environment.
    const files = (conf: string) =>
      inline({
        'compose.yaml': [
          'services:',
          '  mcp-server:',
          '    image: example/weather-mcp:1.0.0',
          '    environment: [MCP_TRANSPORT=sse]',
          '  consul:',
          '    image: hashicorp/consul:1.20',
          '  catalog-ui:',
          '    build: catalog-ui',
          '    ports: ["8080:80"]',
          '    environment: [CONSUL_HOST=consul]',
          '',
        ].join('\n'),
        'catalog-ui/Dockerfile':
          'FROM nginx:1.27-alpine\nCOPY nginx.conf /etc/nginx/conf.d/default.conf\nCOPY dist /usr/share/nginx/html\n',
        'catalog-ui/nginx.conf': conf,
      });
    const ui = 'server {\n  listen 80;\n  root /usr/share/nginx/html;\n  location / {\n    try_files $uri $uri/ /index.html;\n  }\n}\n';
    const out = collectWith(files(ui));
    expect(out.deployments.map((d) => d.name)).toEqual(['compose:compose.yaml:mcp-server']);
    expect(fact(out.deployments[0]!, 'exposure.behind_reverse_proxy')).toBe(false);
    // The same image with a proxy_pass is a proxy, read as one.
    const proxied = ui.replace('try_files $uri $uri/ /index.html;', 'proxy_pass http://mcp-server:8000/sse;');
    const front = deploymentOf(collectWith(files(proxied)), 'mcp-server');
    expect(fact(front, 'exposure.behind_reverse_proxy')).toBe(true);
  });
});

describe('a service that runs tests, makes certificates or only idles', () => {
  // 1AQuantum/websee-mcp-server (883b54a8): the server and two services built from the same
  // package.json (with @modelcontextprotocol/sdk) that run its tests.
  const files = {
    'package.json': JSON.stringify({ name: 'websee', dependencies: { '@modelcontextprotocol/sdk': '1.20.0' } }),
    Dockerfile: 'FROM node:24-trixie-slim\nWORKDIR /app\nCOPY . .\nRUN npm ci\nCMD ["node", "dist/index.js"]\n',
  };
  const service = (name: string, command: string) => `  ${name}:\n    build: .\n    stdin_open: true\n    command: ${command}\n`;
  const collect = (services: string, servers?: string[]) =>
    collectWith(inline({ ...files, 'compose.yaml': `services:\n  websee:\n    build: .\n    stdin_open: true\n${services}` }), { servers });

  it('is no server, with a note that says why', () => {
    const out = collect(
      service('test', 'npm test') +
        service('watch', '["npm", "run", "test:watch"]') +
        // 1trippycat/courtlistener-mcp's docker-compose.test.yml.

        service('pytest', 'sh -c "pip install -e . && python -m pytest -q"') +
        // ADORSYS-GIS/lightbridge-authz's authz-tls (shortened): certificates for every service, mcp.key among them.
        '  authz-tls:\n    image: alpine:3.20\n    command:\n      - sh\n      - -c\n      - |\n        set -e\n        apk add --no-cache openssl\n        openssl req -newkey rsa:2048 -nodes -keyout /tls/mcp.key -out /tls/mcp.csr -subj "/CN=authz-mcp"\n        openssl x509 -req -in /tls/mcp.csr -CA /tls/ca.crt -CAkey /tls/ca.key -out /tls/mcp.crt\n        chmod 644 /tls/mcp.key\n' +
        // pmcfadin/mcp-observability's mcp-certgen: named for what it does.
        '  mcp-certgen:\n    image: acme/certgen:1.0.0\n',
    );
    expect(out.deployments.map((d) => d.name)).toEqual(['compose:compose.yaml:websee']);
    expect(out.notes.map((n) => n.what)).toEqual(
      expect.arrayContaining([
        'service test is not read as a server: it runs tests (npm test); name it with --server if it serves MCP',
        'service watch is not read as a server: it runs tests (npm run test:watch); name it with --server if it serves MCP',
        'service pytest is not read as a server: it runs tests (python -m pytest -q); name it with --server if it serves MCP',
        'service authz-tls is not read as a server: it makes certificates (openssl req) and serves nothing; name it with --server if it serves MCP',
      ]),
    );
  });

  it('one that only idles may host a server a client starts with docker exec: its transport is open', () => {
    // Hawaiideveloper/mcp-kubernetes-platform-engineer: `command: ["/bin/sh", "-lc", "tail -f /dev/null"]` beside
    // published ports; its documentation runs `docker exec -i k8s-mcp-server python src/main.py --stdio`.
    const alone = (svc: string) => collectWith(inline({ ...files, 'compose.yaml': `services:\n${svc}` }));
    const dev = deploymentOf(
      alone(service('dev', '["/bin/sh", "-lc", "tail -f /dev/null"]').replace('    stdin_open: true\n', '    ports: ["3000:3000"]\n')),
      ':dev',
    );
    expect(fact(dev, 'transport.kind')).toBeUndefined();
    expect(dev.reasons['transport.kind']).toBe(
      "dev only idles (tail -f /dev/null): a server runs in it when started there, as a client's docker exec -i does, and which transport it then speaks is not in the files",
    );
    // 1trippycat/courtlistener-mcp's docker-compose.test.yml: a loop of sleeps, its stdin open.
    const loop = deploymentOf(alone(service('dev', 'bash -c "while true; do sleep 30; done"')), ':dev');
    expect(fact(loop, 'transport.kind')).toBeUndefined();
    // The image's CMD idles, the service sets none, whatever the image EXPOSEs (scogonw/mcp-proxmox).
    const image = deploymentOf(
      collectWith(
        inline({
          'compose.yaml': 'services:\n  mcp-proxmox:\n    build: .\n',
          Dockerfile: 'FROM node:22-slim\nCOPY . .\nRUN npm ci\nEXPOSE 3000\nCMD ["sleep", "infinity"]\n',
          'package.json': JSON.stringify({ name: 'mcp-proxmox', dependencies: { '@modelcontextprotocol/sdk': '1.20.0' } }),
          'package-lock.json': '{}',
        }),
      ),
      ':mcp-proxmox',
    );
    expect(image.reasons['transport.kind']).toMatch(/^mcp-proxmox only idles \(sleep infinity\)/);
    // sudsarkar13/deno-mcp's deno-dev: the image installs the server, the service idles; a walk keeps it.
    const installed = collectWith(
      inline({
        'docker-compose.yml': 'services:\n  dev:\n    build: .\n    ports: ["3001:3000"]\n    command: ["tail", "-f", "/dev/null"]\n',
        Dockerfile: 'FROM node:20-slim\nRUN npm install -g @sudsarkar13/deno-mcp\nUSER node\nCMD ["bash"]\n',
      }),
      { named: [] },
    );
    expect(installed.deployments.map((d) => [d.name, d.sources['container.used']![0]!.why])).toEqual([
      ['compose:docker-compose.yml:dev', 'service dev runs in a container (its image installs @sudsarkar13/deno-mcp)'],
    ]);
  });

  it('the command that stays running decides, and --server names one all the same', () => {
    const first = collectWith(
      inline({ ...files, 'compose.yaml': `services:\n${service('api', 'sh -c "npm test && node dist/index.js"')}` }),
    );
    expect(first.deployments.map((d) => d.name)).toEqual(['compose:compose.yaml:api']);
    expect(collect(service('test', 'npm test'), ['test']).deployments.map((d) => d.name)).toEqual(['compose:compose.yaml:test']);
  });
});

describe("a socat adapter that carries a client's stdio to a server's port", () => {
  it('is a client, not a stdio server', () => {
    // ofayese/mcp's dhv01mcp-socat-client: `socat STDIO TCP:localhost:8811` with stdin_open.
    const compose = [
      'services:',
      '  mcp-gateway:',
      '    image: docker/mcp-gateway:v2',
      '    command: ["--transport=sse", "--port=8811"]',
      '  mcp-socat-client:',
      '    image: alpine/socat:1.8.0.0',
      '    stdin_open: true',
      '    command: ["STDIO", "TCP:mcp-gateway:8811"]',
      '    entrypoint: ["socat"]',
    ].join('\n');
    expect(collectWith(inline({ 'compose.yaml': compose })).deployments.map((d) => d.name)).toEqual(['compose:compose.yaml:mcp-gateway']);
    // The image's own socat entrypoint, the command a string (the file as ofayese/mcp writes it).
    const own = compose.replace(
      '    command: ["STDIO", "TCP:mcp-gateway:8811"]\n    entrypoint: ["socat"]',
      '    command: STDIO TCP:localhost:${MCP_PORT:-8811}',
    );
    expect(own).toContain('command: STDIO TCP:localhost');
    expect(collectWith(inline({ 'compose.yaml': own })).deployments.map((d) => d.name)).toEqual(['compose:compose.yaml:mcp-gateway']);
  });
});

describe('a service another calls at its MCP endpoint', () => {
  it('is an MCP server, whatever it is named', () => {
    // emergingrobotics/genai-toolbox-testing: the agent's `MCP_URL=http://toolbox:5000/mcp/sse`.
    const compose = [
      'services:',
      '  toolbox:',
      '    image: us-central1-docker.pkg.dev/database-toolbox/toolbox/toolbox:0.9.0',
      '    ports: ["5000:5000"]',
      '  agent:',
      '    image: python:3.13-slim',
      '    environment:',
      '      - MCP_URL=http://toolbox:5000/mcp/sse',
      '',
    ].join('\n');
    const out = collectWith(inline({ 'compose.yaml': compose }));
    expect(out.deployments.map((d) => d.name)).toEqual(['compose:compose.yaml:toolbox']);
    expect(out.deployments[0]!.sources['container.used']![0]!.why).toBe(
      'service toolbox runs in a container (service agent calls its MCP endpoint)',
    );
  });
});

describe('an entrypoint script that drops root before starting the server', () => {
  // nordeim/Security-MCP-Server: USER root, docker/entrypoint.sh ending in `exec gosu mcp:mcp python -m mcp_server.server`.
  const files = (user = '') => ({
    Dockerfile:
      'FROM python:3.12-slim\nRUN pip install mcp==1.2.0\nCOPY docker/entrypoint.sh /entrypoint.sh\nUSER root\nENTRYPOINT ["/entrypoint.sh"]\n',
    'docker/entrypoint.sh': '#!/bin/sh\nset -e\nchown -R mcp:mcp /data\nexec gosu mcp:mcp python -m mcp_server.server\n',
    'compose.yaml': `services:\n  mcp:\n    build: .\n${user}    ports: ["127.0.0.1:8080:8080"]\n`,
  });

  it('runs the server as the user it drops to; a user the service sets decides instead', () => {
    const d = collectWith(inline(files())).deployments[0]!;
    expect(fact(d, 'container.runs_as_root')).toBe(false);
    expect(d.sources['container.runs_as_root']![0]).toEqual({
      file: 'docker/entrypoint.sh',
      line: 4,
      why: "gosu mcp:mcp starts the server as mcp:mcp (the entrypoint script drops the image's user)",
    });
    expect(fact(collectWith(inline(files('    user: root\n'))).deployments[0]!, 'container.runs_as_root')).toBe(true);
  });
});

describe('a Compose bind mount of a Windows path', () => {
  it('keeps its drive: the home directory and the drive root are system paths', () => {
    // ofayese/mcp's docker-compose.yml.
    for (const volume of ['c:/Users/ofayese/.docker/mcp/secrets:/secrets:ro', 'C:\\:/host/c:ro']) {
      const d = collectWith(
        inline({
          'compose.yaml': `services:\n  mcp-server:\n    image: acme/mcp-server:1.0.0\n    volumes:\n      - "${volume.replace(/\\/g, '\\\\')}"\n`,
        }),
      ).deployments[0]!;
      expect(fact(d, 'container.host_path_mounts'), volume).toBe('host_system');
    }
  });
});

describe('a server that publishes a port of its own beside a proxy', () => {
  it('is reached where it publishes, when that is wider than the proxy', () => {
    // cbcoutinho/nextcloud-mcp-server: the server on 127.0.0.1:8000, an nginx beside it publishing nothing.
    const compose = [
      'services:',
      '  mcp:',
      '    image: ghcr.io/cbcoutinho/nextcloud-mcp-server:0.40.0',
      '    ports: ["127.0.0.1:8000:8000"]',
      '  recipes:',
      '    image: nginx:1.27',
      '    volumes: ["./tests/fixtures/nginx.conf:/etc/nginx/conf.d/default.conf:ro"]',
    ].join('\n');
    const d = deploymentOf(collectWith(inline({ 'compose.yaml': compose })), ':mcp');
    expect(fact(d, 'exposure.endpoint_address_class')).toBe('loopback');
    expect(d.sources['exposure.endpoint_address_class']![0]!.why).toBe('mcp is published on 127.0.0.1:8000:8000 only');
    expect(fact(d, 'exposure.behind_reverse_proxy')).toBe(false);
  });
});

describe('services that are not MCP servers, however named', () => {
  it('the MCP Inspector started through an entrypoint script is a client', () => {
    // asaikali/remote-mcp-protocol's docker/compose.yaml: `command: ["/app/entry-point.sh", "inspector"]`,
    // whose script runs `npx @modelcontextprotocol/inspector`, beside the server it inspects.
    const out = collectWith(
      inline({
        'compose.yaml': [
          'services:',
          '  everything-sse:',
          '    image: ghcr.io/acme/mcp-everything:1.0.0',
          '    command: ["/app/entry-point.sh", "everything-sse"]',
          '    ports: ["3001:3001"]',
          '  mcp-inspector:',
          '    image: ghcr.io/acme/mcp-everything:1.0.0',
          '    command: ["/app/entry-point.sh", "inspector"]',
          '    ports: ["6274:6274"]',
          '',
        ].join('\n'),
      }),
    );
    expect(out.deployments.map((d) => d.name)).toEqual(['compose:compose.yaml:everything-sse']);
  });

  it('a sibling of the server that runs another program from the same build', () => {
    // ranjanjyoti152/LLM-MCP: mcp-server and dashboard built from one Dockerfile; dashboard runs `python dashboard.py`.
    const files = {
      Dockerfile:
        'FROM python:3.12-slim\nCOPY requirements.txt .\nRUN pip install -r requirements.txt\nCOPY . .\nCMD ["python", "server.py"]\n',
      'requirements.txt': 'mcp[cli]==1.20.0\n',
      'docker-compose.yml': [
        'services:',
        '  mcp-server:',
        '    build: .',
        '    ports: ["4040:4040"]',
        '  dashboard:',
        '    build: .',
        '    ports: ["4041:4041"]',
        '    command: ["python", "dashboard.py"]',
        '',
      ].join('\n'),
    };
    const out = collectWith(inline(files));
    expect(out.deployments.map((d) => d.name)).toEqual(['compose:docker-compose.yml:mcp-server']);
    expect(out.notes.map((n) => n.what)).toContain(
      "service dashboard runs another program (its command) from the image mcp-server serves MCP from: the MCP SDK in the build is that server's, and dashboard is not read as one; name it with --server if it serves MCP",
    );
    // A sibling whose command names MCP is a server of its own (an SSE and a stdio variant, say).
    const both = files['docker-compose.yml'].replace('python", "dashboard.py', 'python", "mcp_sse.py');
    expect(collectWith(inline({ ...files, 'docker-compose.yml': both })).deployments).toHaveLength(2);
  });

  it("a backend named for the server that depends on it, running another product's image", () => {
    // WebSurfinMurf/mcp's ib/docker-compose.yml: mcp-ib (the server) depends on mcp-ib-gateway,
    // which runs Interactive Brokers' gateway image.
    const compose = (gatewayImage: string) =>
      [
        'services:',
        '  mcp-ib:',
        '    image: ghcr.io/acme/mcp-ib:1.0.0',
        '    environment:',
        '      IB_HOST: mcp-ib-gateway',
        '    ports: ["48012:8000"]',
        '    depends_on: [mcp-ib-gateway]',
        '  mcp-ib-gateway:',
        `    image: ${gatewayImage}`,
        '',
      ].join('\n');
    const out = collectWith(inline({ 'compose.yaml': compose('ghcr.io/gnzsnz/ib-gateway:latest') }));
    expect(out.deployments.map((d) => d.name)).toEqual(['compose:compose.yaml:mcp-ib']);
    expect(out.notes).toContainEqual({
      file: 'compose.yaml',
      what: "service mcp-ib-gateway names MCP only in its name and runs another product's image, which mcp-ib depends on: a backend of that server, not read as one; name it with --server if it serves MCP",
    });
    // An image that names MCP is a server of its own, whoever depends on it.
    expect(collectWith(inline({ 'compose.yaml': compose('ghcr.io/acme/mcp-gateway:2.0') })).deployments).toHaveLength(2);
  });

  it('so too one built from files with no MCP SDK, its image only the tag of its build', () => {
    // homeassistant-ai/ha-mcp's docker-compose.screenshot.yml: ha-mcp fetches dashboard screenshots
    // from ha-mcp-screenshot (`image: ha-mcp-screenshot:latest`, built from a headless-Chromium add-on).
    const compose = (engine: string) =>
      [
        'services:',
        '  ha-mcp:',
        '    build: .',
        '    environment:',
        `      - ${engine}=http://ha-mcp-screenshot:10000`,
        '  ha-mcp-screenshot:',
        '    build:',
        '      context: ./puppet',
        '    image: ha-mcp-screenshot:latest',
        '',
      ].join('\n');
    const files = (engine: string) => ({
      'compose.yaml': compose(engine),
      Dockerfile: 'FROM python:3.13-slim\nCOPY pyproject.toml .\nRUN pip install .\nCMD ["fastmcp", "run", "fastmcp.json"]\n',
      'pyproject.toml': '[project]\nname = "ha-mcp"\ndependencies = ["fastmcp>=2.12"]\n',
      'puppet/Dockerfile': 'FROM node:22-slim\nCOPY package.json .\nRUN npm install\nCMD ["node", "http.js"]\n',
      'puppet/package.json': JSON.stringify({ name: 'puppet', dependencies: { puppeteer: '^23.0.0' } }),
    });
    // The project's prefix in a variable's name (`HAMCP_`) does not make the URL an MCP endpoint.
    const out = collectWith(inline(files('HAMCP_DASHBOARD_SCREENSHOT_ENGINE_URL')));
    expect(out.deployments.map((d) => d.name)).toEqual(['compose:compose.yaml:ha-mcp']);
    expect(out.notes).toContainEqual({
      file: 'compose.yaml',
      what: 'service ha-mcp-screenshot names MCP only in its name and the tag its build gets, is built from files that show no MCP SDK, and ha-mcp uses it: a backend of that server, not read as one; name it with --server if it serves MCP',
    });
    // Peers that the files show only by their names (seanchatmangpt/erlmcp's cluster, an Erlang server
    // with no SDK the collector knows) are servers alike, whichever uses the other.
    const peers = [
      'services:',
      '  erlmcp-region1: { build: ., image: "erlmcp:3.0.0" }',
      '  erlmcp-region2: { build: ., image: "erlmcp:3.0.0", environment: [PEER=erlmcp-region1], depends_on: [erlmcp-region1] }',
      '',
    ].join('\n');
    expect(
      collectWith(inline({ 'compose.yaml': peers, Dockerfile: 'FROM erlang:27\nCOPY . .\nCMD ["rebar3", "shell"]\n' })).deployments,
    ).toHaveLength(2);
  });
});

describe('a name whose last word gives it another role', () => {
  it('names no MCP server: an authenticator, a web app, a client playground, a backend', () => {
    // oidebrett/mcpauth's `mcpauth` (a Traefik forwardAuth checker); boltmcp/boltmcp's platform web app
    // and MCP client playground beside its server; 4eyedengineer/mcp-everything's REST `mcp-backend`.
    const out = collectWith(
      inline({
        'compose.yaml': [
          'services:',
          '  mcpauth: { image: "ghcr.io/oidebrett/mcpauth:1.2.0", command: ["-port=11000", "-path=/sse"] }',
          '  platform: { image: "ghcr.io/boltmcp/boltmcp-platform-web:latest", ports: ["3000:3000"] }',
          '  playground: { image: "ghcr.io/boltmcp/boltmcp-platform-playground:latest", ports: ["3002:3002"] }',
          '  mcp-backend: { image: "ghcr.io/acme/api:1.0.0", ports: ["3001:3001"] }',
          '  mcp-server: { image: "ghcr.io/boltmcp/boltmcp-mcp-server:latest", ports: ["3003:3003"] }',
          '',
        ].join('\n'),
      }),
    );
    // faktenforum/ai-chat-interface's mcp-docs serves documentation over MCP; `mcp-web` browses the web.
    for (const server of [
      'mcp',
      'mcp-server',
      'github-mcp-server',
      'mcp-web',
      'mcp-docs',
      'mcp-web-search',
      'fastmcp',
      'mcp/grafana',
      'ghcr.io/x/mcp-ui-server:1.0',
      'ghcr.io/acme/mcp-servers/github:1.0',
    ])
      expect(namesMcpServer(server), server).toBe(true);
    // unrelated-ai/mcp-gateway's `gateway_operator` runs ghcr.io/…/mcp-gateway-operator, a Docker-socket reconciler.
    for (const other of [
      'mcpauth',
      'mcp-oauth',
      'mcp_backend',
      'mcp-gateway-ui',
      'ghcr.io/x/boltmcp-platform-web:2',
      'grafana',
      'ghcr.io/acme/mcp-gateway-operator:1.0.0',
      'mcp-controller',
    ])
      expect(namesMcpServer(other), other).toBe(false);
    expect(out.deployments.map((d) => d.name)).toEqual(['compose:compose.yaml:mcp-server']);
    // hyprmcp/mcp-gateway's examples/who-am-i: its OIDC provider, `ghcr.io/hyprmcp/dex:2.44.0-alpine`.
    const dex = collectWith(
      inline({
        'compose.yaml':
          'services:\n  gateway:\n    image: ghcr.io/hyprmcp/mcp-gateway:0.3.0\n    ports: ["9000:9000"]\n  dex:\n    image: ghcr.io/hyprmcp/dex:2.44.0-alpine\n    command: ["dex", "serve", "/config.yaml"]\n',
      }),
    );
    expect(dex.deployments.map((d) => d.name)).toEqual(['compose:compose.yaml:gateway']);
    // An OIDC provider, read as the backing service it is, whatever namespace publishes it.
    expect(dex.notes).toEqual([]);
    expect(out.notes).toContainEqual({
      file: 'compose.yaml',
      what: 'service platform names MCP only in a name whose last word gives it another role (ghcr.io/boltmcp/boltmcp-platform-web:latest): not read as a server; name it with --server if it serves MCP',
    });
  });
});

describe('a build whose Dockerfile is not among the files', () => {
  it('is built by Compose all the same: no digest names it; what it installs stays open', () => {
    // CtrlAltAdapt/obsidian-mcp-server's example compose file: `build: ../..`, its context elsewhere.
    const d = (image: string) =>
      collectWith(
        inline({ 'examples/compose.yaml': `services:\n  obsidian-mcp:\n    build: ../../elsewhere\n${image}    stdin_open: true\n` }),
        { named: ['examples/compose.yaml'] },
      ).deployments[0]!;
    const built = d('');
    expect([fact(built, 'supply_chain.builds_server'), fact(built, 'container.image_pinned_by_digest')]).toEqual([true, false]);
    expect(built.reasons['supply_chain.deployed_release']).toBe(
      "the build's Dockerfile is not among the files: what it installs is not in them",
    );
    // Its USER and HEALTHCHECK too, each with why (sasharm8-te/am-mcp-server's `build: .` with no Dockerfile there).
    for (const k of ['container.runs_as_root', 'container.healthcheck'])
      expect(built.reasons[k], k).toBe("the build's Dockerfile is not among the files: what it sets is not in them");
    expect(fact(d('    image: obsidian-mcp:local\n'), 'supply_chain.builds_server')).toBe(true);
    // Under a registry's name, Compose pulls first: the image reference decides as before.
    expect(fact(d('    image: ghcr.io/acme/obsidian-mcp:1.0.0\n'), 'supply_chain.builds_server')).toBeUndefined();
  });
});

describe('a service that runs the image another service builds', () => {
  it('runs that build: its Dockerfile decides as for the builder', () => {
    // JoeCotellese/mindgrapes-server: web builds openbrain-web:local, and mcp runs it with its own command.
    const d = deploymentOf(
      collectWith(
        inline({
          'docker-compose.yml': [
            'services:',
            '  web:',
            '    build: { context: ./web }',
            '    image: openbrain-web:local',
            '  mcp:',
            '    image: openbrain-web:local',
            '    command: ["python", "-m", "brain.mcp_server"]',
            '    expose: ["8001"]',
            '',
          ].join('\n'),
          'web/Dockerfile':
            'FROM python:3.12-slim\nCOPY requirements.txt .\nRUN pip install --require-hashes -r requirements.txt\nCOPY . .\nUSER appuser\nCMD ["gunicorn", "config.wsgi"]\n',
          'web/requirements.txt': 'fastmcp==2.12.4 --hash=sha256:0000000000000000000000000000000000000000000000000000000000000000\n',
        }),
        { servers: ['mcp'] },
      ),
      ':mcp',
    );
    expect([fact(d, 'supply_chain.builds_server'), fact(d, 'container.runs_as_root')]).toEqual([true, false]);
    expect(d.sources['supply_chain.builds_server']![0]).toMatchObject({ file: 'docker-compose.yml', line: 6 });
  });

  it('is no MCP server for the SDK a shared manifest lists: what it starts is its own command', () => {
    // ADORSYS-GIS/lightbridge-authz: authz-budget runs the image authz-api builds from a Rust workspace with rmcp.
    const out = collectWith(
      inline({
        'compose.yaml':
          'services:\n  authz-mcp:\n    build: .\n    image: lightbridge-authz\n    command: ["serve-mcp"]\n    ports: ["3000:3000"]\n  authz-budget:\n    image: lightbridge-authz\n    command: ["budget"]\n    expose: ["3001"]\n',
        Dockerfile: 'FROM rust:1.88\nCOPY Cargo.toml Cargo.lock ./\nCOPY src ./src\nRUN cargo build --locked\nCMD ["serve-mcp"]\n',
        'Cargo.toml': '[package]\nname = "authz"\nversion = "0.1.0"\n[dependencies]\nrmcp = "0.8"\n',
      }),
    );
    expect(out.deployments.map((d) => d.name)).toEqual(['compose:compose.yaml:authz-mcp']);
  });
});

describe("a service that runs the project's own image by name", () => {
  it('is an MCP server where a Dockerfile named like the image builds one', () => {
    // alderaan/vps: docker-compose/ai-dev-server runs registry.correlion.ai/ai-dev-server:latest, which
    // ai-dev-server/Makefile builds from ai-dev-server/Dockerfile, a FastMCP project; it mounts the Docker socket.
    const files = (sdk: string) =>
      inline({
        'deploy/docker-compose.yml':
          'services:\n  ai-dev-server:\n    image: registry.example.com/ai-dev-server:latest\n    ports: ["127.0.0.1:8080:8080"]\n    volumes: [/var/run/docker.sock:/var/run/docker.sock]\n',
        'ai-dev-server/Dockerfile':
          'FROM python:3.11-slim\nCOPY pyproject.toml uv.lock ./\nRUN pip install uv && uv sync --frozen\nCMD ["uv", "run", "server.py"]\n',
        'ai-dev-server/pyproject.toml': `[project]\nname = "ai-dev-server"\ndependencies = ["${sdk}"]\n`,
      });
    const d = deploymentOf(collectWith(files('fastmcp==2.10.6')), 'compose:deploy/docker-compose.yml:ai-dev-server');
    expect(d.sources['container.used']![0]!.why).toBe(
      'service ai-dev-server runs in a container (its image registry.example.com/ai-dev-server:latest is named like ai-dev-server/Dockerfile, a build of an MCP server (fastmcp) among the files)',
    );
    expect(fact(d, 'container.docker_socket_mounted')).toBe(true);
    // A build of no MCP server is no evidence (named, the file's only service is still read, as such).
    const other = collectWith(files('fastapi==0.115.0')).deployments.find((x) => x.name.startsWith('compose:'));
    expect(other?.sources['container.used']?.[0]?.why ?? '').not.toMatch(/named like/);
  });
});

describe('a build FROM the image another service builds', () => {
  // stonediggity/unified-docker-mcps: mcp-base (profile build-base) builds mcp-base:latest, and each
  // server's Dockerfile starts FROM it.
  const files = (child: string) =>
    inline({
      'docker-compose.yml': [
        'services:',
        '  mcp-base:',
        '    build: { context: ., dockerfile: dockerfiles/Dockerfile.base-node }',
        '    image: mcp-base:latest',
        '    profiles: [build-base]',
        '  puppeteer:',
        '    build: { context: ., dockerfile: dockerfiles/Dockerfile.puppeteer }',
        '    container_name: mcp-puppeteer',
        '    stdin_open: true',
        '',
      ].join('\n'),
      'dockerfiles/Dockerfile.base-node': 'FROM node:20-slim\nRUN useradd -m mcpuser\nUSER mcpuser\nENV NODE_ENV=production\n',
      'dockerfiles/Dockerfile.puppeteer': child,
    });

  it("is built on that build: its USER and runtime are the base build's", () => {
    const d = deploymentOf(collectWith(files('FROM mcp-base:latest\nCMD ["npx", "-y", "puppeteer-mcp-server"]\n')), ':puppeteer');
    expect(fact(d, 'container.runs_as_root')).toBe(false);
    expect(d.sources['container.runs_as_root']![0]).toMatchObject({ file: 'dockerfiles/Dockerfile.base-node', line: 3 });
    expect(fact(d, 'supply_chain.deployed_release')).toBe('floating');
  });

  it("the child's own USER wins, as over any base", () => {
    const d = deploymentOf(
      collectWith(files('FROM mcp-base:latest\nUSER root\nCMD ["npx", "-y", "puppeteer-mcp-server"]\n')),
      ':puppeteer',
    );
    expect(fact(d, 'container.runs_as_root')).toBe(true);
  });

  it('an image no service builds stays unknown', () => {
    const d = deploymentOf(collectWith(files('FROM other-base:latest\nCMD ["npx", "-y", "puppeteer-mcp-server"]\n')), ':puppeteer');
    expect(fact(d, 'container.runs_as_root')).toBeUndefined();
    expect(fact(d, 'supply_chain.deployed_release')).toBeUndefined();
  });
});

describe('a backend built from the same files as the server', () => {
  it('runs another program, and the server depends on it: not a server, whatever SDK the shared manifest lists', () => {
    // hyperion14/docx-mcp-service: requirements.txt lists Flask and fastmcp; Dockerfile runs the Flask
    // app, Dockerfile.mcp the MCP server, which calls it at DOCKER_IP=http://docx-generator:5000.
    const files = (mcpDockerfile: string) => ({
      'docker-compose.yml': [
        'services:',
        '  docx-generator:',
        '    build: { context: ., dockerfile: Dockerfile }',
        '    ports: ["5000:5000"]',
        '  mcp-server:',
        `    build: { context: ., dockerfile: ${mcpDockerfile} }`,
        '    ports: ["7860:7860"]',
        '    environment: [DOCKER_IP=http://docx-generator:5000]',
        '    depends_on: [docx-generator]',
        '',
      ].join('\n'),
      'requirements.txt': 'flask==3.0.3\nfastmcp>=2.13.0\n',
      Dockerfile:
        'FROM python:3.11-slim\nCOPY requirements.txt .\nRUN pip install -r requirements.txt\nCOPY . .\nCMD ["python", "app.py"]\n',
      [mcpDockerfile]:
        mcpDockerfile === 'Dockerfile.mcp'
          ? 'FROM python:3.11-slim\nRUN pip install fastmcp==2.13.0\nCOPY mcp_server_v2.py .\nCMD ["python3", "mcp_server_v2.py"]\n'
          : 'FROM python:3.11-slim\nRUN pip install fastmcp==2.13.0\nCOPY server.py .\nCMD ["python3", "server.py"]\n',
    });
    const out = collectWith(inline(files('Dockerfile.mcp')));
    expect(out.deployments.map((d) => d.name)).toEqual(['compose:docker-compose.yml:mcp-server']);
    expect(out.notes).toContainEqual({
      file: 'docker-compose.yml',
      what: "service docx-generator is built from the same files as mcp-server, runs another program, and mcp-server depends on it or names it: its backend, not read as a server (the MCP SDK the shared manifest lists is mcp-server's); name it with --server if it serves MCP",
    });
    // Its name naming MCP is enough where what its image runs does not (FactrueSolin/codebox-rmcp:
    // mcp-server and python-worker, two binaries of one Cargo.toml).
    expect(collectWith(inline(files('Dockerfile.server'))).deployments.map((d) => d.name)).toEqual([
      'compose:docker-compose.yml:mcp-server',
    ]);
  });
});

describe('a proxy left out by its profile', () => {
  it('keeps the configuration it mounts: no proxy on a host, read with the proxy when the profile is on', () => {
    // carlosjperez/SOLARIA-DFO: nginx under `profiles: [with-proxy]` mounts nginx.unified.conf, whose upstream is the service mcp.
    const files = {
      'docker-compose.yml': [
        'services:',
        '  mcp:',
        '    image: ghcr.io/acme/mcp-server:1.0.0',
        '    ports: ["3031:3031"]',
        '  nginx:',
        '    image: nginx:1.30',
        '    profiles: [with-proxy]',
        '    ports: ["443:443"]',
        '    volumes: ["./infrastructure/nginx/nginx.unified.conf:/etc/nginx/nginx.conf:ro"]',
        '',
      ].join('\n'),
      'infrastructure/nginx/nginx.unified.conf':
        'events {}\nhttp {\n  upstream mcp { server mcp:3031; }\n  server {\n    listen 443 ssl;\n    location /mcp { proxy_pass http://mcp; }\n  }\n}\n',
    };
    const off = collectWith(inline(files));
    expect(off.deployments.map((d) => d.name)).toEqual(['compose:docker-compose.yml:mcp']);
    expect(off.notes).toContainEqual({
      file: 'docker-compose.yml',
      what: 'service nginx is left out: its profiles (with-proxy) are not enabled; the proxy configuration it mounts (infrastructure/nginx/nginx.unified.conf) is read with it when they are',
    });
    const on = collectWith(inline(files), { profiles: ['with-proxy'] });
    expect(on.deployments.map((d) => d.name)).toEqual(['compose:docker-compose.yml:mcp']);
    expect(fact(on.deployments[0]!, 'exposure.behind_reverse_proxy')).toBe(false);
  });
});

describe("the proxy's authenticator", () => {
  // taewook486/real-estate-mcp's docker/: Caddy sends /.well-known/* and /oauth/* to auth:9000 and
  // asks it about every /mcp request (forward_auth); auth's build copies the same pyproject.toml.
  const files = (edge: Record<string, string>, proxy: string) => ({
    'compose.yaml': [
      'services:',
      proxy,
      '  mcp:',
      '    build: { context: ., dockerfile: Dockerfile }',
      '  auth:',
      '    build: { context: ., dockerfile: Dockerfile.auth }',
      '',
    ].join('\n'),
    Dockerfile: 'FROM python:3.12-slim\nCOPY pyproject.toml .\nRUN pip install .\nCMD ["python", "-m", "real_estate.mcp_server"]\n',
    'Dockerfile.auth':
      'FROM python:3.12-slim\nCOPY pyproject.toml .\nRUN pip install .\nCMD ["uvicorn", "auth_server:app", "--port", "9000"]\n',
    'pyproject.toml': '[project]\nname = "real-estate"\ndependencies = ["mcp[cli]>=1.9"]\n',
    ...edge,
  });
  const caddy = '  caddy:\n    image: caddy:2.10\n    ports: ["443:443"]\n    volumes: ["./Caddyfile:/etc/caddy/Caddyfile:ro"]';
  const nginx = '  nginx:\n    image: nginx:1.30\n    ports: ["443:443"]\n    volumes: ["./nginx.conf:/etc/nginx/nginx.conf:ro"]';

  it('is part of the edge, not a server: Caddy forward_auth, nginx auth_request', () => {
    const viaCaddy = collectWith(
      inline(
        files(
          {
            Caddyfile: [
              'mcp.example.com {',
              '  handle /.well-known/* {',
              '    reverse_proxy auth:9000',
              '  }',
              '  handle /mcp* {',
              '    forward_auth auth:9000 {',
              '      uri /oauth/verify',
              '    }',
              '    reverse_proxy mcp:8000',
              '  }',
              '}',
              '',
            ].join('\n'),
          },
          caddy,
        ),
      ),
    );
    expect(viaCaddy.deployments.map((d) => d.name)).toEqual(['compose:compose.yaml:mcp']);
    expect(viaCaddy.notes).toContainEqual({
      file: 'compose.yaml',
      what: 'service auth is the authenticator caddy asks about each request (forward_auth, auth_request): part of the edge, not read as a server; name it with --server if it serves MCP',
    });
    const viaNginx = collectWith(
      inline(
        files(
          {
            'nginx.conf': [
              'events {}',
              'http {',
              '  upstream oauth { server auth:9000; }',
              '  server {',
              '    listen 443 ssl;',
              '    location = /_verify { internal; proxy_pass http://oauth/verify; }',
              '    location /mcp { auth_request /_verify; proxy_pass http://mcp:8000; }',
              '  }',
              '}',
              '',
            ].join('\n'),
          },
          nginx,
        ),
      ),
    );
    expect(viaNginx.deployments.map((d) => d.name)).toEqual(['compose:compose.yaml:mcp']);
    // Traefik: a forwardAuth middleware's address on the server's labels.
    const traefik: Record<string, string> = files({}, '  traefik:\n    image: traefik:v3.4\n    ports: ["443:443"]');
    traefik['compose.yaml'] = traefik['compose.yaml']!.replace(
      '    build: { context: ., dockerfile: Dockerfile }\n',
      '    build: { context: ., dockerfile: Dockerfile }\n    labels:\n      - traefik.http.middlewares.oauth.forwardauth.address=http://auth:9000/oauth/verify\n',
    );
    expect(collectWith(inline(traefik)).deployments.map((d) => d.name)).toEqual(['compose:compose.yaml:mcp']);
    // Or a forwardAuth middleware in Traefik's dynamic configuration (atrawog/mcp-oauth-gateway's middlewares.yml).
    const dynamic = collectWith(
      inline({
        ...files({}, '  traefik:\n    image: traefik:v3.4\n    ports: ["443:443"]'),
        'traefik/dynamic/middlewares.yml':
          'http:\n  middlewares:\n    mcp-auth:\n      forwardAuth:\n        address: "http://auth:9000/verify"\n        trustForwardHeader: true\n',
      }),
    );
    expect(dynamic.deployments.map((d) => d.name)).toEqual(['compose:compose.yaml:mcp']);
  });

  it('unless a route named for MCP reaches it too', () => {
    const both = collectWith(
      inline(
        files(
          {
            Caddyfile:
              'mcp.example.com {\n  forward_auth auth:9000 {\n    uri /verify\n  }\n  reverse_proxy /mcp* mcp:8000\n  reverse_proxy /auth-mcp* auth:9000\n}\n',
          },
          caddy,
        ),
      ),
    );
    expect(both.deployments.map((d) => d.name)).toEqual(['compose:compose.yaml:auth', 'compose:compose.yaml:mcp']);
  });
});

describe('a Compose server that serves TLS itself', () => {
  it("uvicorn's --ssl-certfile and --ssl-keyfile, nothing in front", () => {
    const d = collectWith(
      inline({
        'compose.yaml':
          'services:\n  mcp:\n    image: ghcr.io/acme/mcp:1.0.0\n    ports: ["8443:8443"]\n    command: ["uvicorn", "mcp_app:app", "--port", "8443", "--ssl-certfile", "/certs/c.pem", "--ssl-keyfile", "/certs/k.pem"]\n',
      }),
    ).deployments[0]!;
    expect(fact(d, 'tls.enabled')).toBe(true);
    expect(d.sources['tls.enabled']![0]).toMatchObject({ line: 5, why: 'the server serves TLS itself (--ssl-certfile and its key)' });
  });
});

describe('misreadings the regression audit found', () => {
  const one = (compose: string, files: Record<string, string> = {}) =>
    collectWith(inline({ 'compose.yaml': compose, ...files })).deployments;

  it("use_api_socket mounts a host system path, the engine's socket", () => {
    // docker/compose-for-agents' adk-sock-shop gateway.
    const [d] = one('services:\n  mcp-gateway:\n    image: docker/mcp-gateway:v2\n    use_api_socket: true\n    ports: ["8811:8811"]\n');
    expect(fact(d!, 'container.docker_socket_mounted')).toBe(true);
    expect(fact(d!, 'container.host_path_mounts')).toBe('host_system');
  });

  it('a switch named like a key is no secret', () => {
    // dtkmn/mcp-zap-server: MCP_SECURITY_ALLOW_PLACEHOLDER_API_KEY: "false" beside keys from the environment.
    const [d] = one(
      'services:\n  mcp-server:\n    image: ghcr.io/acme/mcp:1.0.0\n    environment:\n      MCP_API_KEY: ${MCP_API_KEY}\n      MCP_SECURITY_ALLOW_PLACEHOLDER_API_KEY: "false"\n',
    );
    expect(fact(d!, 'container.secrets_source')).toBeUndefined();
    expect(d!.reasons['container.secrets_source']).toMatch(/^MCP_API_KEY comes from the operator's environment/);
  });

  it('a stdio server takes no network ingress for a proxy to restrict', () => {
    // alexei-led/k8s-mcp-server: K8S_MCP_TRANSPORT=stdio, no ports.
    const [d] = one(
      'services:\n  k8s-mcp-server:\n    image: ghcr.io/acme/k8s-mcp:1.0.0\n    environment:\n      K8S_MCP_TRANSPORT: stdio\n',
    );
    expect(fact(d!, 'exposure.ingress_restricted_to_proxy')).toBeUndefined();
    expect(d!.reasons['exposure.ingress_restricted_to_proxy']).toBe(
      'a stdio server takes no network ingress: its client is attached to its stdin',
    );
  });

  it('a container_name names nothing: a test proxy is mcp-test-proxy, a pgAdmin mcpjungle-pgadmin', () => {
    const deployments = one(
      'services:\n  proxy:\n    image: ubuntu/squid:latest\n    container_name: mcp-test-proxy\n    ports: ["3128:3128"]\n  pgadmin:\n    image: dpage/pgadmin4:latest\n    container_name: mcpjungle-pgadmin\n',
    );
    expect(deployments).toEqual([]);
  });
});

describe('a proxy whose upstream names no service of the project', () => {
  // Bionic-AI-Solutions/open-search: nginx's upstream is `mcp-server:3000`, a service that no
  // longer exists; the server is now mcp-server-fastmcp (container_name mcp-search-server).
  const files = (server: string) => ({
    'docker-compose.yml': [
      'services:',
      '  mcp-server-fastmcp:',
      '    image: example/search-mcp:1.0.0',
      server,
      '  nginx:',
      '    image: nginx:1.27',
      '    ports: ["80:80"]',
      '    volumes: ["./nginx/nginx.conf:/etc/nginx/nginx.conf:ro"]',
      '',
    ].join('\n'),
    'nginx/nginx.conf':
      'events {}\nhttp {\n  upstream mcp_backend {\n    server mcp-server:3000;\n  }\n  limit_req_zone $binary_remote_addr zone=api:10m rate=10r/s;\n  server {\n    listen 80;\n    location / {\n      limit_req zone=api;\n      proxy_pass http://mcp_backend;\n    }\n  }\n}\n',
  });
  const front = (server: string) => {
    const d = collectWith(inline(files(server))).deployments.find((x) => x.name.endsWith(':mcp-server-fastmcp'))!;
    return { behind: fact(d, 'exposure.behind_reverse_proxy'), limited: fact(d, 'rate_limit.enabled') };
  };

  it('is not in front of the server: no name of it resolves to the server', () => {
    expect(front('    container_name: mcp-search-server')).toEqual({ behind: false, limited: undefined });
  });

  it('is in front where the server answers to that name: a network alias, its container_name or hostname', () => {
    const on = { behind: true, limited: true };
    expect(front('    networks:\n      default:\n        aliases: [mcp-server]')).toEqual(on);
    expect(front('    container_name: mcp-server')).toEqual(on);
    expect(front('    hostname: mcp-server')).toEqual(on);
  });
});

describe('a proxy on the host in front of a port published on loopback', () => {
  // mabi8/mcp-stack: centerdevice publishes 127.0.0.1:9543, and deploy/nginx/mcp.d/centerdevice.conf,
  // included by the host's server for box.makkib.com on 443, forwards /mcp there.
  const files = (target: string) => ({
    'docker-compose.yml': 'services:\n  centerdevice:\n    image: example/centerdevice-mcp:1.0.0\n    ports: ["127.0.0.1:9543:9443"]\n',
    'deploy/nginx/box.conf': 'server {\n    listen 443 ssl;\n    server_name box.example.com;\n    include /etc/nginx/mcp.d/*.conf;\n}\n',
    'deploy/nginx/mcp.d/centerdevice.conf': `location /mcp {\n    proxy_pass http://${target};\n}\n`,
  });
  const exposure = (target: string) => {
    const d = deploymentOf(collectWith(inline(files(target))), 'compose:docker-compose.yml:centerdevice');
    return {
      reachable: fact(d, 'exposure.reachable_from_internet'),
      endpoint: fact(d, 'exposure.endpoint_address_class'),
      behind: fact(d, 'exposure.behind_reverse_proxy'),
      why: d.reasons['exposure.reachable_from_internet'],
    };
  };

  it('may put the server on the network: what loopback alone decided is open', () => {
    expect(exposure('127.0.0.1:9543')).toEqual({
      reachable: undefined,
      endpoint: undefined,
      behind: undefined,
      why: 'deploy/nginx/mcp.d/centerdevice.conf:2 forwards to 127.0.0.1:9543, the port centerdevice publishes on loopback: a proxy on the host may put it on the network',
    });
    // A proxy to another port says nothing of this one.
    expect(exposure('127.0.0.1:9000')).toMatchObject({ reachable: false, endpoint: 'loopback', behind: false });
  });

  it('may terminate TLS: a plain health check on the loopback port no longer says clients speak plain HTTP', () => {
    // dgarcoe/dx_cluster_mcp_server's docker-compose.host-nginx.yml: 127.0.0.1:8000 checked with curl
    // http://localhost:8000, and nginx-config-example.conf's `listen 443 ssl` forwards to it.
    const tls = (target: string) => {
      const f = files(target);
      f['docker-compose.yml'] += '    healthcheck:\n      test: ["CMD", "curl", "-f", "http://localhost:9443/health"]\n';
      const d = deploymentOf(collectWith(inline(f)), 'compose:docker-compose.yml:centerdevice');
      return { tls: fact(d, 'tls.enabled'), why: d.reasons['tls.enabled'] };
    };
    expect(tls('127.0.0.1:9543')).toEqual({
      tls: undefined,
      why: 'deploy/nginx/mcp.d/centerdevice.conf:2 forwards to 127.0.0.1:9543, the port centerdevice publishes on loopback: a proxy on the host may put it on the network',
    });
    expect(tls('127.0.0.1:9000').tls).toBe(false);
  });
});

describe('services named for MCP that are not its servers', () => {
  it('a web UI of the project (a Next.js app) is no server: a note says why', () => {
    // unrelated-ai/mcp-gateway's gateway_ui: `build: ./ui`, a Next.js admin UI beside the gateway.
    const out = collectWith(
      inline({
        'docker-compose.yml':
          'services:\n  gateway:\n    image: ghcr.io/acme/mcp-gateway:1.0.0\n    ports: ["8080:8080"]\n  gateway_ui:\n    build: ./ui\n    image: mcp-gateway-ui\n    ports: ["3000:3000"]\n',
        'ui/Dockerfile':
          'FROM node:22-slim\nWORKDIR /app\nCOPY package.json package-lock.json ./\nRUN npm ci\nCOPY . .\nCMD ["npm", "start"]\n',
        'ui/package.json': JSON.stringify({ name: 'ui', dependencies: { next: '15.0.0', react: '19.0.0', 'react-dom': '19.0.0' } }),
      }),
    );
    expect(out.deployments.map((d) => d.name)).toEqual(['compose:docker-compose.yml:gateway']);
    expect(out.notes.map((n) => n.what)).toContain(
      'service gateway_ui names MCP only in its name, and ui/package.json makes it a web UI (next) with no MCP package: not read as a server; name it with --server if it serves MCP',
    );
  });

  it('a server whose image a variable names is no backend of another product', () => {
    // Knuckles-Team/vector-mcp's docker/agent.compose.yml: `image: ${VECTOR_MCP_MCP_IMAGE:?…}`, which the agent depends on.
    const out = collectWith(
      inline({
        'agent.compose.yml':
          'services:\n  vector-mcp-mcp:\n    image: ${VECTOR_MCP_MCP_IMAGE:?set it}\n    environment:\n      - TRANSPORT=streamable-http\n    ports: ["8000:8000"]\n  vector-mcp-agent:\n    image: ${VECTOR_MCP_AGENT_IMAGE:?set it}\n    depends_on: [vector-mcp-mcp]\n    command: ["vector-agent"]\n',
      }),
      { named: ['agent.compose.yml'] },
    );
    expect(out.deployments.map((d) => d.name)).toContain('compose:agent.compose.yml:vector-mcp-mcp');
  });
});

describe('a transport variable set from a .env the files do not hold', () => {
  it('leaves the transport to that file, whatever the published port says', () => {
    // devopsifyco/check-mcp's server/docker-compose.yml: env_file .env (not committed), TRANSPORT=${TRANSPORT:-sse}.
    const compose = (envFile: string) =>
      `services:\n  mcp:\n    image: acme/check-mcp:1.0.0\n    ports: ["\${PORT:-8050}:8050"]\n${envFile}    environment:\n      - TRANSPORT=\${TRANSPORT:-sse}\n`;
    const d = collectWith(inline({ 'compose.yaml': compose('    env_file:\n      - .env\n') })).deployments[0]!;
    expect(fact(d, 'transport.kind')).toBeUndefined();
    expect(d.reasons['transport.kind']).toBe(
      'TRANSPORT comes from a .env the files do not hold (sse by default): which transport the server speaks is set there',
    );
    // With no such file to read, the default is what runs.
    expect(fact(collectWith(inline({ 'compose.yaml': compose('') })).deployments[0]!, 'transport.legacy_sse')).toBe(true);
    // zereight/gitlab-mcp's switches, set from the operator's environment; its server falls back to stdio.
    const switches = collectWith(
      inline({
        'compose.yaml':
          'services:\n  gitlab-mcp:\n    image: zereight050/gitlab-mcp:latest\n    ports:\n      - 127.0.0.1:3002:3002\n    environment:\n      - STREAMABLE_HTTP=${STREAMABLE_HTTP}\n      - SSE=${SSE}\n',
      }),
    ).deployments[0]!;
    expect(switches.reasons['transport.kind']).toBe(
      "STREAMABLE_HTTP comes from the operator's environment (STREAMABLE_HTTP): which transport the server speaks is set there",
    );
  });
});

describe('an MCP gateway of the stack in front of servers that publish nothing', () => {
  it('may forward clients to them: what "nothing published" decided is open; an agent that calls one is no way in', () => {
    // docker/mcp-gateway's examples/compose-static: the gateway publishes 8811 and serves duckduckgo and fetch.
    const stack = (front: string) =>
      `services:\n${front}  mcp-fetch:\n    image: mcp/fetch@sha256:${'e'.repeat(64)}\n    entrypoint: ["/docker-mcp/misc/docker-mcp-bridge", "mcp-server-fetch"]\n`;
    const fetch = (front: string) => deploymentOf(collectWith(inline({ 'compose.yaml': stack(front) })), ':mcp-fetch');
    const gateway = fetch(
      '  gateway:\n    image: docker/mcp-gateway\n    ports: ["8811:8811"]\n    command: ["--transport=streaming", "--servers=fetch", "--port=8811"]\n',
    );
    for (const k of ['exposure.reachable_from_internet', 'exposure.endpoint_address_class', 'exposure.behind_reverse_proxy'])
      expect(gateway.reasons[k], k).toBe(
        'gateway publishes 8811:8811 and shares a network with the server: a gateway whose routes are not read here may forward clients to it',
      );
    // docker/compose-for-agents' adk: an agent that publishes its UI and calls the server is its client.
    const agent = fetch(
      '  agent:\n    build: ./agent\n    ports: ["8080:8080"]\n    environment:\n      - MCP_URL=http://mcp-fetch:8080/mcp\n',
    );
    expect(fact(agent, 'exposure.reachable_from_internet')).toBe(false);
  });
});

describe('a server started with its Host check off', () => {
  it('--allowed-hosts * takes any Host: no allowed hosts configured', () => {
    // scottlz0310/Mcp-Docker's playwright-mcp service.
    const d = collectWith(
      inline({
        'compose.yaml':
          'services:\n  playwright-mcp:\n    image: mcr.microsoft.com/playwright/mcp:v0.0.41\n    command: ["--port", "8931", "--host", "0.0.0.0", "--allowed-hosts", "*"]\n    ports: ["127.0.0.1:8931:8931"]\n',
      }),
    ).deployments[0]!;
    expect(fact(d, 'http.allowed_hosts_configured')).toBe(false);
    expect(d.sources['http.allowed_hosts_configured']![0]).toMatchObject({
      line: 4,
      why: '--allowed-hosts * takes requests for any Host name',
    });
    const listed = collectWith(
      inline({
        'compose.yaml':
          'services:\n  playwright-mcp:\n    image: mcr.microsoft.com/playwright/mcp:v0.0.41\n    command: ["--port", "8931", "--allowed-hosts", "mcp.example.com"]\n    ports: ["127.0.0.1:8931:8931"]\n',
      }),
    ).deployments[0]!;
    expect(fact(listed, 'http.allowed_hosts_configured')).toBeUndefined();
  });

  it('the same switch as a variable, in the image or the service: MCP_V8_ALLOWED_HOSTS=*', () => {
    // r33drichards/mcp-js's Dockerfile: `ENV MCP_V8_ALLOWED_HOSTS=*`, the env form of --allowed-hosts.
    const files = (env: string) =>
      inline({
        'compose.yaml': `services:\n  mcp-js:\n    build: .\n    command: ["--http-port=3000"]\n    ports: ["3000:3000"]\n${env}`,
        Dockerfile: 'FROM rust:1.88\nRUN cargo install rmcp --locked\nENV MCP_V8_ALLOWED_HOSTS=*\nENTRYPOINT ["/usr/local/bin/server"]\n',
      });
    const d = collectWith(files('')).deployments[0]!;
    expect(fact(d, 'http.allowed_hosts_configured')).toBe(false);
    expect(d.sources['http.allowed_hosts_configured']![0]).toMatchObject({
      file: 'Dockerfile',
      line: 3,
      why: 'MCP_V8_ALLOWED_HOSTS=* takes requests for any Host name',
    });
    const listed = collectWith(files('    environment:\n      MCP_V8_ALLOWED_HOSTS: mcp.example.com\n')).deployments[0]!;
    expect(fact(listed, 'http.allowed_hosts_configured')).toBeUndefined();
    // An outbound allowlist named so is no Host check of the server's.
    const outbound = collectWith(
      inline({
        'compose.yaml':
          'services:\n  fetch-mcp:\n    image: acme/fetch-mcp:1.0.0\n    ports: ["3000:3000"]\n    environment:\n      CLIENT_ENDPOINT_ALLOWED_HOSTS: "*"\n',
      }),
    ).deployments[0]!;
    expect(fact(outbound, 'http.allowed_hosts_configured')).toBeUndefined();
  });
});

describe('a build target that names no stage', () => {
  it('is said in a note: the build fails as written', () => {
    // oraios/serena's compose.yaml: `target: production` after the Dockerfile lost that stage.
    const out = collectWith(
      inline({
        'compose.yaml': 'services:\n  serena:\n    build:\n      context: .\n      target: production\n',
        Dockerfile: 'FROM python:3.11-slim AS base\nRUN pip install mcp==1.20.0\nCMD ["serena-mcp-server"]\n',
      }),
    );
    expect(out.notes).toContainEqual({
      file: 'compose.yaml',
      what: 'service serena builds target production, which is no stage of Dockerfile: the build fails as written, and its last stage is read',
    });
  });
});

describe('a build context whose only Dockerfile is spelled in lower case', () => {
  it('is the one Docker builds', () => {
    // TheLukasHenry/proxy-server's uvx/dockerfile, built by `build: ./uvx`.
    const d = collectWith(
      inline({
        'compose.yaml': 'services:\n  mcpo:\n    build: ./uvx\n    ports: ["8000:8000"]\n',
        'uvx/dockerfile': 'FROM python:3.12-slim\nRUN pip install mcpo==0.0.17\nUSER 1000\nCMD ["mcpo", "--port", "8000"]\n',
      }),
    ).deployments[0]!;
    expect(fact(d, 'container.runs_as_root')).toBe(false);
    expect(d.sources['container.runs_as_root']![0]).toMatchObject({ file: 'uvx/dockerfile', line: 3 });
    expect(fact(d, 'supply_chain.deployed_release')).toBe('exact_version');
  });
});

describe('a build written inline', () => {
  it("dockerfile_inline is the service's build, not the context's Dockerfile; lines counted in the compose file", () => {
    // docker/mcp-gateway's examples/interceptors/compose.yaml builds the gateway inline beside a client's ./Dockerfile.
    const files = inline({
      'compose.yaml':
        'services:\n  gateway:\n    build:\n      context: .\n      dockerfile_inline: |\n        FROM docker/mcp-gateway:v2\n        RUN apk add jq\n        USER 0\n    command: ["--transport=streaming", "--port=8811"]\n',
      Dockerfile: 'FROM python:3.12-slim\nRUN pip install "mcp[cli]"\nUSER 1000\nCMD ["python", "client.py"]\n',
    });
    const d = deploymentOf(collectWith(files), ':gateway');
    expect(fact(d, 'container.runs_as_root')).toBe(true);
    expect(d.sources['container.runs_as_root']![0]).toMatchObject({ file: 'compose.yaml', line: 8 });
    expect(d.sources['supply_chain.deployed_release']![0]).toMatchObject({ file: 'compose.yaml', line: 6 });
    // A one-line inline build, quoted on the key's own line.
    const oneLine = inline({
      'compose.yaml':
        'services:\n  gateway:\n    build:\n      dockerfile_inline: "FROM docker/mcp-gateway:v2"\n    command: ["--port=8811"]\n',
    });
    expect(deploymentOf(collectWith(oneLine), ':gateway').sources['supply_chain.deployed_release']![0]).toMatchObject({ line: 4 });
  });
});

describe("a secret the service's build writes into its image", () => {
  it('is baked into the image, whatever the service sets over it', () => {
    // TheLukasHenry/proxy-server's mcp-proxy/Dockerfile:33 `ENV MCP_API_KEY=test-key`, built by its compose file.
    const d = (environment: string) =>
      collectWith(
        inline({
          'compose.yaml': `services:\n  mcp-proxy:\n    build: .\n    ports: ["8000:8000"]\n${environment}`,
          Dockerfile: 'FROM python:3.11-slim\nRUN pip install fastmcp==2.3.0\nENV MCP_API_KEY=test-key\nCMD ["python", "mcp_server.py"]\n',
        }),
      ).deployments[0]!;
    expect(fact(d(''), 'container.secrets_source')).toBe('baked_into_image');
    expect(d('').sources['container.secrets_source']![0]).toMatchObject({ file: 'Dockerfile', line: 3 });
    expect(fact(d('    environment:\n      MCP_API_KEY: ${MCP_API_KEY}\n'), 'container.secrets_source')).toBe('baked_into_image');
  });
});

describe("Docker's MCP catalog images", () => {
  it('mcp/grafana and mcp/postgres are MCP servers for those products, not the products', () => {
    const c = collectWith(
      inline({
        'compose.yaml':
          'services:\n  db:\n    image: postgres:16\n  pg:\n    image: mcp/postgres:latest\n    command: ["postgresql://db/app"]\n  dashboards:\n    image: mcp/grafana:1.0.0\n',
      }),
    );
    expect(c.deployments.map((d) => d.name)).toEqual(['compose:compose.yaml:dashboards', 'compose:compose.yaml:pg']);
  });

  it("a project's own build of a datastore, named with its prefix, is that datastore; after mcp- it is an MCP server", () => {
    // seanchatmangpt/erlmcp's docker-swarm/docker-compose.yml: `image: erlmcp-redis:v3-prod`, `erlmcp-prometheus`.
    const c = collectWith(
      inline({
        'compose.yaml':
          'services:\n  erlmcp:\n    image: erlmcp/erlmcp:3.0.0\n    ports: ["8080:8080"]\n  erlmcp-redis:\n    image: erlmcp-redis:v3-prod\n  erlmcp-prometheus:\n    image: erlmcp-prometheus:v3-prod\n  redis-tools:\n    image: redis/mcp-redis:0.2.0\n  vectors:\n    image: ghcr.io/qdrant/mcp-server-qdrant:0.8.0\n',
      }),
    );
    expect(c.deployments.map((d) => d.name)).toEqual([
      'compose:compose.yaml:erlmcp',
      'compose:compose.yaml:redis-tools',
      'compose:compose.yaml:vectors',
    ]);
  });
});

describe("a secret manager's reference in the environment", () => {
  it("1Password's op:// is resolved by op run: secret_manager", () => {
    const d = collectWith(
      inline({
        'compose.yaml':
          'services:\n  grafana-mcp:\n    image: mcp/grafana:1.0.0\n    environment:\n      GRAFANA_API_KEY: op://employee/grafana/mcp-global/token\n',
      }),
    ).deployments[0]!;
    expect(fact(d, 'container.secrets_source')).toBe('secret_manager');
    expect(d.sources['container.secrets_source']![0]).toMatchObject({ line: 5 });
  });
});

describe('secrets on the command line', () => {
  const server = (command: string, extra: Record<string, string> = {}) =>
    collectWith(
      inline({
        'compose.yaml': `services:\n  mcp-js:\n    build: .\n    ports: ["3000:3000"]\n    command:\n${command}`,
        Dockerfile: 'FROM python:3.12-slim\nRUN pip install mcp==1.20.0\nCMD ["python", "server.py", "--port", "3000"]\n',
        ...extra,
      }),
    ).deployments[0]!;

  it("a client secret written in a flag's list of settings is written in the compose file", () => {
    // r33drichards/mcp-js's docker-compose.secure-sessions.yml.
    const d = server(
      '      - --http-port=3000\n      - --fetch-header=host=x,token_url=http://keycloak:8080/token,client_id=mcp-client,client_secret=mcp-client-secret\n',
    );
    expect(fact(d, 'container.secrets_source')).toBe('manifest_plaintext');
    expect(d.sources['container.secrets_source']![0]).toMatchObject({
      line: 5,
      why: 'the argument list client_secret on the command line has a value written in the compose file',
    });
  });

  it("--api-key with a literal is in the file; a bearer token from an unset variable is the operator's", () => {
    expect(fact(server('      - --api-key\n      - top-secret-value\n'), 'container.secrets_source')).toBe('manifest_plaintext');
    // docker-compose.yml:18 of mcp-js: `value=Bearer ${GITHUB_TOKEN}`, set nowhere in the files.
    const env = server('      - --fetch-header=host=api.github.com,header=Authorization,value=Bearer ${GITHUB_TOKEN}\n');
    expect(fact(env, 'container.secrets_source')).toBeUndefined();
    expect(env.reasons['container.secrets_source']).toMatch(/Authorization on the command line comes from the operator's environment/);
    // Set in a committed .env, the token is written in the files.
    const committed = server('      - --token=${MCP_TOKEN}\n', { '.env': 'MCP_TOKEN=s3cr3t-0123456789\n' });
    expect(fact(committed, 'container.secrets_source')).toBe('manifest_plaintext');
    // A placeholder or a word that says no secret decides nothing against the file.
    expect(fact(server('      - --api-key=unused\n'), 'container.secrets_source')).toBe('none');
  });

  it('a flag that names the file holding the secrets is where they are kept, not one of them', () => {
    // docker/mcp-gateway's examples/config/compose.yaml: `--secrets=/run/secrets/mcp_secrets`.
    const d = server('      - --api-key=/run/secrets/api_key\n');
    expect(fact(d, 'container.secrets_source')).toBe('mounted_files');
    expect(d.sources['container.secrets_source']![0]!.why).toBe(
      'the argument --api-key on the command line names the file that holds it (/run/secrets/api_key)',
    );
    // A flag named for many secrets says where they come from (examples/mcp_toolkit: `--secrets=docker-desktop`).
    expect(fact(server('      - --secrets=docker-desktop\n'), 'container.secrets_source')).toBe('none');
    expect(fact(server('      - --db-password\n      - hunter2hunter2\n'), 'container.secrets_source')).toBe('manifest_plaintext');
  });
});

describe("the server's own listen flag", () => {
  const service = (lines: string, env = '') =>
    collectWith(
      inline({
        'compose.yaml': `services:\n  server-mcp:\n    build: .\n${lines}`,
        Dockerfile: 'FROM python:3.12-slim\nRUN pip install mcp==1.20.0\nCMD ["python", "server.py"]\n',
        ...(env ? { '.env': env } : {}),
      }),
    ).deployments[0]!;

  it('--host 127.0.0.1 listens on loopback only; on the host network, a loopback host port', () => {
    // rb58853/simple-mcp-server's dockerfile.mcp: `uvicorn src.app:app --host 127.0.0.1 --port 8000`.
    const d = service('    command: ["uvicorn", "src.app:app", "--host", "127.0.0.1", "--port", "8000"]\n    ports: ["8000:8000"]\n');
    expect(fact(d, 'exposure.bind_address_class')).toBe('loopback');
    expect(d.sources['exposure.bind_address_class']![0]).toMatchObject({
      line: 4,
      why: '--host 127.0.0.1: the server listens on loopback only',
    });
    const host = service('    network_mode: host\n    command: ["uvicorn", "app:app", "--host", "127.0.0.1"]\n');
    expect(fact(host, 'container.published_ports')).toBe('loopback');
  });

  it('every interface, on the host network, is a host port on every interface; a value set elsewhere decides nothing', () => {
    // chaoscode/MCPO: network_mode host, `--host ${HOST_IP:-0.0.0.0}` with HOST_IP=0.0.0.0 in its committed .env.
    const host = (env: string) =>
      service(
        '    network_mode: host\n    command: ["mcpo", "--host", "${HOST_IP:-0.0.0.0}", "--port", "18021"]\n    env_file: [.env]\n',
        env,
      );
    expect(fact(host('HOST_IP=0.0.0.0\n'), 'container.published_ports')).toBe('all_interfaces');
    expect(fact(host(''), 'container.published_ports')).toBeUndefined();
    expect(fact(service('    command: ["gunicorn", "-b", "0.0.0.0:8000", "app:app"]\n'), 'exposure.bind_address_class')).toBe('private');
  });

  it("a variable of the container's environment, resolved where the files fix it, open where they do not", () => {
    // snapby/snapture-quickdata-mcp: `exec uvicorn … --host ${HOST}`, HOST from an env_file the repository does not hold.
    const shell = (lines: string) =>
      collectWith(
        inline({
          'compose.yaml': `services:\n  server-mcp:\n    build: .\n    ports: ["8000:8000"]\n${lines}`,
          Dockerfile: 'FROM python:3.12-slim\nRUN pip install mcp==1.20.0\nCMD uvicorn app:app --host ${HOST} --port 8000\n',
        }),
      ).deployments[0]!;
    const open = shell('    env_file: [.env]\n');
    expect(fact(open, 'exposure.bind_address_class')).toBeUndefined();
    expect(open.reasons['exposure.bind_address_class']).toBe(
      '--host $HOST: the address it listens on comes from a variable the files do not fix',
    );
    expect(fact(shell('    environment:\n      HOST: 127.0.0.1\n'), 'exposure.bind_address_class')).toBe('loopback');
    expect(fact(shell('    environment:\n      HOST: 0.0.0.0\n'), 'exposure.bind_address_class')).toBe('private');
  });
});

describe('a command a shell runs', () => {
  it("reads the script's last command for the transport, and a flag's variable from the image's ENV", () => {
    // WebSurfinMurf/mcp's postgres: `entrypoint: ["/bin/sh", "-c"]` and the server's line as the command.
    const sse = collectWith(
      inline({
        'compose.yaml':
          'services:\n  mcp-postgres:\n    image: crystaldba/postgres-mcp:0.3.0\n    entrypoint: ["/bin/sh", "-c"]\n    command: ["postgres-mcp --access-mode restricted --transport sse --sse-port 8686 \\"$$DATABASE_URI\\""]\n',
      }),
    ).deployments[0]!;
    expect(fact(sse, 'transport.kind')).toBe('http');
    expect(fact(sse, 'transport.legacy_sse')).toBe(true);
    // MagneticDogSon/fixflow-mcp: `CMD ["sh", "-c", "uvicorn … --port ${PORT}"]`; guolisen/mcp_k8s_server:
    // a shell-form CMD with `--transport "$TRANSPORT"` and `ENV TRANSPORT=sse`.
    const image = (df: string) =>
      collectWith(inline({ Dockerfile: `FROM python:3.12-slim\nRUN pip install mcp==1.20.0\n${df}` })).deployments[0]!;
    expect(fact(image('CMD ["sh", "-c", "uvicorn fixflow_mcp.server:app --host 0.0.0.0 --port ${PORT}"]\n'), 'transport.kind')).toBe(
      'http',
    );
    const variable = image('ENV TRANSPORT=sse\nCMD "python" "-m" "mcp_k8s_server.main" --transport "$TRANSPORT"\n');
    expect(fact(variable, 'transport.legacy_sse')).toBe(true);
    expect(variable.sources['transport.kind']![0]).toMatchObject({
      line: 3,
      why: 'started with --transport $TRANSPORT, and TRANSPORT=sse, as the image starts',
    });
  });
});
