// What the files do not decide stays undecided, with the reason: each case is a value an
// independent audit of the corpus found the collectors guessing (docs/checking.md, "What no file
// shows"). A guessed fact would be signed as evidence, and a person could not correct it: a
// declared fact that contradicts a collected one is an error.
import { describe, expect, it } from 'vitest';
import { wanted } from '../../../src/collect/disk.js';
import { collectWith, deploymentOf, fact, inline } from '../../helpers/collect.js';

const open = (d: { facts: Record<string, unknown>; reasons: Record<string, string> }, path: string, reason: RegExp) => {
  expect(fact(d, path), path).toBeUndefined();
  expect(d.reasons[path], path).toMatch(reason);
};

describe('a proxy on a host', () => {
  const nginx = [
    'server {',
    '    listen 443 ssl;',
    '    ssl_protocols TLSv1.2 TLSv1.3;',
    '    location /mcp {',
    '        proxy_pass http://127.0.0.1:8000;',
    '    }',
    '}',
  ].join('\n');

  it('nginx: forwarding to the server does not show that its port cannot be reached past the proxy', () => {
    const d = deploymentOf(collectWith(inline({ 'sites-enabled/mcp.conf': nginx })), '127.0.0.1:8000');
    open(d, 'exposure.behind_reverse_proxy', /whether clients can also reach that port past the proxy/);
    open(d, 'tls.enabled', /every listener of the proxy has TLS, but/);
    expect(fact(d, 'tls.min_version')).toBe('1.2');
  });

  it('Caddy: the same for a site that reverse_proxies to localhost', () => {
    const d = deploymentOf(
      collectWith(inline({ Caddyfile: 'mcp.example.com {\n    reverse_proxy /mcp* localhost:8000\n}\n' })),
      'localhost:8000',
    );
    open(d, 'exposure.behind_reverse_proxy', /past the proxy/);
    open(d, 'tls.enabled', /past the proxy/);
  });

  it('a plain listener still decides tls.enabled false: plain HTTP serves the route whatever else does', () => {
    const d = deploymentOf(collectWith(inline({ 'mcp.conf': nginx.replace('443 ssl', '80') })), '127.0.0.1:8000');
    expect(fact(d, 'tls.enabled')).toBe(false);
  });
});

describe('an nginx server block without the http block that includes it', () => {
  const server = [
    'server {',
    '    listen 443 ssl;',
    '    ssl_protocols TLSv1.2;',
    '    location /mcp {',
    '        proxy_pass http://127.0.0.1:8000;',
    '    }',
    '}',
  ];

  it('leaves what the http level may set undecided: limit_conn, proxy_read_timeout, add_header', () => {
    const d = deploymentOf(collectWith(inline({ 'conf.d/mcp.conf': server.join('\n') })), '127.0.0.1:8000');
    for (const path of ['http.connections_per_client_limited', 'http.execution_deadline_seconds', 'tls.hsts'])
      open(d, path, /the http block that includes them is not among the files/);
  });

  it('decides them when the http block is among the files, with nginx defaults for what it leaves out', () => {
    const whole = ['http {', ...server.map((l) => `    ${l}`), '}'].join('\n');
    const d = deploymentOf(collectWith(inline({ 'nginx.conf': whole })), '127.0.0.1:8000');
    expect(fact(d, 'http.connections_per_client_limited')).toBe(false);
    open(d, 'http.execution_deadline_seconds', /^nginx's 60 s proxy_read_timeout bounds the whole call only when/);
    expect(fact(d, 'tls.hsts')).toBe(false);
  });

  it('decides them when the server block sets them itself', () => {
    const set = [...server];
    set.splice(3, 0, '    add_header Strict-Transport-Security "max-age=31536000" always;', '    proxy_read_timeout 30s;');
    const d = deploymentOf(collectWith(inline({ 'conf.d/mcp.conf': set.join('\n') })), '127.0.0.1:8000');
    expect(fact(d, 'tls.hsts')).toBe(true);
    open(d, 'http.execution_deadline_seconds', /^proxy_read_timeout 30s bounds the whole call only when/);
  });
});

describe("the Docker daemon's settings and images built elsewhere", () => {
  const composeWith = (extra: string[]) =>
    ['services:', '  mcp:', '    image: acme/mcp-server:1.0.0', '    ports: ["127.0.0.1:8000:8000"]', ...extra].join('\n');

  it('compose: no security_opt leaves no_new_privileges to the daemon; an explicit option decides', () => {
    const none = deploymentOf(collectWith(inline({ 'compose.yaml': composeWith([]) })), ':mcp');
    open(none, 'container.no_new_privileges', /dockerd --no-new-privileges/);
    const on = deploymentOf(collectWith(inline({ 'compose.yaml': composeWith(['    security_opt: ["no-new-privileges:true"]']) })), ':mcp');
    expect(fact(on, 'container.no_new_privileges')).toBe(true);
    const off = deploymentOf(
      collectWith(inline({ 'compose.yaml': composeWith(['    security_opt: ["no-new-privileges:false"]']) })),
      ':mcp',
    );
    expect(fact(off, 'container.no_new_privileges')).toBe(false);
  });

  it('compose: no secret given to an image built elsewhere is not "none": the image may hold one', () => {
    const d = deploymentOf(collectWith(inline({ 'compose.yaml': composeWith([]) })), ':mcp');
    open(d, 'container.secrets_source', /acme\/mcp-server:1.0.0 is not built from files here/);
  });

  it("compose: a build without HEALTHCHECK inherits its base image's, which is not in the files (FROM scratch has none)", () => {
    const compose = ['services:', '  mcp:', '    build: .', '    ports: ["127.0.0.1:8000:8000"]'].join('\n');
    const node = deploymentOf(
      collectWith(inline({ 'compose.yaml': compose, Dockerfile: 'FROM node:24-trixie-slim\nCMD ["node", "mcp.js"]\n' }), {
        servers: ['mcp'],
      }),
      ':mcp',
    );
    open(node, 'container.healthcheck', /a HEALTHCHECK of its base image node:24-trixie-slim would be inherited/);
    const scratch = deploymentOf(
      collectWith(inline({ 'compose.yaml': compose, Dockerfile: 'FROM scratch\nCOPY mcp /mcp\nENTRYPOINT ["/mcp"]\n' }), {
        servers: ['mcp'],
      }),
      ':mcp',
    );
    expect(fact(scratch, 'container.healthcheck')).toBe(false);
  });

  it('compose: an image built from a Dockerfile among the files, with no secret in it, gets none', () => {
    const files = {
      'compose.yaml': ['services:', '  mcp:', '    build: .', '    ports: ["127.0.0.1:8000:8000"]'].join('\n'),
      Dockerfile: 'FROM node:24-trixie-slim\nUSER node\nCMD ["node", "mcp-server.js"]\n',
    };
    const d = deploymentOf(collectWith(inline(files), { servers: ['mcp'] }), ':mcp');
    expect(fact(d, 'container.secrets_source')).toBe('none');
  });

  it('a client configuration: docker run without --security-opt or a secret decides neither', () => {
    const config = JSON.stringify({ mcpServers: { x: { command: 'docker', args: ['run', '-i', '--rm', 'acme/mcp:1.0.0'] } } });
    const d = deploymentOf(collectWith(inline({ '.mcp.json': config })), ':x');
    open(d, 'container.no_new_privileges', /daemon's default decides/);
    open(d, 'container.secrets_source', /acme\/mcp:1.0.0 is not built from files here/);
    const withEnvFile = JSON.stringify({
      mcpServers: {
        x: {
          command: 'docker',
          args: ['run', '-i', '--rm', '--env-file', '.env', '--security-opt', 'no-new-privileges', 'acme/mcp:1.0.0'],
        },
      },
    });
    const e = deploymentOf(collectWith(inline({ '.mcp.json': withEnvFile })), ':x');
    open(e, 'container.secrets_source', /--env-file \.env/);
    expect(fact(e, 'container.no_new_privileges')).toBe(true);
  });
});

describe('a plain health check on the only published port', () => {
  it('decides tls.enabled false for a server nothing fronts: the port answers plain HTTP', () => {
    const compose = [
      'services:',
      '  mcp:',
      '    image: acme/mcp-server:1.0.0',
      '    ports: ["3000:3000"]',
      '    healthcheck:',
      '      test: ["CMD", "curl", "-f", "http://localhost:3000/mcp/"]',
    ].join('\n');
    const d = deploymentOf(collectWith(inline({ 'compose.yaml': compose })), ':mcp');
    expect(fact(d, 'tls.enabled')).toBe(false);
    expect(d.sources['tls.enabled']![0]).toMatchObject({ file: 'compose.yaml', line: 6 });
    // The check on another port than the published one decides nothing.
    const other = deploymentOf(collectWith(inline({ 'compose.yaml': compose.replace('localhost:3000', 'localhost:9000') })), ':mcp');
    expect(fact(other, 'tls.enabled')).toBeUndefined();
  });
});

describe('Kubernetes: what the cluster decides', () => {
  it('a plain hop from the ingress controller: whether the CNI encrypts between nodes is not in the files', () => {
    const manifests = [
      'apiVersion: apps/v1',
      'kind: Deployment',
      'metadata: { name: mcp }',
      'spec:',
      '  selector: { matchLabels: { app: mcp } }',
      '  template:',
      '    metadata: { labels: { app: mcp } }',
      '    spec:',
      '      containers: [{ name: mcp, image: "acme/mcp-server:1.0.0", ports: [{ containerPort: 8000 }] }]',
      '---',
      'apiVersion: v1',
      'kind: Service',
      'metadata: { name: mcp }',
      'spec: { selector: { app: mcp }, ports: [{ port: 80, targetPort: 8000 }] }',
      '---',
      'apiVersion: networking.k8s.io/v1',
      'kind: Ingress',
      'metadata: { name: mcp }',
      'spec:',
      '  rules: [{ http: { paths: [{ path: /mcp, pathType: Prefix, backend: { service: { name: mcp, port: { number: 80 } } } }] } }]',
    ].join('\n');
    const d = deploymentOf(collectWith(inline({ 'k8s/app.yaml': manifests })), 'Deployment/mcp');
    open(d, 'tls.backend_hop', /whether the CNI encrypts traffic between nodes/);
    open(d, 'container.secrets_source', /acme\/mcp-server:1.0.0 is not built from files here/);
  });
});

describe("doctrine 1.3's answers to what the collectors could not say", () => {
  const entry = (env: Record<string, string> | undefined, network: string[] = []) =>
    JSON.stringify({
      mcpServers: {
        gh: { command: 'docker', args: ['run', '-i', '--rm', ...network, '-e', 'GITHUB_TOKEN', 'ghcr.io/github/github-mcp-server'], env },
      },
    });

  it('docker run -e NAME: the client environment, unless a project configuration holds the value', () => {
    const user = deploymentOf(collectWith(inline({ 'claude_desktop_config.json': entry({ GITHUB_TOKEN: 'YOUR_GITHUB_PAT' }) })), ':gh');
    expect(fact(user, 'container.secrets_source')).toBe('environment');
    const session = deploymentOf(collectWith(inline({ '.mcp.json': entry(undefined) })), ':gh');
    expect(fact(session, 'container.secrets_source')).toBe('environment');
    expect(session.sources['container.secrets_source']![0]!.why).toMatch(/the user's session/);
    const reference = deploymentOf(
      collectWith(inline({ '.vscode/mcp.json': entry({ GITHUB_TOKEN: ['$', '{input:token}'].join('') }) })),
      ':gh',
    );
    expect(fact(reference, 'container.secrets_source')).toBe('environment');
    const project = deploymentOf(
      collectWith(inline({ '.mcp.json': entry({ GITHUB_TOKEN: 'ghp_0123456789abcdefghij0123456789abcdef' }) })),
      ':gh',
    );
    expect(fact(project, 'container.secrets_source')).toBe('manifest_plaintext');
    expect(project.inexpressible).toEqual([]);
    // A placeholder there is no secret yet (datalayer/jupyter-mcp-server's `"DOCUMENT_TOKEN": "YOUR_TOKEN"`).
    const placeholder = deploymentOf(collectWith(inline({ '.mcp.json': entry({ GITHUB_TOKEN: 'YOUR_GITHUB_PAT' }) })), ':gh');
    open(placeholder, 'container.secrets_source', /^-e GITHUB_TOKEN: \.mcp\.json holds the placeholder YOUR_GITHUB_PAT/);
    expect(fact(placeholder, 'client.config_secrets_plaintext')).toBe(false);
  });

  it("on the host's network the server's own listen address decides what is published", () => {
    const d = deploymentOf(collectWith(inline({ 'claude_desktop_config.json': entry(undefined, ['--network', 'host']) })), ':gh');
    open(d, 'container.published_ports', /--network host: nothing is published/);
    const compose = ['services:', '  mcp:', '    image: acme/mcp-server:1.0.0', '    network_mode: host', '    ports: ["8000:8000"]'].join(
      '\n',
    );
    const c = deploymentOf(collectWith(inline({ 'compose.yaml': compose })), ':mcp');
    open(c, 'container.published_ports', /network_mode: host: nothing is published/);
    open(c, 'exposure.bind_address_class', /its own listen address decides/);
    expect(c.inexpressible).toEqual([]);
    // With no ports written, the host's network still leaves where clients reach it to the server (ofayese/mcp).
    const bare = deploymentOf(collectWith(inline({ 'compose.yaml': compose.replace('\n    ports: ["8000:8000"]', '') })), ':mcp');
    open(bare, 'exposure.endpoint_address_class', /^mcp has network_mode: host: nothing is published/);
    open(bare, 'exposure.reachable_from_internet', /^mcp has network_mode: host: nothing is published/);
  });
});

describe('misreadings the broadened corpus found, each on a small file', () => {
  it('uv add after a frozen sync installs a newest release: not locked', () => {
    const files = {
      'compose.yaml': 'services:\n  mcp:\n    build: .\n',
      Dockerfile: 'FROM python:3.12-slim\nCOPY pyproject.toml uv.lock ./\nRUN uv sync --frozen --no-dev && uv add watchdog\nUSER 1000\n',
      'pyproject.toml': '[project]\nname = "x"\ndependencies = ["mcp>=1.0"]\n',
    };
    const d = deploymentOf(collectWith(inline(files)), ':mcp');
    expect(fact(d, 'supply_chain.lockfile_enforced')).toBe(false);
    expect(fact(d, 'supply_chain.deployed_release')).toBe('floating');
    expect(d.sources['supply_chain.deployed_release']![0]!.why).toMatch(/^uv add watchdog/);
  });

  it('uv lock before a frozen sync resolves the lockfile the sync installs', () => {
    // mindset-dev/bigtorig-mcp-hub: `RUN uv lock && uv sync --frozen --no-dev`, no uv.lock committed.
    const files = {
      'compose.yaml': 'services:\n  mcp:\n    build: .\n',
      Dockerfile: 'FROM python:3.12-slim\nCOPY pyproject.toml ./\nRUN uv lock && uv sync --frozen --no-dev\nUSER 1000\n',
      'pyproject.toml': '[project]\nname = "x"\ndependencies = ["mcp>=1.0"]\n',
    };
    const d = deploymentOf(collectWith(inline(files)), ':mcp');
    expect(fact(d, 'supply_chain.lockfile_enforced')).toBe(false);
    expect(d.sources['supply_chain.lockfile_enforced']![0]!.why).toBe('uv lock: not installed from a lockfile it must match');
    expect(fact(d, 'supply_chain.deployed_release')).toBe('floating');
    // With uv.lock committed and copied, uv lock keeps its versions while pyproject.toml matches: open.
    const committed = {
      ...files,
      Dockerfile: files.Dockerfile.replace('COPY pyproject.toml ./', 'COPY pyproject.toml uv.lock ./'),
      'uv.lock': 'version = 1\n',
    };
    const kept = deploymentOf(collectWith(inline(committed)), ':mcp');
    expect(fact(kept, 'supply_chain.lockfile_enforced')).toBe(false);
    expect(fact(kept, 'supply_chain.deployed_release')).toBeUndefined();
    // sooperset/mcp-atlassian: `uv lock` with only pyproject.toml mounted, then `uv sync --frozen`
    // with the committed uv.lock bind-mounted over what it wrote: the sync installs the committed one.
    const mounted = deploymentOf(
      collectWith(
        inline({
          ...committed,
          Dockerfile:
            'FROM python:3.12-slim\nRUN --mount=type=bind,source=pyproject.toml,target=pyproject.toml uv lock\nRUN --mount=type=bind,source=uv.lock,target=uv.lock --mount=type=bind,source=pyproject.toml,target=pyproject.toml uv sync --frozen --no-dev\nUSER 1000\n',
        }),
      ),
      ':mcp',
    );
    expect(fact(mounted, 'supply_chain.lockfile_enforced')).toBe(true);
    expect(fact(mounted, 'supply_chain.deployed_release')).toBe('locked');
    // `uv lock --locked` only checks it.
    const checked = deploymentOf(
      collectWith(inline({ ...committed, Dockerfile: committed.Dockerfile.replace('uv lock &&', 'uv lock --locked &&') })),
      ':mcp',
    );
    expect(fact(checked, 'supply_chain.lockfile_enforced')).toBe(true);
    expect(fact(checked, 'supply_chain.deployed_release')).toBe('locked');
  });

  it('the project installed after a frozen sync keeps the locked dependencies while they satisfy it', () => {
    // semgrep/mcp's Dockerfile: `uv sync --frozen --no-install-project`, then `uv pip install .`.
    const release = (install: string) => {
      const files = {
        'compose.yaml': 'services:\n  mcp:\n    build: .\n',
        Dockerfile: `FROM python:3.12-slim\nCOPY pyproject.toml uv.lock ./\nRUN uv sync --frozen --no-install-project --no-dev\nCOPY . .\nRUN ${install}\nUSER 1000\n`,
        'pyproject.toml': '[project]\nname = "x"\ndependencies = ["mcp>=1.0"]\n',
        'uv.lock': 'version = 1\n',
      };
      const d = deploymentOf(collectWith(inline(files)), ':mcp');
      return {
        value: fact(d, 'supply_chain.deployed_release'),
        why: d.reasons['supply_chain.deployed_release'],
        enforced: fact(d, 'supply_chain.lockfile_enforced'),
      };
    };
    for (const install of ['uv pip install .', 'pip install -e .', 'uv pip install --system ".[server]"']) {
      const r = release(install);
      expect(r.value, install).toBeUndefined();
      expect(r.why, install).toMatch(/keeps the dependencies a locked install put there/);
      expect(r.enforced, install).toBe(false);
    }
    // An upgrade, or another package beside the project, resolves anew.
    expect(release('uv pip install --upgrade .').value).toBe('floating');
    expect(release('pip install . httpx').value).toBe('floating');
    // With --no-deps it resolves nothing: the locked install stands (pab1it0/prometheus-mcp-server's Dockerfile:15).
    // So does a wheel the build made from the project (Arize-ai/phoenix's `uv pip install dist/*.whl --no-deps`).
    // A flag's value is no package either (stickerdaniel/linkedin-mcp-server's `--build-constraints build-constraints.txt`).
    for (const install of [
      'uv pip install -e . --no-deps',
      'pip install --no-deps .',
      'uv pip install dist/*.whl --no-deps',
      'uv pip install --no-deps --build-constraints build-constraints.txt .',
      'uv pip install --no-deps -b build-constraints.txt .',
    ])
      expect(release(install), install).toMatchObject({ value: 'locked', enforced: true });
  });

  it('an install in a stage that holds no lockfile floats, whatever another stage locked', () => {
    // czlonkowski/n8n-mcp's Dockerfile: `npm ci` in the deps stage; the runtime stage writes a
    // package.json with ranges and runs `npm install` where no lockfile was copied.
    const dockerfile = [
      'FROM node:20-slim AS deps',
      'COPY package*.json ./',
      'RUN npm ci',
      'FROM node:20-slim AS runtime',
      `RUN echo '{"dependencies": {"@modelcontextprotocol/sdk": "^1.12.1"}}' > package.json`,
      'RUN npm install --production',
      'COPY --from=deps /app/node_modules ./node_modules',
      'USER node',
      'CMD ["node", "dist/mcp/index.js"]',
    ].join('\n');
    const files = {
      Dockerfile: dockerfile,
      'package.json': '{"name": "x", "dependencies": {"@modelcontextprotocol/sdk": "^1.12.1"}}',
      'package-lock.json': '{"lockfileVersion": 3}',
    };
    const d = deploymentOf(collectWith(inline(files)), 'Dockerfile');
    expect(fact(d, 'supply_chain.deployed_release')).toBe('floating');
    expect(d.sources['supply_chain.deployed_release']![0]!.why).toMatch(/^npm install --production resolves versions at build time/);
    // With the lockfile copied into that stage, npm install follows it while the manifest matches.
    const withLock = {
      ...files,
      Dockerfile: dockerfile.replace('RUN npm install --production', 'COPY package-lock.json ./\nRUN npm install --production'),
    };
    expect(fact(deploymentOf(collectWith(inline(withLock)), 'Dockerfile'), 'supply_chain.deployed_release')).toBeUndefined();
    // Or copied out of the stage that holds it (Klavis-AI/klavis's `COPY --from=builder /app/package-lock.json* /app/`).
    const fromStage = {
      ...files,
      Dockerfile: dockerfile
        .replace('COPY package*.json ./', 'COPY package.json package-lock.json* ./')
        .replace('RUN npm install --production', 'COPY --from=deps /app/package-lock.json* /app/\nRUN npm install --production'),
    };
    expect(fact(deploymentOf(collectWith(inline(fromStage)), 'Dockerfile'), 'supply_chain.deployed_release')).toBeUndefined();
    const distOnly = {
      ...files,
      Dockerfile: dockerfile.replace('RUN npm install --production', 'COPY --from=deps /app/dist.js ./\nRUN npm install --production'),
    };
    expect(fact(deploymentOf(collectWith(inline(distOnly)), 'Dockerfile'), 'supply_chain.deployed_release')).toBe('floating');
  });

  it("a server copied out of its published image is as fixed as that image's reference", () => {
    // docker/labs-ai-tools-for-devs's functions/github-mcp-server/Dockerfile.
    const release = (from: string) => {
      const dockerfile = `FROM alpine:3.21\nWORKDIR /server\nCOPY --from=${from} /server/github-mcp-server .\nENTRYPOINT ["/server/github-mcp-server", "stdio"]\n`;
      const d = deploymentOf(collectWith(inline({ 'functions/github-mcp-server/Dockerfile': dockerfile })), 'Dockerfile');
      return { value: fact(d, 'supply_chain.deployed_release'), at: d.sources['supply_chain.deployed_release']?.[0] };
    };
    expect(release('ghcr.io/github/github-mcp-server')).toEqual({
      value: 'floating',
      at: {
        file: 'functions/github-mcp-server/Dockerfile',
        line: 3,
        why: 'COPY --from=ghcr.io/github/github-mcp-server copies the server out of that image, named by a floating tag or none',
      },
    });
    expect(release('ghcr.io/github/github-mcp-server:v0.20.1').value).toBe('exact_version');
    expect(release(`ghcr.io/github/github-mcp-server@sha256:${'b'.repeat(64)}`).value).toBe('digest');
    // A tool image copied in (uv) is no server: it decides nothing here.
    expect(release('ghcr.io/astral-sh/uv:latest').value).toBeUndefined();
  });

  it('a stage that only names the published image is that image; a locked install after it does not fix it', () => {
    // jrmatherly/MCP-Platform's templates/gitlab/Dockerfile.
    const dockerfile = (image: string) =>
      `FROM ${image} AS gitlab-mcp\nFROM node:22-alpine\nCOPY --from=gitlab-mcp /app /app\nWORKDIR /app\nRUN if [ ! -d "node_modules" ]; then npm ci --ignore-scripts --omit-dev; fi\nENTRYPOINT ["node", "/app/build/index.js"]\n`;
    const release = (image: string) => {
      const d = deploymentOf(collectWith(inline({ 'templates/gitlab/Dockerfile': dockerfile(image) })), 'Dockerfile');
      return { value: fact(d, 'supply_chain.deployed_release'), at: d.sources['supply_chain.deployed_release']?.[0] };
    };
    expect(release('iwakitakuma/gitlab-mcp:latest')).toEqual({
      value: 'floating',
      at: {
        file: 'templates/gitlab/Dockerfile',
        line: 3,
        why: 'COPY --from=iwakitakuma/gitlab-mcp:latest copies the server out of that image, named by a floating tag or none',
      },
    });
    expect(release('iwakitakuma/gitlab-mcp:1.4.2').value).toBe('exact_version');
  });

  it('a secret linked into a Go binary the final stage copies is in the image', () => {
    const dockerfile = [
      'FROM golang:1.25 AS build',
      'RUN --mount=type=secret,id=s go build -ldflags="-X main.version=1 -X example.com/x/buildinfo.ClientSecret=$SECRET" -o /bin/srv ./cmd/srv',
      'FROM gcr.io/distroless/base-debian12',
      'COPY --from=build /bin/srv /srv',
      'ENTRYPOINT ["/srv", "mcp"]',
    ].join('\n');
    const d = deploymentOf(
      collectWith(inline({ Dockerfile: dockerfile, 'go.mod': 'module x\nrequire github.com/modelcontextprotocol/go-sdk v1.0.0\n' })),
      'Dockerfile',
    );
    expect(fact(d, 'container.secrets_source')).toBe('baked_into_image');
    // go build without a go.sum among the files: read (it made the collector throw and skip the file), not locked.
    expect(fact(d, 'supply_chain.lockfile_enforced')).toBe(false);
    // Not copied into the final stage: the build stage's binary never reaches the image.
    const unused = dockerfile.replace('COPY --from=build /bin/srv /srv\n', '');
    const u = deploymentOf(
      collectWith(inline({ Dockerfile: unused, 'go.mod': 'module x\nrequire github.com/modelcontextprotocol/go-sdk v1.0.0\n' })),
      'Dockerfile',
    );
    expect(fact(u, 'container.secrets_source')).toBeUndefined();
  });

  it('the MCP Inspector is a client: not a server, and calling the server directly bypasses the proxy', () => {
    const compose = [
      'services:',
      '  edge:',
      '    image: traefik:v3.0',
      '    command: [--providers.docker=true]',
      '    ports: ["8003:8003"]',
      '  mcp-server:',
      '    image: acme/mcp-server:1.0.0',
      '    labels:',
      '      - "traefik.enable=true"',
      '      - "traefik.http.routers.mcp.rule=PathPrefix(`/mcp`)"',
      '  mcp-inspector:',
      '    image: node:22-alpine',
      '    command: npx @modelcontextprotocol/inspector --server-url http://mcp-server:8001/mcp',
    ].join('\n');
    const c = collectWith(inline({ 'compose.yaml': compose }));
    expect(c.deployments.map((x) => x.name)).toEqual(['compose:compose.yaml:mcp-server']);
    const d = c.deployments[0]!;
    expect(fact(d, 'exposure.behind_reverse_proxy')).toBe(false);
    expect(d.sources['exposure.behind_reverse_proxy']![0]!.why).toBe(
      "service mcp-inspector calls mcp-server's MCP endpoint directly, not through edge",
    );
    // On an external network (deslicer/mcp-for-splunk's docker-compose-dev.yml) a proxy outside the files
    // may reach the server too; the Inspector still goes past it.
    const external = collectWith(
      inline({ 'compose.yaml': `${compose}\nnetworks:\n  default:\n    name: splunk-network\n    external: true\n` }),
    ).deployments[0]!;
    expect(fact(external, 'exposure.behind_reverse_proxy')).toBe(false);
  });

  it('an OpenShift Route in front, and a securityContext the manifest leaves to admission', () => {
    const manifests = [
      'apiVersion: apps/v1',
      'kind: Deployment',
      'metadata: { name: mcp-server }',
      'spec:',
      '  selector: { matchLabels: { app: mcp } }',
      '  template:',
      '    metadata: { labels: { app: mcp } }',
      '    spec:',
      '      containers: [{ name: mcp, image: "acme/mcp-server:1.0.0", ports: [{ containerPort: 8443 }] }]',
      '---',
      'apiVersion: v1',
      'kind: Service',
      'metadata: { name: mcp-server }',
      'spec: { selector: { app: mcp }, ports: [{ port: 8443 }] }',
      '---',
      'apiVersion: route.openshift.io/v1',
      'kind: Route',
      'metadata: { name: mcp }',
      'spec: { to: { kind: Service, name: mcp-server }, tls: { termination: edge, insecureEdgeTerminationPolicy: Allow } }',
    ].join('\n');
    const d = deploymentOf(collectWith(inline({ 'k8s/all.yaml': manifests })), 'Deployment/mcp-server');
    expect(fact(d, 'exposure.behind_reverse_proxy')).toBe(true);
    expect(fact(d, 'tls.enabled')).toBe(false);
    expect(d.sources['tls.enabled']![0]!.why).toMatch(/insecureEdgeTerminationPolicy Allow serves plain HTTP too/);
    open(d, 'tls.backend_hop', /whether the CNI encrypts/);
    open(d, 'container.capabilities_dropped', /OpenShift's restricted-v2 SCC/);
    open(d, 'container.no_new_privileges', /admission may set it/);
  });
});

describe('go mod tidy before go build', () => {
  it('frees the build from the committed go.sum: not enforced, the release open', () => {
    // tendant/postgres-mcp-sse's Dockerfile: `RUN go mod tidy` then `go build`.
    const files = {
      Dockerfile:
        'FROM golang:1.24 AS build\nCOPY go.mod go.sum ./\nCOPY . .\nRUN go mod tidy\nRUN go build -o /srv .\nFROM gcr.io/distroless/static\nCOPY --from=build /srv /srv\nENTRYPOINT ["/srv"]\n',
      'go.mod': 'module x\nrequire github.com/mark3labs/mcp-go v0.30.0\n',
      'go.sum': 'github.com/mark3labs/mcp-go v0.30.0 h1:x\n',
    };
    const d = deploymentOf(collectWith(inline(files)), 'Dockerfile');
    expect(fact(d, 'supply_chain.lockfile_enforced')).toBe(false);
    expect(d.sources['supply_chain.lockfile_enforced']![0]!.why).toBe('go mod tidy: not installed from a lockfile it must match');
    expect(fact(d, 'supply_chain.deployed_release')).toBeUndefined();
    // Without it, go build keeps to go.sum.
    const strict = deploymentOf(
      collectWith(inline({ ...files, Dockerfile: files.Dockerfile.replace('RUN go mod tidy\n', '') })),
      'Dockerfile',
    );
    expect(fact(strict, 'supply_chain.lockfile_enforced')).toBe(true);
    // go.sum not copied at all (tillkuhn/make-your-mcp-server's `COPY go.mod .`, then tidy): the
    // versions are still go.mod's, go.sum only their hashes; the release stays open as with it.
    const sumless = deploymentOf(
      collectWith(
        inline({
          ...files,
          Dockerfile: files.Dockerfile.replace('COPY go.mod go.sum ./\nCOPY . .\n', 'COPY go.mod ./\nCOPY main.go ./\n'),
        }),
      ),
      'Dockerfile',
    );
    expect(fact(sumless, 'supply_chain.lockfile_enforced')).toBe(false);
    expect(fact(sumless, 'supply_chain.deployed_release')).toBeUndefined();
    expect(sumless.reasons['supply_chain.deployed_release']).toMatch(
      /^go mod tidy keeps the versions go\.mod requires \(minimal version selection\)/,
    );
  });

  it('a tidy that the committed go.sum is copied back over no longer decides', () => {
    // benCoomes/demo-mcp: `COPY go.mod ./`, `RUN go mod download && go mod tidy`, `COPY . .`, `go build`.
    const files = {
      Dockerfile:
        'FROM golang:1.23-alpine AS build\nCOPY go.mod ./\nRUN go mod download && go mod tidy\nCOPY . .\nRUN go build -o /srv ./cmd/server\nFROM alpine:3.22\nCOPY --from=build /srv /srv\nENTRYPOINT ["/srv"]\n',
      'go.mod': 'module x\nrequire github.com/mark3labs/mcp-go v0.30.0\n',
      'go.sum': 'github.com/mark3labs/mcp-go v0.30.0 h1:x\n',
    };
    const d = deploymentOf(collectWith(inline(files)), 'Dockerfile');
    expect(fact(d, 'supply_chain.lockfile_enforced')).toBe(true);
    expect(fact(d, 'supply_chain.deployed_release')).toBe('locked');
    // Copied back before the tidy, it is what the tidy rewrites.
    const after = files.Dockerfile.replace('COPY go.mod ./\nRUN go mod download && go mod tidy\nCOPY . .\n', 'COPY . .\nRUN go mod tidy\n');
    expect(fact(deploymentOf(collectWith(inline({ ...files, Dockerfile: after })), 'Dockerfile'), 'supply_chain.lockfile_enforced')).toBe(
      false,
    );
  });

  it('-mod=mod, as a flag or in GOFLAGS, frees the build the same way', () => {
    // stackrox/stackrox-mcp's konflux.Dockerfile: `go build -mod=mod …` (its comment: vendor mode failed).
    const base = 'FROM golang:1.24 AS build\nCOPY go.mod go.sum ./\nCOPY . .\n';
    const tail = 'FROM gcr.io/distroless/static\nCOPY --from=build /srv /srv\nENTRYPOINT ["/srv"]\n';
    const go = {
      'go.mod': 'module x\nrequire github.com/mark3labs/mcp-go v0.30.0\n',
      'go.sum': 'github.com/mark3labs/mcp-go v0.30.0 h1:x\n',
    };
    for (const build of [
      'RUN RACE=0 GOOS=linux go build -mod=mod -o /srv .\n',
      'RUN go build -mod mod -o /srv .\n',
      'RUN GOFLAGS="-trimpath -mod=mod" go build -o /srv .\n',
      'ENV GOFLAGS=-mod=mod\nRUN go build -o /srv .\n',
    ]) {
      const d = deploymentOf(collectWith(inline({ ...go, Dockerfile: base + build + tail })), 'Dockerfile');
      expect(fact(d, 'supply_chain.lockfile_enforced'), build).toBe(false);
      expect(d.sources['supply_chain.lockfile_enforced']![0]!.why, build).toMatch(
        /mod[= ]mod.*not installed from a lockfile it must match/,
      );
      expect(fact(d, 'supply_chain.deployed_release'), build).toBeUndefined();
      open(d, 'supply_chain.deployed_release', /-mod=readonly, without go mod tidy or -mod=mod/);
    }
    // -mod=readonly (the default, written out) and -mod=vendor keep to what is committed.
    for (const build of ['RUN go build -mod=readonly -o /srv .\n', 'ENV GOFLAGS=-mod=vendor\nRUN go build -o /srv .\n']) {
      const d = deploymentOf(collectWith(inline({ ...go, Dockerfile: base + build + tail })), 'Dockerfile');
      expect(fact(d, 'supply_chain.lockfile_enforced'), build).toBe(true);
    }
  });
});

describe('a lockfile the build context keeps out with .dockerignore', () => {
  it('never reaches a frozen install: the build as written fails, and the release is open', () => {
    // caleb-mabry/postgres-mcp: `COPY package*.json ./`, `RUN npm ci`, package-lock.json in .dockerignore.
    const files = (ignore: string) => ({
      Dockerfile:
        'FROM node:22-slim\nWORKDIR /app\nCOPY package*.json ./\nRUN npm ci\nCOPY . .\nUSER node\nCMD ["node", "mcp-server.js"]\n',
      'package.json': JSON.stringify({ name: 'x', dependencies: { '@modelcontextprotocol/sdk': '1.0.0' } }),
      'package-lock.json': '{}',
      '.dockerignore': ignore,
    });
    const d = deploymentOf(collectWith(inline(files('node_modules/\npackage-lock.json\n'))), 'Dockerfile');
    expect(fact(d, 'supply_chain.lockfile_enforced')).toBeUndefined();
    expect(fact(d, 'supply_chain.deployed_release')).toBeUndefined();
    expect(d.reasons['supply_chain.lockfile_enforced']).toBe(
      'npm ci needs package-lock.json, which .dockerignore keeps out of the build: the build as written fails, and what a working one installs is not in the files',
    );
    const kept = deploymentOf(collectWith(inline(files('node_modules/\n'))), 'Dockerfile');
    expect(fact(kept, 'supply_chain.lockfile_enforced')).toBe(true);
    expect(fact(kept, 'supply_chain.deployed_release')).toBe('locked');
  });

  it('named by a COPY, it fails the COPY itself, whatever the install', () => {
    // CasualClark/OpenSpec's task-mcp-http: `COPY package.json pnpm-lock.yaml ./`, `RUN pnpm install`, pnpm-lock.yaml ignored.
    const d = deploymentOf(
      collectWith(
        inline({
          Dockerfile:
            'FROM node:22-slim\nWORKDIR /app\nCOPY package.json pnpm-lock.yaml ./\nRUN pnpm install\nCOPY . .\nCMD ["node", "mcp-server.js"]\n',
          'package.json': JSON.stringify({ name: 'x', dependencies: { '@modelcontextprotocol/sdk': '1.0.0' } }),
          '.dockerignore': 'pnpm-lock.yaml\n',
        }),
      ),
      'Dockerfile',
    );
    expect(fact(d, 'supply_chain.deployed_release')).toBeUndefined();
    expect(d.reasons['supply_chain.deployed_release']).toBe(
      'a COPY names pnpm-lock.yaml, which .dockerignore keeps out of the build: the build as written fails there, and what a working one installs is not in the files',
    );
  });
});

describe('a lockfile the repository does not hold', () => {
  it('a frozen install cannot be held to it: what the build installs is open', () => {
    // andkirby/markdown-ticket's mcp-server: `COPY package*.json ./`, then `bun install --frozen-lockfile`, bun.lock never copied.
    const files = (install: string, lock: Record<string, string>) => ({
      Dockerfile: `FROM node:22-slim\nWORKDIR /app\nCOPY package*.json ./\nRUN ${install}\nCOPY . .\nCMD ["node", "mcp-server.js"]\n`,
      'package.json': JSON.stringify({ name: 'x', dependencies: { '@modelcontextprotocol/sdk': '1.0.0' } }),
      ...lock,
    });
    for (const install of ['npm ci', 'bun install --frozen-lockfile', 'pnpm install --frozen-lockfile']) {
      const d = deploymentOf(collectWith(inline(files(install, {}))), 'Dockerfile');
      expect(fact(d, 'supply_chain.lockfile_enforced'), install).toBeUndefined();
      expect(fact(d, 'supply_chain.deployed_release'), install).toBeUndefined();
      expect(d.reasons['supply_chain.deployed_release']).toBe(
        `${install} needs a lockfile the build does not copy in before it: what it installs is not in the files`,
      );
    }
    const kept = deploymentOf(collectWith(inline(files('npm ci', { 'package-lock.json': '{}' }))), 'Dockerfile');
    expect(fact(kept, 'supply_chain.deployed_release')).toBe('locked');
  });

  it("Bun's lockfile, text or binary, holds a frozen install to it", () => {
    // kiliczsh/mcp-mongo-server: `COPY package.json bun.lock* ./`, `bun install --frozen-lockfile --ignore-scripts`.
    const files = (lock: Record<string, string>) =>
      inline({
        Dockerfile:
          'FROM oven/bun:1.2\nWORKDIR /app\nCOPY package.json bun.lock* ./\nRUN bun install --frozen-lockfile --ignore-scripts\nCOPY . .\nCMD ["bun", "run", "start"]\n',
        'package.json': JSON.stringify({ name: 'x', dependencies: { '@modelcontextprotocol/sdk': '1.0.0' } }),
        ...lock,
      });
    const locks: Record<string, string>[] = [
      { 'bun.lock': '{"lockfileVersion": 1}\n' },
      { 'bun.lockb': '#!/usr/bin/env bun\nbun-lockfile-format-v0\n\u0000\u0001' },
    ];
    for (const lock of locks) {
      const out = collectWith(files(lock));
      expect(out.files.find((f) => f.path.startsWith('bun.lock'))!.kind).toBe('bun_lockfile');
      expect(out.skipped).toEqual([]);
      const d = deploymentOf(out, 'Dockerfile');
      expect(fact(d, 'supply_chain.lockfile_enforced')).toBe(true);
      expect(fact(d, 'supply_chain.deployed_release')).toBe('locked');
    }
    // Another binary file is still skipped, never read as text.
    expect(collectWith(inline({ 'data.bin': 'a\u0000b' })).skipped).toEqual([{ path: 'data.bin', reason: 'binary (a NUL byte)' }]);
    // A walk reads both names.
    expect([wanted('bun.lock'), wanted('bun.lockb')]).toEqual([true, true]);
  });

  it('poetry install resolves anew without poetry.lock', () => {
    // vulnersCom/vulners-mcp: `COPY pyproject.toml poetry.lock* ./` matches no lockfile it commits.
    const files = (lock: Record<string, string>) => ({
      Dockerfile:
        'FROM python:3.12-slim\nRUN pip install poetry==2.1.3\nWORKDIR /app\nCOPY pyproject.toml poetry.lock* ./\nRUN poetry install --no-root --only main\nCOPY . .\nCMD ["python", "-m", "vulners_mcp"]\n',
      'pyproject.toml': '[project]\nname = "x"\ndependencies = ["mcp>=1.9"]\n',
      ...lock,
    });
    const d = deploymentOf(collectWith(inline(files({}))), 'Dockerfile');
    expect(fact(d, 'supply_chain.lockfile_enforced')).toBe(false);
    expect(fact(d, 'supply_chain.deployed_release')).toBe('floating');
    const locked = deploymentOf(collectWith(inline(files({ 'poetry.lock': '# lock\n' }))), 'Dockerfile');
    expect(fact(locked, 'supply_chain.lockfile_enforced')).toBe(true);
    expect(fact(locked, 'supply_chain.deployed_release')).toBe('locked');
  });
});

describe("Bun's install scripts", () => {
  it('run for the packages on its default trusted list, unless --ignore-scripts or an empty trustedDependencies', () => {
    // andkirby/markdown-ticket: `bun install --frozen-lockfile` with esbuild and sharp in bun.lock, no trustedDependencies.
    const scripts = (install: string, pkg: Record<string, unknown> = {}) => {
      const d = deploymentOf(
        collectWith(
          inline({
            Dockerfile: `FROM oven/bun:1.2\nWORKDIR /app\nCOPY package.json bun.lock ./\nRUN ${install}\nCOPY . .\nCMD ["bun", "mcp-server.ts"]\n`,
            'package.json': JSON.stringify({ name: 'x', dependencies: { '@modelcontextprotocol/sdk': '1.0.0' }, ...pkg }),
            'bun.lock': '{}',
          }),
        ),
        'Dockerfile',
      );
      return { value: fact(d, 'supply_chain.install_scripts_disabled'), why: d.sources['supply_chain.install_scripts_disabled']?.[0]?.why };
    };
    expect(scripts('bun install --frozen-lockfile')).toEqual({
      value: false,
      why: "bun install --frozen-lockfile runs the install scripts of the packages on Bun's default trusted list and in trustedDependencies",
    });
    expect(scripts('bun install --frozen-lockfile', { trustedDependencies: ['sharp'] }).value).toBe(false);
    expect(scripts('bun install --frozen-lockfile --ignore-scripts').value).toBe(true);
    expect(scripts('bun install --frozen-lockfile', { trustedDependencies: [] }).value).toBe(true);
  });
});

describe('a .NET build restoring NuGet packages', () => {
  // lauchacarro/LatinoNETOnline-MCP: `dotnet restore` then `dotnet publish`, no packages.lock.json.
  const dockerfile = (restore: string) =>
    [
      'FROM mcr.microsoft.com/dotnet/sdk:9.0 AS build',
      'WORKDIR /src',
      'COPY Server.csproj .',
      `RUN ${restore}`,
      'COPY . .',
      'RUN dotnet publish Server.csproj -c Release -o /app/publish --no-restore',
      'FROM mcr.microsoft.com/dotnet/aspnet:9.0',
      'COPY --from=build /app/publish .',
      'ENTRYPOINT ["dotnet", "Server.dll"]',
      '',
    ].join('\n');
  const csproj =
    '<Project Sdk="Microsoft.NET.Sdk.Web"><ItemGroup><PackageReference Include="ModelContextProtocol.AspNetCore" Version="0.3.0-preview.1" /></ItemGroup></Project>\n';
  const image = (files: Record<string, string>) => deploymentOf(collectWith(inline({ 'Server.csproj': csproj, ...files })), 'Dockerfile');

  it('is not held to a lockfile, and runs its packages’ build code; without one, NuGet takes the lowest versions: open', () => {
    const d = image({ Dockerfile: dockerfile('dotnet restore Server.csproj') });
    expect(fact(d, 'supply_chain.lockfile_enforced')).toBe(false);
    expect(fact(d, 'supply_chain.install_scripts_disabled')).toBe(false);
    expect(d.sources['supply_chain.install_scripts_disabled']![0]!.why).toBe(
      "dotnet restore Server.csproj: the build imports its packages' MSBuild props and targets, code of the dependencies",
    );
    expect(fact(d, 'supply_chain.deployed_release')).toBeUndefined();
    expect(d.reasons['supply_chain.deployed_release']).toMatch(
      /^dotnet restore Server.csproj resolves the lowest version each package reference allows/,
    );
  });

  it('in locked mode it installs the committed lockfile exactly', () => {
    const d = image({
      Dockerfile: dockerfile('dotnet restore Server.csproj --locked-mode').replace(
        'COPY Server.csproj .',
        'COPY Server.csproj packages.lock.json ./',
      ),
      'packages.lock.json': '{ "version": 1, "dependencies": {} }\n',
    });
    expect(fact(d, 'supply_chain.lockfile_enforced')).toBe(true);
    expect(fact(d, 'supply_chain.deployed_release')).toBe('locked');
  });
});

describe("Yarn Berry's .yarnrc.yml", () => {
  it('with enableScripts: false, copied in before the install, runs no dependency scripts', () => {
    // meloncafe/chromadb-remote-mcp: `COPY package.json yarn.lock .yarnrc.yml* ./`, then `yarn install --immutable`.
    const files = (yarnrc: string) => ({
      Dockerfile:
        'FROM node:22-slim\nWORKDIR /app\nCOPY package.json yarn.lock .yarnrc.yml* ./\nRUN corepack enable && yarn install --immutable\nCOPY . .\nUSER node\nCMD ["node", "dist/index.js"]\n',
      'package.json': JSON.stringify({
        name: 'chroma-mcp',
        packageManager: 'yarn@4.5.0',
        dependencies: { '@modelcontextprotocol/sdk': '1.20.0' },
      }),
      'yarn.lock': '__metadata:\n  version: 8\n',
      '.yarnrc.yml': yarnrc,
    });
    const scripts = (yarnrc: string) =>
      fact(deploymentOf(collectWith(inline(files(yarnrc))), 'Dockerfile'), 'supply_chain.install_scripts_disabled');
    expect(scripts('nodeLinker: node-modules\nenableScripts: false\n')).toBe(true);
    expect(scripts('nodeLinker: node-modules\n')).toBe(false);
  });
});

describe('bun install with a committed bun.lock', () => {
  it('keeps its versions while package.json matches them, as npm install does; --frozen-lockfile holds it', () => {
    // kailashAppDev/graphql-mcp-toolkit's Dockerfile:11,14: `COPY package.json bun.lockb ./`, `RUN bun install`.
    const d = (install: string) =>
      deploymentOf(
        collectWith(
          inline({
            Dockerfile: `FROM oven/bun:1.2.0\nCOPY package.json bun.lockb ./\nRUN ${install}\nUSER bun\nCMD ["bun", "run", "src/index.ts"]\n`,
            'package.json': JSON.stringify({ name: 'gql-mcp', dependencies: { '@modelcontextprotocol/sdk': '1.20.0' } }),
            'bun.lockb': 'lockfile',
          }),
        ),
        'Dockerfile',
      );
    const plain = d('bun install');
    expect(fact(plain, 'supply_chain.deployed_release')).toBeUndefined();
    expect(plain.reasons['supply_chain.deployed_release']).toMatch(/bun install --frozen-lockfile makes that an error/);
    expect(fact(plain, 'supply_chain.lockfile_enforced')).toBe(false);
    const frozen = d('bun install --frozen-lockfile');
    expect([fact(frozen, 'supply_chain.deployed_release'), fact(frozen, 'supply_chain.lockfile_enforced')]).toEqual(['locked', true]);
  });
});

describe("npm's .npmrc", () => {
  it('with ignore-scripts=true, copied in before the install, runs no dependency scripts', () => {
    // docker/hub-mcp: `.npmrc:1 ignore-scripts=true`, copied beside package.json before `npm ci`.
    const scripts = (npmrc: string, copy = 'COPY package*.json .npmrc ./') =>
      fact(
        deploymentOf(
          collectWith(
            inline({
              Dockerfile: `FROM node:22-slim\nWORKDIR /app\n${copy}\nRUN npm ci\nCOPY . .\nUSER node\nCMD ["node", "dist/index.js"]\n`,
              'package.json': JSON.stringify({ name: 'hub-mcp', dependencies: { '@modelcontextprotocol/sdk': '1.20.0' } }),
              'package-lock.json': '{"lockfileVersion":3}',
              '.npmrc': npmrc,
              'packages/ui/.npmrc': 'ignore-scripts=true\n',
              'packages/ui/package.json': JSON.stringify({ name: 'ui', dependencies: { '@modelcontextprotocol/sdk': '1.20.0' } }),
            }),
          ),
          'Dockerfile',
        ),
        'supply_chain.install_scripts_disabled',
      );
    expect(scripts('ignore-scripts=true\n')).toBe(true);
    expect(scripts('fund=false\n')).toBe(false);
    // Copied only after the install: the install ran with scripts.
    expect(scripts('ignore-scripts=true\n', 'COPY package*.json ./')).toBe(false);
    // A workspace package's own .npmrc is not the install's.
    expect(scripts('fund=false\n', 'COPY package*.json ./\nCOPY packages/ui/.npmrc packages/ui/')).toBe(false);
    // Beside the package.json the build copies, it is the install's (`COPY server/package.json server/.npmrc ./`).
    expect(scripts('fund=false\n', 'COPY packages/ui/package.json packages/ui/.npmrc ./')).toBe(true);
  });
});

describe('cargo install of a build tool', () => {
  // nicholaswilde/syncthing-mcp-rs: `cargo install --locked cargo-chef`, then `cargo build --release` without --locked.
  const image = (tool: string, build = 'cargo build --release --locked') =>
    deploymentOf(
      collectWith(
        inline({
          Dockerfile: `FROM rust:1.91-slim AS chef\nRUN ${tool}\nWORKDIR /app\nCOPY . .\nRUN ${build}\nFROM debian:trixie-slim\nCOPY --from=chef /app/target/release/srv /srv\nENTRYPOINT ["/srv"]\n`,
          'Cargo.toml': '[package]\nname = "srv"\n\n[dependencies]\nrmcp = "0.8"\n',
          'Cargo.lock': '# lock\n',
        }),
      ),
      'Dockerfile',
    );

  it("is the build's tooling, never the project's missing lockfile: the server's own build decides", () => {
    const unpinned = image('cargo install --locked cargo-chef');
    expect(fact(unpinned, 'supply_chain.deployed_release')).toBe('locked');
    expect(unpinned.sources['supply_chain.deployed_release']![0]).toMatchObject({ line: 5 });
    const pinned = image('cargo install --locked cargo-chef --version 0.1.71');
    expect(fact(pinned, 'supply_chain.lockfile_enforced')).toBe(true);
    expect(fact(pinned, 'supply_chain.deployed_release')).toBe('locked');
    expect(
      fact(image('cargo install --locked cargo-chef --version 0.1.71', 'cargo build --release'), 'supply_chain.lockfile_enforced'),
    ).toBe(false);
  });
});

describe('a requirements file that pins every package', () => {
  // redhat-ai-tools/ocm-mcp's Containerfile: `pip install --no-cache-dir -r requirements.txt`, httpx==0.28.1 and mcp==1.10.1.
  const release = (requirements: string) =>
    fact(
      deploymentOf(
        collectWith(
          inline({
            Containerfile:
              'FROM python:3.11-slim\nCOPY requirements.txt ./\nRUN pip install --no-cache-dir -r requirements.txt\nCOPY server.py ./\nCMD ["python", "server.py"]\n',
            'requirements.txt': requirements,
          }),
        ),
        'Containerfile',
      ),
      'supply_chain.deployed_release',
    );

  it('installs its top-level packages at exact versions, as when they are named ==; one range floats it', () => {
    expect(release('httpx==0.28.1\nmcp==1.10.1  # the SDK\n\n# pinned\n')).toBe('exact_version');
    expect(release('httpx==0.28.1\nmcp>=1.10\n')).toBe('floating');
    expect(release('-e .\nmcp==1.10.1\n')).toBe('floating');
  });
});
