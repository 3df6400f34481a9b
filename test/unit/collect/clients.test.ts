// biome-ignore-all lint/suspicious/noTemplateCurlyInString: VS Code input references, not JavaScript templates
// MCP client configurations: one deployment per server entry, the client's own facts on each.
import { describe, expect, it } from 'vitest';
import { wanted } from '../../../src/collect/disk.js';
import { analyseLaunch } from '../../../src/collect/launch.js';
import { collectWith, deploymentOf, fact, inline } from '../../helpers/collect.js';

describe('MCP client configurations', () => {
  it('Claude Desktop: five servers are five deployments, each with the client facts of its own entry', () => {
    const config = JSON.stringify(
      {
        mcpServers: {
          filesystem: { command: 'npx', args: ['-y', '@modelcontextprotocol/server-filesystem', '/Users/me/Desktop'] },
          github: {
            command: 'npx',
            args: ['-y', '@modelcontextprotocol/server-github@2025.4.8'],
            env: { GITHUB_PERSONAL_ACCESS_TOKEN: '<YOUR_TOKEN>' },
          },
          fetch: { command: 'uvx', args: ['mcp-server-fetch==2025.4.7'] },
          sandboxed: {
            command: 'docker',
            args: [
              'run',
              '-i',
              '--rm',
              '--read-only',
              '--network',
              'none',
              '--cap-drop',
              'ALL',
              '--user',
              '1000',
              `mcp/time@sha256:${'c'.repeat(64)}`,
            ],
          },
          remote: {
            command: 'npx',
            args: ['mcp-remote@0.1.16', 'https://mcp.example.com/sse'],
            env: { NODE_TLS_REJECT_UNAUTHORIZED: '0' },
          },
        },
      },
      null,
      2,
    );
    const c = collectWith(inline({ 'claude_desktop_config.json': config }));
    expect(c.deployments.map((d) => d.name)).toEqual([
      'client:claude_desktop_config.json:fetch',
      'client:claude_desktop_config.json:filesystem',
      'client:claude_desktop_config.json:github',
      'client:claude_desktop_config.json:remote',
      'client:claude_desktop_config.json:sandboxed',
    ]);
    for (const d of c.deployments) {
      expect(d.facts['client']).toMatchObject({ reviewed: true, launches_stdio_servers: true, config_secrets_plaintext: false });
    }
    // A documented placeholder is no secret (doctrine 1.3): said with the line that holds it.
    expect(deploymentOf(c, ':github').sources['client.config_secrets_plaintext']![0]!.why).toMatch(/placeholder/);
    expect(fact(deploymentOf(c, ':filesystem'), 'client.stdio_servers_sandboxed')).toBe(false);
    expect(fact(deploymentOf(c, ':fetch'), 'client.stdio_servers_release')).toBe('exact_version');
    expect(deploymentOf(c, ':sandboxed').undecided).toContain('client.stdio_servers_sandboxed');
    const fs = deploymentOf(c, ':filesystem');
    expect(fact(fs, 'supply_chain.deployed_release')).toBe('floating');
    // Cited at the argument that names the package, not at the `args` list.
    const pkgLine = config.split('\n').findIndex((l) => l.includes('"@modelcontextprotocol/server-filesystem"')) + 1;
    expect(fs.sources['client.stdio_servers_release']![0]).toMatchObject({ file: 'claude_desktop_config.json', line: pkgLine });
    expect(pkgLine).toBeGreaterThan(5);
    expect(fact(deploymentOf(c, ':github'), 'supply_chain.deployed_release')).toBe('exact_version');
    expect(fact(deploymentOf(c, ':fetch'), 'supply_chain.deployed_release')).toBe('exact_version');
    const s = deploymentOf(c, ':sandboxed');
    expect(s.facts['container']).toMatchObject({
      used: true,
      read_only_root_fs: true,
      capabilities_dropped: true,
      runs_as_root: false,
      image_pinned_by_digest: true,
    });
    expect(s.facts['egress']).toEqual({ network_restricted: true, cloud_metadata_credentials_reachable: false });
    expect(fact(s, 'container.docker_socket_mounted')).toBe(false);
    // `--use-api-socket` mounts the engine's socket, as a volume of it does.
    const withSocket = collectWith(
      inline({
        '.mcp.json': JSON.stringify({
          mcpServers: { gw: { command: 'docker', args: ['run', '-i', '--rm', '--use-api-socket', 'docker/mcp-gateway:v2'] } },
        }),
      }),
    ).deployments[0]!;
    expect(fact(withSocket, 'container.docker_socket_mounted')).toBe(true);
    // mcp-remote: the server is the remote one (http, its URL's TLS); the adapter is the client's program.
    const r = deploymentOf(c, ':remote');
    expect(r.facts['transport']).toEqual({ kind: 'http', legacy_sse: true });
    expect(fact(r, 'tls.enabled')).toBe(true);
    expect(r.facts['client']).toMatchObject({
      launches_stdio_servers: true,
      stdio_servers_release: 'exact_version',
      stdio_servers_vulnerable: false,
    });
    expect(fact(r, 'client.tls_verification_disabled')).toBe(true);
    expect(r.sources['client.tls_verification_disabled']![0]).toMatchObject({ file: 'claude_desktop_config.json' });
    expect(r.undecided).toContain('supply_chain.deployed_release');
  });

  it('docker run of a tag a Compose file builds runs that build', () => {
    // Alzarak/Kali-Linux-MCP: client entries `docker run -i --rm kali-mcp-server:latest`; docker-compose.yml
    // builds that tag from its Dockerfile (USER mcpuser).
    const files = (image: string) => ({
      'mcp-config.json': JSON.stringify({ mcpServers: { kali: { command: 'docker', args: ['run', '-i', '--rm', image] } } }),
      'docker-compose.yml': 'services:\n  kali-mcp-server:\n    build: .\n    image: kali-mcp-server:latest\n',
      Dockerfile:
        'FROM kalilinux/kali-rolling\nRUN pip install mcp==1.9.0\nRUN useradd -m mcpuser\nUSER mcpuser\nCMD ["python3", "server.py"]\n',
    });
    const d = deploymentOf(collectWith(inline(files('kali-mcp-server'))), 'client:mcp-config.json:kali');
    expect(fact(d, 'container.runs_as_root')).toBe(false);
    expect(d.sources['container.runs_as_root']![0]).toMatchObject({ file: 'Dockerfile', line: 4 });
    expect(fact(d, 'supply_chain.builds_server')).toBe(true);
    expect(fact(d, 'supply_chain.deployed_release')).toBe('exact_version');
    expect(fact(d, 'client.stdio_servers_release')).toBe('exact_version');
    // A registry image of another name is not that build.
    const other = deploymentOf(collectWith(inline(files('ghcr.io/acme/kali-mcp-server:latest'))), 'client:mcp-config.json:kali');
    expect(fact(other, 'container.runs_as_root')).toBeUndefined();
    // The tag as Compose fills it in, from the committed .env or the defaults (loaishar/mcp-server's
    // `${REGISTRY:-}unified-mcp-v2:${TAG:-latest}`); a variable set nowhere names no tag.
    const filled = (image: string, env?: string) =>
      fact(
        deploymentOf(
          collectWith(
            inline({
              ...files('kali-mcp-server:1.2'),
              'docker-compose.yml': `services:\n  kali-mcp-server:\n    build: .\n    image: ${image}\n`,
              ...(env ? { '.env': env } : {}),
            }),
          ),
          'client:mcp-config.json:kali',
        ),
        'container.runs_as_root',
      );
    expect([
      filled('${REGISTRY:-}kali-mcp-server:${TAG:-1.2}'),
      filled('kali-mcp-server:${TAG:-latest}', 'TAG=1.2\n'),
      filled('kali-mcp-server:${TAG}'),
    ]).toEqual([false, false, undefined]);
  });

  it('dotfiles: passwords in JDBC URLs, a broken "Bearer undefined", Zed\'s own settings, a Gemini extension\'s settings', () => {
    // msbaek/dotfiles' Goose extension: a MariaDB JDBC URL; edmundmiller/dotfiles' config/zed/settings.json.
    const plain = (args: string[]) =>
      fact(
        collectWith(
          inline({
            '.mcp.json': JSON.stringify({
              mcpServers: { db: { command: 'jbang', args: ['jdbc@quarkiverse/quarkus-mcp-servers', ...args] } },
            }),
          }),
        ).deployments[0]!,
        'client.config_secrets_plaintext',
      );
    expect(plain(['jdbc:postgresql://app:s3cr3t-Pa55@db.example.com/shop'])).toBe(true);
    expect(plain(['jdbc:mariadb://db.example.com:3306/shop?user=app&password=s3cr3t-Pa55'])).toBe(true);
    expect(plain(['jdbc:postgresql://db.example.com/shop'])).toBe(false);
    const zed = collectWith(
      inline({
        'config/zed/settings.json': JSON.stringify({
          context_servers: { remote: { url: 'https://mcp.example.com/mcp', headers: { Authorization: 'Bearer undefined' } } },
        }),
      }),
    );
    expect(zed.files.map((f) => f.kind)).toEqual(['mcp_client_config']);
    expect(fact(zed.deployments[0]!, 'client.config_secrets_plaintext')).toBe(false);
    // cfchase/text-to-image-demo's mcp-config.example.json: `"Bearer token"`, the name of what goes there.
    const header = (value: string) =>
      fact(
        collectWith(
          inline({
            '.mcp.json': JSON.stringify({
              mcpServers: { r: { url: 'https://api.example.com:8123/mcp', headers: { Authorization: value } } },
            }),
          }),
        ).deployments[0]!,
        'client.config_secrets_plaintext',
      );
    expect([header('Bearer token'), header('Bearer api_key'), header('Bearer 9f8e7d6c5b4a39281706f5e4d3c2b1a0')]).toEqual([
      false,
      false,
      true,
    ]);
    expect(wanted('settings.json', 'zed')).toBe(true);
    // PiGrieco/mcp-memory-server's config/windsurf_config.json and cursor_template.json, beside claude_config.json.
    expect(['windsurf_config.json', 'cursor_template.json', 'cline_settings.json', 'tsconfig.json'].map((n) => wanted(n))).toEqual([
      true,
      true,
      true,
      false,
    ]);
    // jmagar/synapse-rmcp's gemini-extension.json: `type: http` beside url, a bearer from `${settings.api_token}`.
    const gemini = collectWith(
      inline({
        'gemini-extension.json': JSON.stringify({
          name: 'synapse',
          version: '1.0.0',
          mcpServers: {
            synapse: { type: 'http', url: 'https://synapse.example.com/mcp', headers: { Authorization: 'Bearer ${settings.api_token}' } },
          },
        }),
      }),
    ).deployments[0]!;
    expect([fact(gemini, 'transport.legacy_sse'), fact(gemini, 'client.config_secrets_plaintext')]).toEqual([undefined, false]);
  });

  it("Hermes Agent's mcp_servers: servers by name, a command or a URL", () => {
    // edmundmiller/dotfiles' config/hermes/config.yml.
    const out = collectWith(
      inline({
        'config/hermes/config.yml': [
          'mcp_servers:',
          '  github:',
          '    command: "npx"',
          '    args: ["-y", "@modelcontextprotocol/server-github"]',
          '    env:',
          '      GITHUB_PERSONAL_ACCESS_TOKEN: "${GITHUB_TOKEN}"',
          '  linear:',
          '    url: https://mcp.linear.app/mcp',
          'platform_toolsets:',
          '  cli: [hermes-cli]',
          '',
        ].join('\n'),
      }),
    );
    expect(out.deployments.map((d) => d.name)).toEqual([
      'client:config/hermes/config.yml:github',
      'client:config/hermes/config.yml:linear',
    ]);
    expect(fact(deploymentOf(out, ':github'), 'supply_chain.deployed_release')).toBe('floating');
    expect(fact(deploymentOf(out, ':github'), 'client.config_secrets_plaintext')).toBe(false);
    expect(fact(deploymentOf(out, ':linear'), 'transport.kind')).toBe('http');
  });

  it("MCPorter's baseUrl is the remote server's URL", () => {
    // jmagar/swag-mcp's config/mcporter.json.
    const d = collectWith(
      inline({ 'config/mcporter.json': JSON.stringify({ mcpServers: { 'swag-mcp': { baseUrl: 'http://localhost:8012' } } }) }),
    ).deployments[0]!;
    expect([d.name, fact(d, 'transport.kind'), fact(d, 'tls.enabled')]).toEqual(['client:config/mcporter.json:swag-mcp', 'http', false]);
  });

  it('mcp-remote installed on the machine, or given its URL by a reference, is still an adapter; npx.cmd is npx', () => {
    // jmagar/swag-mcp's .mcp.json: `"command": "mcp-remote", "args": ["${SWAG_MCP_URL}"]`.
    const out = collectWith(
      inline({
        '.mcp.json': JSON.stringify({
          mcpServers: {
            bare: { command: 'mcp-remote', args: ['https://mcp.example.com/mcp'] },
            ref: { command: 'mcp-remote', args: ['${SWAG_MCP_URL}'] },
            npx: { command: 'npx', args: ['-y', 'mcp-remote', '${SWAG_MCP_URL}'] },
            shim: { command: 'npx.cmd', args: ['-y', '@upstash/context7-mcp@1.0.14'] },
            // Skyvern-AI/skyvern's MCP Bundle runs the mcp-remote it bundles with node.
            bundled: { command: 'node', args: ['${__dirname}/node_modules/mcp-remote/dist/proxy.js', 'https://api.skyvern.com/mcp/'] },
          },
        }),
      }),
    );
    expect(fact(deploymentOf(out, ':bare'), 'transport.kind')).toBe('http');
    expect(fact(deploymentOf(out, ':bare'), 'tls.enabled')).toBe(true);
    expect([fact(deploymentOf(out, ':bundled'), 'transport.kind'), fact(deploymentOf(out, ':bundled'), 'tls.enabled')]).toEqual([
      'http',
      true,
    ]);
    for (const name of [':ref', ':npx']) {
      expect(fact(deploymentOf(out, name), 'transport.kind'), name).toBe('http');
      expect(fact(deploymentOf(out, name), 'tls.enabled'), name).toBeUndefined();
    }
    const shim = deploymentOf(out, ':shim');
    expect([fact(shim, 'client.stdio_servers_sandboxed'), fact(shim, 'client.stdio_servers_release')]).toEqual([false, 'exact_version']);
  });

  it('VS Code .vscode/mcp.json (JSONC): a secret through ${input:...} is a reference, a literal header is plaintext', () => {
    const jsonc = [
      '{',
      '  // Inputs are asked for once and stored by VS Code',
      '  "inputs": [{ "type": "promptString", "id": "gh-token", "description": "GitHub PAT", "password": true }],',
      '  "servers": {',
      '    "github": {',
      '      "type": "http",',
      '      "url": "https://api.githubcopilot.com/mcp/",',
      '      "headers": { "Authorization": "Bearer ${input:gh-token}" },',
      '    },',
      '    "local": { "type": "http", "url": "http://localhost:3001/mcp", "headers": { "X-API-Key": "abcd1234efgh5678" } },',
      '  },',
      '}',
    ].join('\n');
    const c = collectWith(inline({ '.vscode/mcp.json': jsonc }));
    const gh = deploymentOf(c, ':github');
    expect(gh.facts['transport']).toEqual({ kind: 'http' });
    expect(fact(gh, 'tls.enabled')).toBe(true);
    expect(fact(gh, 'client.launches_stdio_servers')).toBe(false);
    expect(fact(gh, 'client.config_secrets_plaintext')).toBe(false);
    const local = deploymentOf(c, ':local');
    expect(fact(local, 'client.config_secrets_plaintext')).toBe(true);
    expect(local.sources['client.config_secrets_plaintext']![0]).toMatchObject({ file: '.vscode/mcp.json', line: 10 });
    // This client connects on loopback; where the server listens is in how it is started.
    expect(local.facts['exposure']).toBeUndefined();
    expect(local.reasons['exposure.reachable_from_internet']).toMatch(
      /^this client connects to localhost; whether the server listens there only/,
    );
    expect(fact(local, 'tls.enabled')).toBe(false);
  });

  it('Claude Code .mcp.json with env references, Cursor, and Codex config.toml', () => {
    const c = collectWith(
      inline({
        '.mcp.json': JSON.stringify({
          mcpServers: {
            db: {
              type: 'stdio',
              command: 'npx',
              args: ['-y', '@bytebase/dbhub@0.11.2'],
              env: { DSN: '${DATABASE_URL}', API_TOKEN: '${API_TOKEN}' },
            },
          },
        }),
        '.cursor/mcp.json': JSON.stringify({ mcpServers: { linear: { url: 'https://mcp.linear.app/sse' } } }),
        '.codex/config.toml': [
          '[mcp_servers.docs]',
          'command = "uvx"',
          'args = ["docs-mcp"]',
          '',
          '[mcp_servers.docs.env]',
          'DOCS_API_KEY = "sk-abcdefghijklmnop1234"',
        ].join('\n'),
      }),
    );
    const db = deploymentOf(c, '.mcp.json:db');
    expect(fact(db, 'client.config_secrets_plaintext')).toBe(false);
    expect(fact(db, 'client.stdio_servers_release')).toBe('exact_version');
    const linear = deploymentOf(c, ':linear');
    expect(fact(linear, 'transport.legacy_sse')).toBe(true);
    const docs = deploymentOf(c, ':docs');
    expect(fact(docs, 'supply_chain.deployed_release')).toBe('floating');
    expect(fact(docs, 'client.config_secrets_plaintext')).toBe(true);
    expect(docs.sources['client.config_secrets_plaintext']![0]).toMatchObject({ file: '.codex/config.toml', line: 6 });
  });
});

describe('what a client starts: uvx versions and entries switched off', () => {
  // awslabs/mcp src/aurora-dsql-mcp-server/kiro_power/mcp.json (commit 100b55b6), as written.
  const kiro = JSON.stringify(
    {
      mcpServers: {
        'aurora-dsql': { args: ['awslabs.aurora-dsql-mcp-server@latest'], command: 'uvx', env: { FASTMCP_LOG_LEVEL: 'ERROR' } },
        'aws-core': { args: ['awslabs.core-mcp-server@latest'], command: 'uvx', disabled: true, env: { FASTMCP_LOG_LEVEL: 'ERROR' } },
      },
    },
    null,
    2,
  );

  it('uvx pkg@latest floats; an entry with "disabled": true is no deployment, and a note says so', () => {
    const c = collectWith(inline({ 'kiro_power/mcp.json': kiro }));
    expect(c.deployments.map((d) => d.name)).toEqual(['client:kiro_power/mcp.json:aurora-dsql']);
    const d = c.deployments[0]!;
    expect(fact(d, 'supply_chain.deployed_release')).toBe('floating');
    expect(fact(d, 'client.stdio_servers_release')).toBe('floating');
    expect(d.sources['supply_chain.deployed_release']![0]!.why).toBe(
      'uvx awslabs.aurora-dsql-mcp-server@latest: no exact version, whatever is newest at launch',
    );
    expect(c.notes).toContainEqual({
      file: 'kiro_power/mcp.json',
      what: 'server entry "aws-core" is switched off ("disabled": true): the client does not start it',
    });
    // Named with --server, a switched-off entry is read all the same.
    expect(collectWith(inline({ 'kiro_power/mcp.json': kiro }), { servers: ['aws-core'] }).deployments.map((x) => x.name)).toEqual([
      'client:kiro_power/mcp.json:aws-core',
    ]);
  });

  it("uvx's --with adds a dependency: the server is the package after it", () => {
    // av/harbor's services/mcpo/configs/mcpo.mcp-server-time.json: `--with mcp<2 mcp-server-time`.
    const release = (args: string[]) =>
      fact(
        collectWith(inline({ '.mcp.json': JSON.stringify({ mcpServers: { t: { command: 'uvx', args } } }) })).deployments[0]!,
        'supply_chain.deployed_release',
      );
    expect(release(['--with', 'mcp<2', 'mcp-server-time==2025.1.1'])).toBe('exact_version');
    expect(release(['--python', '3.12', '--with', 'mcp<2', 'mcp-server-time'])).toBe('floating');
  });

  it('Claude Code\'s .mcp.json: "disabled": true is no key Claude documents, so the entry is reviewed', () => {
    // Chisanan232/ai-development-config's claude-code-config/.mcp.json; anthropics/claude-code#33958 and #32119.
    for (const path of ['claude-code-config/.mcp.json', 'claude_desktop_config.json']) {
      const c = collectWith(inline({ [path]: kiro }));
      expect(c.deployments.map((d) => d.name)).toEqual([`client:${path}:aurora-dsql`, `client:${path}:aws-core`]);
      expect(c.notes).toContainEqual({
        file: path,
        what: 'server entry "aws-core" says "disabled": true, a key Claude\'s clients do not document (Claude Code turns servers off in its settings or /mcp): reviewed as one it starts',
      });
    }
  });

  it('Codex: enabled = false switches an entry off', () => {
    const toml = ['[mcp_servers.fetch]', 'command = "uvx"', 'args = ["mcp-server-fetch==2025.4.7"]', 'enabled = false', ''].join('\n');
    const c = collectWith(inline({ '.codex/config.toml': toml }));
    expect(c.deployments).toEqual([]);
    expect(c.notes).toContainEqual({
      file: '.codex/config.toml',
      what: 'server entry "fetch" is switched off (enabled = false): the client does not start it',
    });
  });

  it.each([
    ['mcp-server-fetch==2025.4.7', 'exact_version'],
    ['ruff@0.6.0', 'exact_version'],
    ['pkg==1!2.0', 'exact_version'],
    ['ruff@latest', 'floating'],
    ['ruff==0.6.*', 'floating'],
    ['ruff>=0.6', 'floating'],
    ['ruff', 'floating'],
  ])('uvx %s is %s', (spec, release) => {
    expect(analyseLaunch('uvx', [spec]).release).toBe(release);
  });

  // 0xTanzim/nextRush's .vscode/mcp.json, as VS Code's MCP gallery writes it: `--registry URL pkg@version`.
  it.each([
    [['--registry', 'https://registry.npmjs.org', 'chrome-devtools-mcp@0.18.1'], 'chrome-devtools-mcp@0.18.1', 'exact_version'],
    [['-y', '--registry=https://registry.npmjs.org', 'chrome-devtools-mcp'], 'chrome-devtools-mcp', 'floating'],
    [['--yes', '--package', 'pkg@1.2.3', 'pkg-bin'], 'pkg@1.2.3', 'exact_version'],
    [['--bun', 'pkg@1.2.3'], 'pkg@1.2.3', 'exact_version'],
    [['-c', 'pkg serve'], null, null],
    // growthspace-engineering/gs-mcp-proxy-pii-redactor's .cursor/mcp.json: after the command, `-p` is the command's option.
    [['-y', '@mizchi/lsmcp', '-p', 'typescript'], '@mizchi/lsmcp', 'floating'],
    [['-p', '@mizchi/lsmcp@0.10.0', 'lsmcp', '-p', 'typescript'], '@mizchi/lsmcp@0.10.0', 'exact_version'],
    // ...and a TypeScript runner on the project's own file, its options first: a local program.
    [['-y', 'ts-node', '--require', 'tsconfig-paths/register', 'src/main.ts', '--config', './.cursor/config.json'], null, null],
    [['-y', 'ts-node', '--version'], 'ts-node', 'floating'],
  ])('npx %j runs %s', (args, target, release) => {
    const l = analyseLaunch('npx', args);
    expect(l.target).toBe(target);
    expect(l.release).toBe(release);
  });

  // Deno fetches npm: and jsr: packages as npx does (fredrikaverpil/dotfiles' Copilot and Gemini settings).
  it.each([
    [['run', '-A', 'npm:@playwright/mcp@latest'], 'npm:@playwright/mcp@latest', 'floating'],
    [['run', '-A', 'npm:@upstash/context7-mcp@1.0.14'], 'npm:@upstash/context7-mcp@1.0.14', 'exact_version'],
    [['run', '-A', 'server.ts'], null, null],
  ])('deno %j runs %s', (args, target, release) => {
    const l = analyseLaunch('deno', args);
    expect([l.target, l.release]).toEqual([target, release]);
  });

  // Windows' `cmd /c`: what follows, as words or as one command line (taewook486/real-estate-mcp's .mcp.json).
  it.each([
    [['/c', 'npx', '-y', '@upstash/context7-mcp@latest'], '@upstash/context7-mcp@latest', 'floating'],
    [['/c', 'npx -y @upstash/context7-mcp@latest'], '@upstash/context7-mcp@latest', 'floating'],
    [['/C', 'npx -y "@scope/pkg@1.2.3"'], '@scope/pkg@1.2.3', 'exact_version'],
  ])('cmd %j runs %s', (args, target, release) => {
    const l = analyseLaunch('cmd.exe', args);
    expect([l.target, l.release]).toEqual([target, release]);
  });

  // A shell's `-c` script: its last command (derekslenk/airis-mcp-gateway's `bash -c "npx -y @stripe/mcp --tools=all"`).
  it.each([
    ['bash', ['-c', 'npx -y @stripe/mcp --tools=all'], '@stripe/mcp', 'floating'],
    ['sh', ['-c', 'source ~/.env && exec uvx mcp-server-fetch==2025.4.7'], 'mcp-server-fetch==2025.4.7', 'exact_version'],
    ['/bin/zsh', ['-lc', 'npx -y @scope/pkg@1.2.3'], '@scope/pkg@1.2.3', 'exact_version'],
  ])('%s %j runs %s', (command, args, target, release) => {
    const l = analyseLaunch(command, args);
    expect([l.target, l.release]).toEqual([target, release]);
  });

  // .NET 10's dnx, as NuGet's MCP server README configures it: `dnx NuGet.Mcp.Server@1.1.29 --yes`.
  it.each([
    ['dnx', ['NuGet.Mcp.Server@1.1.29', '--yes'], 'NuGet.Mcp.Server@1.1.29', 'exact_version'],
    ['dnx', ['--yes', 'NuGet.Mcp.Server', '--version', '1.1.29-preview.1'], 'NuGet.Mcp.Server', 'exact_version'],
    ['dnx', ['NuGet.Mcp.Server', '--yes'], 'NuGet.Mcp.Server', 'floating'],
    ['dotnet', ['tool', 'exec', 'NuGet.Mcp.Server@1.*'], 'NuGet.Mcp.Server@1.*', 'floating'],
  ])('%s %j fetches %s: %s', (command, args, target, release) => {
    const l = analyseLaunch(command, args);
    expect([l.target, l.release]).toEqual([target, release]);
  });

  // motherduckdb/mcp-server-motherduck's manifest.json: uv run --with mcp-server-motherduck mcp-server-motherduck.
  it.each([
    [['run', '--with', 'mcp-server-motherduck', 'mcp-server-motherduck'], 'floating'],
    [['run', '--with=mcp-server-motherduck==1.0.4', 'mcp-server-motherduck', '--db-path', ':memory:'], 'exact_version'],
    [['run', '--python', '3.12', '--with', 'mcp_server_time', 'mcp-server-time'], 'floating'],
    [['run', '--with', 'httpx', 'server.py'], null],
    [['run', '--directory', '/opt/server', 'server'], null],
    // 1mb4dr/mcp-forti's .vscode/mcp.json: the SDK's CLI runs the server, a local script.
    [['run', '--with', 'mcp', 'mcp', 'run', '/home/badr/Desktop/mcp_server_fortigate/mcp-forti/main.py'], null],
    [['run', '--with', 'mcp[cli]', 'mcp', 'dev', 'server.py'], null],
    // diffblue's: FastMCP's CLI runs a local script just so.
    [['run', '--with', 'fastmcp', 'fastmcp', 'run', 'main.py'], null],
  ])('uv %j runs a package it installs, or a local program', (args, release) => {
    expect(analyseLaunch('uv', args).release).toBe(release);
  });
});

describe('a URL built from references', () => {
  it('decides TLS and the transport from what is written, and leaves the host open', () => {
    // 0GiS0/home-assistant-mcp .vscode/mcp.json (commit 8de64591), as written.
    const vscode = [
      '{',
      '    "inputs": [',
      '        { "id": "home-assistant-domain", "description": "Home Assistant Domain", "type": "promptString", },',
      '        { "id": "home-assistant-token", "description": "Home Assistant Long-Lived Access Token", "type": "promptString", "password": true }',
      '    ],',
      '    "servers": {',
      '        "home-assistant-mcp": {',
      '            "type": "http",',
      '            "url": "https://${input:home-assistant-domain}/mcp_server/sse",',
      '            "headers": { "Authorization": "Bearer ${input:home-assistant-token}", }',
      '        }',
      '    }',
      '}',
    ].join('\n');
    const d = collectWith(inline({ '.vscode/mcp.json': vscode })).deployments[0]!;
    expect(fact(d, 'tls.enabled')).toBe(true);
    expect(d.sources['tls.enabled']).toEqual([{ file: '.vscode/mcp.json', line: 9, why: 'https:// URL' }]);
    expect(fact(d, 'transport.legacy_sse')).toBe(true);
    expect(fact(d, 'exposure.endpoint_address_class')).toBeUndefined();
    expect(d.undecided).toContain('exposure.endpoint_address_class');
    expect(fact(d, 'client.config_secrets_plaintext')).toBe(false);
  });
});

describe("editors' and agents' settings.json that hold MCP servers", () => {
  // Zed (`context_servers`, with its older object-form command), VS Code's `mcp.servers` in workspace
  // settings, and Gemini CLI (`httpUrl` is streamable HTTP, `url` its SSE transport).
  const zed = [
    '// Zed settings',
    '{',
    '  "theme": "One Dark",',
    '  "context_servers": {',
    '    "github": {',
    '      "source": "custom",',
    '      "command": "npx",',
    '      "args": ["-y", "@modelcontextprotocol/server-github"],',
    '      "env": { "GITHUB_PERSONAL_ACCESS_TOKEN": "ghp_plaintext123" }',
    '    },',
    '    "time": { "command": { "path": "uvx", "args": ["mcp-server-time==2025.8.4"], "env": {} }, "settings": {} }',
    '  }',
    '}',
  ].join('\n');
  const vscode =
    '{\n  "editor.tabSize": 2,\n  "mcp": {\n    "servers": {\n      "fetch": { "command": "uvx", "args": ["mcp-server-fetch==2025.4.7"] }\n    }\n  }\n}\n';
  const gemini = JSON.stringify(
    {
      theme: 'Default',
      mcpServers: {
        streamable: { httpUrl: 'https://mcp.example.com/mcp', headers: { Authorization: 'Bearer $API_TOKEN' } },
        // 0xc1x/fudi's .gemini/settings.json trusts its servers: no tool call is confirmed.
        sse: { url: 'https://mcp.example.com/events', trust: true },
      },
    },
    null,
    2,
  );
  const out = collectWith(inline({ '.zed/settings.json': zed, '.vscode/settings.json': vscode, '.gemini/settings.json': gemini }));

  it('are client configurations, one deployment per entry', () => {
    expect(out.files.map((f) => f.kind)).toEqual(['mcp_client_config', 'mcp_client_config', 'mcp_client_config']);
    expect(out.deployments.map((d) => d.name)).toEqual([
      'client:.gemini/settings.json:sse',
      'client:.gemini/settings.json:streamable',
      'client:.vscode/settings.json:fetch',
      'client:.zed/settings.json:github',
      'client:.zed/settings.json:time',
    ]);
  });

  it('Zed: a plaintext token in the entry; the older command object read as command, args and env', () => {
    expect(fact(deploymentOf(out, 'zed/settings.json:github'), 'client.config_secrets_plaintext')).toBe(true);
    const time = deploymentOf(out, 'zed/settings.json:time');
    expect(fact(time, 'transport.kind')).toBe('stdio');
    expect(fact(time, 'client.stdio_servers_release')).toBe('exact_version');
  });

  it('Gemini CLI: httpUrl is streamable HTTP at its line; url is the SSE transport', () => {
    const trusted = deploymentOf(out, 'gemini/settings.json:sse');
    expect(fact(trusted, 'client.destructive_calls_confirmed')).toBe(false);
    expect(trusted.sources['client.destructive_calls_confirmed']![0]).toMatchObject({
      file: '.gemini/settings.json',
      why: 'trust: true: Gemini CLI runs every tool of this server without asking for confirmation',
    });
    expect(fact(deploymentOf(out, 'gemini/settings.json:streamable'), 'client.destructive_calls_confirmed')).toBeUndefined();
    const streamable = deploymentOf(out, 'gemini/settings.json:streamable');
    expect(fact(streamable, 'transport.kind')).toBe('http');
    expect(streamable.sources['tls.enabled']![0]).toMatchObject({ line: 5 });
    expect(fact(streamable, 'transport.legacy_sse')).toBeUndefined();
    expect(fact(streamable, 'client.config_secrets_plaintext')).toBe(false);
    const sse = deploymentOf(out, 'gemini/settings.json:sse');
    expect(sse.sources['transport.legacy_sse']![0]!.why).toBe("Gemini CLI's url is its SSE transport (httpUrl is streamable HTTP)");
  });
});

describe("Claude Code's ~/.claude.json", () => {
  // User-scoped servers at the top; local-scoped ones (claude mcp add --scope local) under each project's path.
  const config = JSON.stringify(
    {
      numStartups: 12,
      mcpServers: { sentry: { type: 'http', url: 'https://mcp.sentry.dev/mcp' } },
      projects: {
        '/Users/me/shop': {
          allowedTools: [],
          mcpServers: {
            db: { type: 'stdio', command: 'npx', args: ['-y', '@bytebase/dbhub', '--dsn', 'postgres://app:hunter22@localhost/shop'] },
          },
        },
        '/Users/me/empty': { mcpServers: {} },
      },
    },
    null,
    2,
  );

  it('is one deployment per server, the local ones named by their project', () => {
    const out = collectWith(inline({ '.claude.json': config }));
    expect(out.files.map((f) => f.kind)).toEqual(['mcp_client_config']);
    expect(out.deployments.map((d) => d.name)).toEqual(['client:.claude.json:/Users/me/shop:db', 'client:.claude.json:sentry']);
    const db = deploymentOf(out, ':db');
    expect(fact(db, 'transport.kind')).toBe('stdio');
    expect(fact(db, 'client.stdio_servers_release')).toBe('floating');
    // The DSN's password is written in the entry.
    expect(fact(db, 'client.config_secrets_plaintext')).toBe(true);
    expect(db.sources['client.config_secrets_plaintext']![0]!.why).toBe(
      'argument (a URL with a password) URL_PASSWORD holds a literal value',
    );
    expect(db.sources['transport.kind']![0]).toMatchObject({
      line: config.split('\n').findIndex((l) => l.includes('"command": "npx"')) + 1,
    });
  });
});

describe('a password inside a connection URL', () => {
  const entry = (spec: Record<string, unknown>) =>
    collectWith(
      inline({
        '.mcp.json': JSON.stringify({
          mcpServers: { pg: { command: 'npx', args: ['-y', '@modelcontextprotocol/server-postgres@0.6.2'], ...spec } },
        }),
      }),
    ).deployments[0]!;

  it('is a plaintext secret in an argument or a variable; a reference or no password is not', () => {
    expect(
      fact(entry({ args: ['-y', 'pkg@1.0.0', 'postgresql://app:s3cret@db.internal:5432/shop'] }), 'client.config_secrets_plaintext'),
    ).toBe(true);
    expect(fact(entry({ env: { DATABASE_URL: 'postgres://app:s3cret@db/shop' } }), 'client.config_secrets_plaintext')).toBe(true);
    expect(fact(entry({ env: { DSN: 'postgres://app:${env:PGPASSWORD}@db/shop' } }), 'client.config_secrets_plaintext')).toBe(false);
    expect(fact(entry({ args: ['-y', 'pkg@1.0.0', 'postgresql://localhost/shop'] }), 'client.config_secrets_plaintext')).toBe(false);
  });
});

describe("Continue's YAML: a list of MCP servers", () => {
  // docs.continue.dev's block format, kept in a project's .continue/mcpServers/.
  const block = [
    'name: Project MCP servers',
    'version: 0.0.1',
    'schema: v1',
    'mcpServers:',
    '  - name: SQLite MCP',
    '    command: npx',
    '    args:',
    '      - "-y"',
    '      - "mcp-sqlite@1.0.7"',
    '      - "/path/to/your/database.db"',
    '  - name: Remote',
    '    type: sse',
    '    url: https://mcp.example.com/sse',
    '    requestOptions:',
    '      headers:',
    '        Authorization: Bearer ${{ secrets.MCP_TOKEN }}',
  ].join('\n');

  it('is a client configuration whose entries carry their own names, each at its own line', () => {
    const out = collectWith(inline({ '.continue/mcpServers/servers.yaml': block }));
    expect(out.files.map((f) => f.kind)).toEqual(['mcp_client_config']);
    expect(out.deployments.map((d) => d.name)).toEqual([
      'client:.continue/mcpServers/servers.yaml:Remote',
      'client:.continue/mcpServers/servers.yaml:SQLite MCP',
    ]);
    const sqlite = deploymentOf(out, ':SQLite MCP');
    expect(fact(sqlite, 'client.stdio_servers_release')).toBe('exact_version');
    expect(sqlite.sources['transport.kind']![0]).toMatchObject({ line: 6 });
    const remote = deploymentOf(out, ':Remote');
    expect(fact(remote, 'transport.legacy_sse')).toBe(true);
    expect(remote.sources['transport.legacy_sse']![0]).toMatchObject({ line: 13 });
    // Continue's ${{ secrets.X }} is a reference to a secret kept elsewhere.
    expect(fact(remote, 'client.config_secrets_plaintext')).toBe(false);
    const literal = collectWith(inline({ '.continue/config.yaml': block.replace('${{ secrets.MCP_TOKEN }}', 'sk-live-0123456789abcdef') }));
    expect(fact(deploymentOf(literal, ':Remote'), 'client.config_secrets_plaintext')).toBe(true);
  });
});

describe("Goose's config.yaml: extensions that are MCP servers", () => {
  // block.github.io/goose's configuration: builtin extensions are Goose's own code, the others MCP servers.
  const config = [
    'GOOSE_PROVIDER: anthropic',
    'extensions:',
    '  developer:',
    '    enabled: true',
    '    name: developer',
    '    type: builtin',
    '  github:',
    '    name: GitHub',
    '    cmd: npx',
    '    args: [-y, "@modelcontextprotocol/server-github@2025.4.8"]',
    '    enabled: true',
    '    envs: { GITHUB_PERSONAL_ACCESS_TOKEN: ghp_0123456789abcdefghij0123456789 }',
    '    type: stdio',
    '    timeout: 300',
    '  remote:',
    '    enabled: true',
    '    type: streamable_http',
    '    uri: http://10.0.0.5:8080/mcp',
    '  old:',
    '    enabled: false',
    '    type: sse',
    '    uri: https://mcp.example.com/sse',
  ].join('\n');

  it('one deployment per enabled MCP extension, read with its own field names', () => {
    const out = collectWith(inline({ '.config/goose/config.yaml': config }));
    expect(out.files.map((f) => f.kind)).toEqual(['mcp_client_config']);
    expect(out.deployments.map((d) => d.name)).toEqual([
      'client:.config/goose/config.yaml:github',
      'client:.config/goose/config.yaml:remote',
    ]);
    const github = deploymentOf(out, ':github');
    expect(fact(github, 'client.stdio_servers_release')).toBe('exact_version');
    expect(fact(github, 'client.config_secrets_plaintext')).toBe(true);
    expect(github.sources['client.config_secrets_plaintext']![0]).toMatchObject({ line: 12 });
    const remote = deploymentOf(out, ':remote');
    expect(fact(remote, 'tls.enabled')).toBe(false);
    expect(fact(remote, 'exposure.endpoint_address_class')).toBe('private');
    expect(remote.sources['tls.enabled']![0]).toMatchObject({ line: 18 });
    expect(out.notes).toContainEqual({
      file: '.config/goose/config.yaml',
      what: 'server entry "old" is switched off (enabled = false): the client does not start it',
    });
  });

  it("a recipe's extensions are a list, each named by its name", () => {
    // envoyproxy/ai-gateway's examples/goose/kiwi_recipe.yaml.
    const recipe = [
      'version: 1.0.0',
      'title: Flight Search Assistant',
      'prompt: |',
      '  Use the search-flight tool.',
      'extensions:',
      '  - name: mcp_gateway',
      '    type: streamable_http',
      '    uri: http://127.0.0.1:1975/mcp',
      '  - name: dev',
      '    type: builtin',
      '',
    ].join('\n');
    const out = collectWith(inline({ 'examples/goose/kiwi_recipe.yaml': recipe }));
    expect(out.deployments.map((d) => d.name)).toEqual(['client:examples/goose/kiwi_recipe.yaml:mcp_gateway']);
    const gw = out.deployments[0]!;
    expect(fact(gw, 'tls.enabled')).toBe(false);
    expect(gw.sources['tls.enabled']![0]).toMatchObject({ line: 8 });
  });
});

describe('the mcpServers format under the names projects give it', () => {
  // samanhappy/mcphub's mcp_settings.json, Gemini CLI's gemini-extension.json
  // (github/github-mcp-server), TBXark/mcp-proxy's config.json: each lists the servers a client
  // (the gateway, the CLI) launches or calls. An OpenAPI document named after MCP has `servers`
  // too, as a list, and a config.json without MCP servers is neither.
  const out = collectWith(
    inline({
      'mcp_settings.json': JSON.stringify({
        mcpServers: {
          slack: { command: 'npx', args: ['-y', '@modelcontextprotocol/server-slack'], env: { SLACK_BOT_TOKEN: 'your-bot-token' } },
        },
        users: [{ username: 'admin', password: '$2b$10$Vt7krIvjNgyN67LXqly0uOcTpN0LI55cYRbcKC71pUDAP0nJ7RPa.' }],
      }),
      'gemini-extension.json': JSON.stringify(
        {
          name: 'github',
          version: '1.0.0',
          mcpServers: {
            github: { httpUrl: 'https://api.githubcopilot.com/mcp/', headers: { Authorization: 'Bearer $GITHUB_MCP_PAT' } },
            events: { url: 'https://mcp.example.com/events' },
          },
        },
        null,
        2,
      ),
      'config.json': JSON.stringify({
        mcpProxy: { addr: ':9090' },
        mcpServers: { amap: { url: 'https://mcp.amap.com/sse?key=<YOUR_TOKEN>' } },
      }),
      'openapi/mcp-gateway.openapi.json': JSON.stringify({
        openapi: '3.0.1',
        servers: [{ url: 'https://gw.example' }],
        paths: {},
        type: 'x',
      }),
      'web/config.json': JSON.stringify({ servers: { api: { url: 'https://api.example', type: 'rest' } } }),
    }),
  );

  it('are client configurations; the OpenAPI document and an unrelated config.json are not', () => {
    expect(out.files.map((f) => [f.path, f.kind])).toEqual([
      ['config.json', 'mcp_client_config'],
      ['gemini-extension.json', 'mcp_client_config'],
      ['mcp_settings.json', 'mcp_client_config'],
      ['openapi/mcp-gateway.openapi.json', 'other'],
      ['web/config.json', 'other'],
    ]);
    expect(out.deployments.map((d) => d.name)).toEqual([
      'client:config.json:amap',
      'client:gemini-extension.json:events',
      'client:gemini-extension.json:github',
      'client:mcp_settings.json:slack',
    ]);
  });

  it("read as their client reads them: a Gemini extension's url is SSE, httpUrl streamable HTTP", () => {
    expect(fact(deploymentOf(out, 'gemini-extension.json:github'), 'transport.legacy_sse')).toBeUndefined();
    expect(fact(deploymentOf(out, 'gemini-extension.json:github'), 'client.config_secrets_plaintext')).toBe(false);
    expect(fact(deploymentOf(out, 'gemini-extension.json:events'), 'transport.legacy_sse')).toBe(true);
    expect(fact(deploymentOf(out, 'config.json:amap'), 'authentication.keys_in_query_string')).toBe(true);
    const slack = deploymentOf(out, 'mcp_settings.json:slack');
    expect(fact(slack, 'client.stdio_servers_release')).toBe('floating');
    expect(fact(slack, 'client.config_secrets_plaintext')).toBe(false);
  });
});

describe('a Claude Code or Cursor plugin: servers at the top of its (.)mcp.json, or inline in plugin.json', () => {
  // getsentry/sentry-mcp's plugins/sentry-mcp/.mcp.json and grafana/mcp-grafana's .claude-plugin/plugin.json.
  const out = collectWith(
    inline({
      'plugins/sentry/.mcp.json': '{\n  "sentry": {\n    "type": "http",\n    "url": "https://mcp.sentry.dev/mcp"\n  }\n}\n',
      '.claude-plugin/plugin.json': JSON.stringify(
        {
          name: 'grafana',
          mcpServers: { grafana: { command: 'node', args: ['${CLAUDE_PLUGIN_ROOT}/.claude-plugin/install-binary.mjs'] } },
        },
        null,
        2,
      ),
      // upstash/context7's plugins/cursor/context7/mcp.json: a Cursor plugin's servers, at the top.
      'plugins/cursor/mcp.json': '{\n  "context7": {\n    "url": "https://mcp.context7.com/mcp/oauth"\n  }\n}\n',
      'odd/.mcp.json': '{ "theme": "dark", "sentry": { "type": "http", "url": "https://mcp.sentry.dev/mcp" } }',
      'list/.mcp.json': '[{ "command": "npx" }]',
      // wonderwhy-er/DesktopCommanderMCP's plugins/cursor/.cursor-plugin/plugin.json.
      'plugins/cursor/.cursor-plugin/plugin.json': JSON.stringify({
        name: 'desktop-commander',
        mcpServers: { 'desktop-commander': { command: 'npx', args: ['-y', '@wonderwhy-er/desktop-commander@latest'] } },
      }),
      // perplexityai/modelcontextprotocol's .claude-plugin/marketplace.json: a plugin with its server inline.
      '.claude-plugin/marketplace.json': JSON.stringify({
        name: 'perplexity-mcp-server',
        plugins: [
          { name: 'elsewhere', source: { source: 'github', repo: 'acme/x' } },
          { name: 'perplexity', source: './', mcpServers: { perplexity: { command: 'npx', args: ['-y', '@perplexity-ai/mcp-server'] } } },
        ],
      }),
    }),
  );

  it('one deployment per server, each at its own line', () => {
    expect(out.deployments.map((d) => d.name)).toEqual([
      'client:.claude-plugin/marketplace.json:perplexity:perplexity',
      'client:.claude-plugin/plugin.json:grafana',
      'client:plugins/cursor/.cursor-plugin/plugin.json:desktop-commander',
      'client:plugins/cursor/mcp.json:context7',
      'client:plugins/sentry/.mcp.json:sentry',
    ]);
    expect(fact(deploymentOf(out, 'marketplace.json:perplexity:perplexity'), 'client.stdio_servers_release')).toBe('floating');
    expect([
      wanted('plugin.json', '.cursor-plugin'),
      wanted('marketplace.json', '.claude-plugin'),
      wanted('marketplace.json', 'docs'),
    ]).toEqual([true, true, false]);
    expect(deploymentOf(out, 'cursor/mcp.json:context7').sources['transport.kind']![0]).toMatchObject({ line: 3 });
    const sentry = deploymentOf(out, 'plugins/sentry/.mcp.json:sentry');
    expect(fact(sentry, 'transport.kind')).toBe('http');
    expect(sentry.sources['transport.kind']![0]).toMatchObject({ file: 'plugins/sentry/.mcp.json', line: 4 });
    expect(fact(deploymentOf(out, 'plugin.json:grafana'), 'client.launches_stdio_servers')).toBe(true);
  });

  it('a top that is not all servers is none; a file that is no JSON object is skipped with the reason', () => {
    expect(out.notes).toContainEqual({ file: 'odd/.mcp.json', what: 'an MCP client configuration with no server entries' });
    expect(out.skipped).toEqual([
      {
        path: 'list/.mcp.json',
        reason:
          'could not be read as mcp_client_config: not a JSON object: a client configuration is one, its servers under mcpServers (or servers)',
      },
    ]);
  });
});

describe("mcp-agent's and fast-agent's YAML: servers by name under mcp.servers", () => {
  // lastmile-ai/mcp-agent's examples (mcp_agent.config.yaml) and its JSON Schema beside them.
  const config = [
    '$schema: ../../schema/mcp-agent.config.schema.json',
    'execution_engine: asyncio',
    'mcp:',
    '  servers:',
    '    fetch:',
    '      command: "uvx"',
    '      args: ["mcp-server-fetch"]',
    '    events:',
    '      transport: sse',
    '      url: http://localhost:8000/sse',
    '    remote:',
    '      transport: streamable_http',
    '      url: https://mcp.example.com/mcp',
    '      headers:',
    '        Authorization: "Bearer ${MCP_TOKEN}"',
    'openai:',
    '  default_model: gpt-5',
  ].join('\n');
  const schema = JSON.stringify({
    $defs: { MCPServerSettings: { properties: { command: { type: 'string' } } } },
    properties: { mcp: { properties: { servers: { type: 'object' } } } },
    title: 'MCP Agent Configuration Schema',
    type: 'object',
    $schema: 'http://json-schema.org/draft-07/schema#',
  });
  const out = collectWith(inline({ 'mcp_agent.config.yaml': config, 'schema/mcp-agent.config.schema.json': schema }));

  it('one deployment per server, its transport read from transport:; the schema is no configuration', () => {
    expect(out.files.map((f) => [f.path, f.kind])).toEqual([
      ['mcp_agent.config.yaml', 'mcp_client_config'],
      ['schema/mcp-agent.config.schema.json', 'other'],
    ]);
    expect(out.deployments.map((d) => d.name)).toEqual([
      'client:mcp_agent.config.yaml:events',
      'client:mcp_agent.config.yaml:fetch',
      'client:mcp_agent.config.yaml:remote',
    ]);
    expect(fact(deploymentOf(out, ':fetch'), 'transport.kind')).toBe('stdio');
    expect(deploymentOf(out, ':fetch').sources['transport.kind']![0]).toMatchObject({ line: 6 });
    expect(fact(deploymentOf(out, ':events'), 'transport.legacy_sse')).toBe(true);
    const remote = deploymentOf(out, ':remote');
    expect(fact(remote, 'transport.legacy_sse')).toBeUndefined();
    // mcp-agent merges mcp_agent.secrets.yaml into the entry: not among the files, a secret may be there.
    expect(fact(remote, 'client.config_secrets_plaintext')).toBeUndefined();
    expect(remote.reasons['client.config_secrets_plaintext']).toBe(
      'mcp-agent merges mcp_agent.secrets.yaml (not among the files) into this configuration: a secret for remote may be written there',
    );
    const merged = (secrets: string) =>
      deploymentOf(collectWith(inline({ 'mcp_agent.config.yaml': config, 'mcp_agent.secrets.yaml': secrets })), ':remote');
    const token = merged('mcp:\n  servers:\n    remote:\n      headers:\n        Authorization: "Bearer ghp_a1b2c3d4e5f6g7h8i9j0"\n');
    expect(fact(token, 'client.config_secrets_plaintext')).toBe(true);
    expect(token.sources['client.config_secrets_plaintext']![0]).toMatchObject({ file: 'mcp_agent.secrets.yaml', line: 5 });
    expect(fact(merged('openai:\n  api_key: sk-test\n'), 'client.config_secrets_plaintext')).toBe(false);
  });

  it('finds servers: after other keys of mcp:, not a servers: nested deeper', () => {
    // evalstate/fast-agent's setup template: `mcp:` with `targets:` before `servers:`.
    const fast = (mcp: string) =>
      collectWith(inline({ 'fastagent.config.yaml': `default_model: haiku\nmcp:\n${mcp}logger:\n  level: info\n` })).deployments.map(
        (d) => d.name,
      );
    expect(fast('  targets:\n    - fetch\n  servers:\n    fetch:\n      command: uvx\n      args: ["mcp-server-fetch"]\n')).toEqual([
      'client:fastagent.config.yaml:fetch',
    ]);
    expect(fast('  client:\n    servers:\n      fetch:\n        command: uvx\n')).toEqual([]);
  });
});

describe("a gateway's configuration its image copies in", () => {
  // samanhappy/mcphub: mcp_settings.json lists the servers MCPHub launches; its Dockerfile copies the repository in.
  const settings = JSON.stringify({ mcpServers: { playwright: { command: 'npx', args: ['@playwright/mcp@latest'] } } });
  const dockerfile = 'FROM node:22-slim\nWORKDIR /app\nCOPY . .\nCMD ["node", "dist/index.js"]\n';
  const used = (files: Record<string, string>, name: string) => {
    const d = collectWith(inline(files)).deployments.find((x) => x.name === `client:${name}:playwright`)!;
    return { value: fact(d, 'container.used'), why: d.reasons['container.used'] };
  };

  it('launches its servers in that container: not on a host, and how the image runs is not in the file', () => {
    expect(used({ 'mcp_settings.json': settings, Dockerfile: dockerfile }, 'mcp_settings.json')).toEqual({
      value: undefined,
      why: 'Dockerfile copies mcp_settings.json into its image: the gateway that reads it there launches npx in that container, and how the image is run is not in this file',
    });
    expect(used({ 'mcp_settings.json': settings }, 'mcp_settings.json').value).toBe(false);
    // By a pattern too (yonaka15/mcp-server-as-http-go's `COPY *.config.json ./`).
    const pattern = 'FROM golang:1.24\nWORKDIR /app\nCOPY *.config.json ./\nCMD ["./mcp-http-server"]\n';
    expect(used({ 'mcp_servers.config.json': settings, Dockerfile: pattern }, 'mcp_servers.config.json').value).toBeUndefined();
    expect(used({ 'sub/mcp_servers.config.json': settings, Dockerfile: pattern }, 'sub/mcp_servers.config.json').value).toBe(false);
    // A file named for a client, copied with the rest of a server's repository (cstortz/monorepo_mcp's cursor-mcp-config.json).
    expect(used({ 'cursor-mcp-config.json': settings, Dockerfile: dockerfile }, 'cursor-mcp-config.json').value).toBe(false);
    // A client's own file, or an example for one, copied with the rest of a repository is still read on the user's machine.
    expect(used({ '.mcp.json': settings, Dockerfile: dockerfile }, '.mcp.json').value).toBe(false);
    expect(used({ 'examples/mcp_config.json': settings, Dockerfile: dockerfile }, 'examples/mcp_config.json').value).toBe(false);
    // A Windows program runs on a Windows host, not in a Linux image (phamhung075/4genthub's mcp_project_template.json).
    const wsl = JSON.stringify({
      mcpServers: { playwright: { command: 'wsl.exe', args: ['--cd', '{{PROJECT_PATH}}', '--exec', 'python'] } },
    });
    expect(used({ 'mcp_settings.json': wsl, Dockerfile: dockerfile }, 'mcp_settings.json').value).toBe(false);
  });

  it("not one a builder stage copies, where the final image takes only the build's output", () => {
    // carlosjperez/SOLARIA-DFO's docker/prod/Dockerfile.mcp: the builder copies mcp-server/, the image only /build/dist.
    const builder =
      'FROM node:22-slim AS builder\nWORKDIR /build\nCOPY . .\nRUN npm ci && npm run build\nFROM node:22-slim\nCOPY --from=builder /build/dist /app/dist\nCMD ["node", "/app/dist/index.js"]\n';
    expect(used({ 'mcp_settings.json': settings, Dockerfile: builder }, 'mcp_settings.json').value).toBe(false);
  });

  it('or a Compose service bind-mounts it: the gateway there launches them in its container', () => {
    // WebSurfinMurf/mcp's proxy/: ghcr.io/tbxark/mcp-proxy with `./config.json:/config/config.json:ro`.
    const compose =
      'services:\n  mcp-proxy:\n    image: ghcr.io/tbxark/mcp-proxy:latest\n    volumes:\n      - ./config.json:/config/config.json:ro\n    command: ["-config", "/config/config.json"]\n';
    expect(used({ 'proxy/config.json': settings, 'proxy/docker-compose.yml': compose }, 'proxy/config.json')).toEqual({
      value: undefined,
      why: 'proxy/docker-compose.yml service mcp-proxy bind-mounts proxy/config.json into its container: a program there that reads it (a gateway) launches npx in that container, while a client on the host would launch it directly',
    });
    // The long syntax too; another file mounted beside it says nothing of this one.
    const long = compose.replace(
      '      - ./config.json:/config/config.json:ro\n',
      '      - { type: bind, source: ./config.json, target: /config/config.json }\n',
    );
    expect(used({ 'proxy/config.json': settings, 'proxy/docker-compose.yml': long }, 'proxy/config.json').value).toBeUndefined();
    const other = compose.replace('./config.json:', './other.json:');
    expect(used({ 'proxy/config.json': settings, 'proxy/docker-compose.yml': other }, 'proxy/config.json').value).toBe(false);
  });

  it('or mounts the directory that holds it, unless that is the whole project', () => {
    // drejom/webui-mcpo: `./mcpo:/opt/mcpo`, and its start.sh runs `mcpo --config /opt/mcpo/config.json`.
    const compose = (volume: string) => `services:\n  mcpo:\n    image: ghcr.io/open-webui/mcpo:main\n    volumes:\n      - ${volume}\n`;
    expect(used({ 'mcpo/config.json': settings, 'docker-compose.yml': compose('./mcpo:/opt/mcpo') }, 'mcpo/config.json').why).toBe(
      'docker-compose.yml service mcpo (its directory ./mcpo) bind-mounts mcpo/config.json into its container: a program there that reads it (a gateway) launches npx in that container, while a client on the host would launch it directly',
    );
    expect(used({ 'mcpo/config.json': settings, 'docker-compose.yml': compose('./:/workspace') }, 'mcpo/config.json').value).toBe(false);
    // A client's own file in a mounted directory is still the client's.
    expect(used({ 'mcpo/.mcp.json': settings, 'docker-compose.yml': compose('./mcpo:/opt/mcpo') }, 'mcpo/.mcp.json').value).toBe(false);
  });
});

describe("fast-agent's target: one line that is a command or a URL", () => {
  // evalstate/fast-agent's examples/researcher/fast-agent.yaml.
  const config = [
    'mcp:',
    '  servers:',
    '    brave:',
    '      target: "npx -y @modelcontextprotocol/server-brave-search"',
    '      env:',
    '        BRAVE_API_KEY: <your_brave_api_key>',
    '    interpreter:',
    '      target: "docker run -i --rm --pull=always -v ./agent_folder:/mnt/data/ ghcr.io/evalstate/mcp-py-repl:latest"',
    '    hub:',
    '      target: "@modelcontextprotocol/server-everything@2025.9.25"',
    '    hf:',
    '      target: "https://huggingface.co/mcp"',
    '',
  ].join('\n');
  const out = collectWith(inline({ 'fast-agent.yaml': config }));

  it('is read as fast-agent reads it: a URL is remote, a package npx runs, anything else the command and its arguments', () => {
    expect(out.notes).toEqual([]);
    const brave = deploymentOf(out, ':brave');
    expect(fact(brave, 'client.stdio_servers_release')).toBe('floating');
    expect(brave.sources['transport.kind']![0]).toMatchObject({ line: 4 });
    expect(fact(brave, 'client.config_secrets_plaintext')).toBe(false);
    expect(fact(deploymentOf(out, ':interpreter'), 'container.used')).toBe(true);
    expect(fact(deploymentOf(out, ':interpreter'), 'container.image_pinned_by_digest')).toBe(false);
    expect(fact(deploymentOf(out, ':hub'), 'supply_chain.deployed_release')).toBe('exact_version');
    const hf = deploymentOf(out, ':hf');
    expect(fact(hf, 'transport.kind')).toBe('http');
    expect(hf.sources['tls.enabled']![0]).toMatchObject({ line: 12 });
  });
});

describe("Claude Code's ${VAR:-default}: a reference, unless its default is the secret", () => {
  // upstash/context7's plugins/claude/context7/.mcp.json: "Authorization": "${CONTEXT7_API_KEY:-}".
  const entry = (authorization: string) =>
    JSON.stringify({
      mcpServers: { docs: { type: 'http', url: 'https://mcp.example.com/mcp', headers: { Authorization: authorization } } },
    });
  const out = collectWith(
    inline({
      'empty/.mcp.json': entry('${CONTEXT7_API_KEY:-}'),
      'bearer/.mcp.json': entry('Bearer ${DOCS_TOKEN:-}'),
      'literal/.mcp.json': entry('${DOCS_TOKEN:-ghp_abcdefghijklmnopqrstuvwxyz0123}'),
      'placeholder/.mcp.json': entry('Bearer ${DOCS_TOKEN:-<your-token>}'),
    }),
  );
  const plaintext = (dir: string) => fact(deploymentOf(out, `${dir}/.mcp.json:docs`), 'client.config_secrets_plaintext');

  it('an empty default or a placeholder writes no secret; a token as the default is one, in plain text', () => {
    expect(plaintext('empty')).toBe(false);
    expect(plaintext('bearer')).toBe(false);
    expect(plaintext('placeholder')).toBe(false);
    expect(plaintext('literal')).toBe(true);
    expect(deploymentOf(out, 'literal/.mcp.json:docs').sources['client.config_secrets_plaintext']![0]!.why).toMatch(/default/);
  });
});

describe('an Authorization header under any scheme, not only Bearer', () => {
  // mem0ai/mem0's integrations/mem0-plugin: "Authorization": "Token ${MEM0_API_KEY}" (Claude Code,
  // Windsurf) and "Token ${env:MEM0_API_KEY}" (Cursor).
  const entry = (authorization: string) =>
    JSON.stringify({ mcpServers: { mem0: { url: 'https://mcp.example.com/mcp/', headers: { Authorization: authorization } } } });
  const plaintext = (authorization: string) =>
    fact(collectWith(inline({ '.mcp.json': entry(authorization) })).deployments[0]!, 'client.config_secrets_plaintext');

  it('a scheme before a reference writes no secret; before a literal credential it does', () => {
    expect(plaintext('Token ${MEM0_API_KEY}')).toBe(false);
    expect(plaintext('Token ${env:MEM0_API_KEY}')).toBe(false);
    expect(plaintext('Basic ${BASIC_CREDENTIALS}')).toBe(false);
    expect(plaintext('token ${input:api-key}')).toBe(false);
    expect(plaintext('Token <your-mem0-api-key>')).toBe(false);
    expect(plaintext('Token m0-abcdefghijklmnopqrstuvwxyz')).toBe(true);
    // A word before a reference that is no scheme is text written in the file.
    expect(plaintext('hunter22 ${MEM0_API_KEY}')).toBe(true);
  });
});

describe("a URL's host: the class of its address", () => {
  const cls = (url: string) => {
    const d = collectWith(inline({ '.mcp.json': JSON.stringify({ mcpServers: { s: { type: 'http', url } } }) })).deployments[0]!;
    return fact(d, 'exposure.endpoint_address_class') ?? `undecided: ${d.reasons['exposure.endpoint_address_class']}`;
  };

  it('private ranges (Tailscale, link-local, unique local), public, and names; loopback shows only the client', () => {
    // The server behind a loopback URL may listen on every interface (Dicklesworthstone/mcp_agent_mail
    // publishes 8765:8765), or be a port forward to a cluster: a private or public address is at least that.
    expect(cls('http://127.0.0.1:3000/mcp')).toMatch(
      /^undecided: this client connects to 127\.0\.0\.1; whether the server listens there only/,
    );
    expect(cls('http://[::1]:3000/mcp')).toMatch(/^undecided: this client connects to ::1/);
    // A container's name for its host (Kuadrant/mcp-envoy-wasm's LibreChat): the server on that host, as on loopback.
    expect(cls('http://host.docker.internal:8888/mcp')).toMatch(/^undecided: this client connects to host\.docker\.internal;/);
    expect(cls('http://api.corp.internal/mcp')).toBe('private');
    expect(cls('http://100.101.102.103:3000/mcp')).toBe('private');
    expect(cls('http://[fd00::5]:3000/mcp')).toBe('private');
    expect(cls('https://203.0.113.7/mcp')).toBe('public');
    expect(cls('https://[2001:db8::7]/mcp')).toBe('public');
    expect(cls('http://mcp.cluster.local/mcp')).toBe('private');
    // A name that starts like a unique-local prefix is a name.
    expect(cls('https://fc-mcp.example.com/mcp')).toBe('undecided: fc-mcp.example.com: what the name resolves to is not in the files');
  });

  it('0.0.0.0 is an address to listen on, not one to connect to', () => {
    // lastmile-ai/mcp-agent's examples/mcp/mcp_streamable_http: url: "http://0.0.0.0:3156/mcp".
    expect(cls('http://0.0.0.0:3156/mcp')).toMatch(/^undecided: 0\.0\.0\.0 is an address to listen on/);
  });
});

describe("an MCP Bundle's manifest.json: how Claude Desktop launches the bundled server", () => {
  // apify/actors-mcp-server's manifest.json (dxt_version 0.1), trimmed.
  const bundle = JSON.stringify(
    {
      dxt_version: '0.1',
      name: 'apify-mcp-server',
      server: {
        type: 'node',
        entry_point: 'dist/stdio.js',
        mcp_config: {
          command: 'node',
          args: ['${__dirname}/dist/stdio.js', '--tools', '${user_config.tools}'],
          env: { APIFY_TOKEN: '${user_config.apify_token}' },
        },
      },
      user_config: { apify_token: { type: 'string', sensitive: true, required: true } },
    },
    null,
    2,
  );
  const out = collectWith(
    inline({
      'manifest.json': bundle,
      'web/manifest.json': JSON.stringify({ name: 'App', short_name: 'App', icons: [] }),
      'extension/manifest.json': JSON.stringify({ manifest_version: 3, name: 'Ext', background: { service_worker: 'sw.js' } }),
    }),
  );

  it('is one stdio deployment named after the bundle; web and browser-extension manifests are not', () => {
    expect(out.files.map((f) => [f.path, f.kind])).toEqual([
      ['extension/manifest.json', 'other'],
      ['manifest.json', 'mcp_client_config'],
      ['web/manifest.json', 'other'],
    ]);
    const d = deploymentOf(out, 'client:manifest.json:apify-mcp-server');
    expect(fact(d, 'transport.kind')).toBe('stdio');
    expect(d.sources['transport.kind']![0]).toMatchObject({ file: 'manifest.json', line: 8 });
    // ${user_config.apify_token}: the client asks the user and keeps it; nothing is written here.
    expect(fact(d, 'client.config_secrets_plaintext')).toBe(false);
  });
});

describe('a stdio server bridged to the network, as far as the launch line shows', () => {
  const entry = (command: string, args: string[]) => JSON.stringify({ mcpServers: { s: { command, args } } });
  const bridged = (command: string, args: string[]) => {
    const d = collectWith(inline({ '.mcp.json': entry(command, args) })).deployments[0]!;
    return fact(d, 'transport.stdio_bridged_to_network') ?? `undecided: ${d.reasons['transport.stdio_bridged_to_network']}`;
  };

  it('a bridge with a port in the launch line is one; otherwise only the program listening shows it', () => {
    expect(bridged('npx', ['-y', 'supergateway@3.4.0', '--stdio', 'npx -y @modelcontextprotocol/server-memory', '--port', '8000'])).toBe(
      true,
    );
    // grafana/loki-mcp's examples/claude-desktop: the server binary also listens on HTTP whenever it serves stdio.
    for (const [command, args] of [
      ['/path/to/loki-mcp-server', []],
      ['npx', ['-y', '@modelcontextprotocol/server-filesystem@2025.8.21', '/tmp']],
      ['docker', ['run', '-i', '--rm', 'loki-mcp-server:latest']],
    ] as [string, string[]][])
      expect(bridged(command, args)).toMatch(
        /^undecided: no bridge in the launch line; whether the program also listens on a port of its own/,
      );
  });
});

describe('docker run of an image with no registry or namespace', () => {
  // grafana/loki-mcp's examples/claude-desktop/claude_desktop_config_docker.json: `loki-mcp-server:latest`,
  // an image the README builds with `docker build -t loki-mcp-server .`.
  const run = (image: string) =>
    collectWith(
      inline({
        'claude_desktop_config.json': JSON.stringify({ mcpServers: { loki: { command: 'docker', args: ['run', '--rm', '-i', image] } } }),
      }),
    ).deployments[0]!;

  it('is built locally or an official image: its tag fixes nothing and says nothing of who built it', () => {
    const d = run('loki-mcp-server:latest');
    for (const path of ['supply_chain.deployed_release', 'supply_chain.builds_server', 'client.stdio_servers_release'])
      expect(d.reasons[path], path).toMatch(
        /^docker run loki-mcp-server:latest: a name with no registry or namespace is an image built locally/,
      );
    expect(fact(d, 'container.image_pinned_by_digest')).toBe(false);
    // One from a registry namespace is published there.
    const published = run('grafana/loki-mcp:0.4.0');
    expect(fact(published, 'supply_chain.deployed_release')).toBe('exact_version');
    expect(fact(published, 'supply_chain.builds_server')).toBe(false);
  });
});

describe('a secret passed as a flag of the launch line', () => {
  const plaintext = (args: string[]) => {
    const d = collectWith(inline({ '.cursor/mcp.json': JSON.stringify({ mcpServers: { s: { command: 'npx', args } } }) })).deployments[0]!;
    return { value: fact(d, 'client.config_secrets_plaintext'), why: d.sources['client.config_secrets_plaintext']?.[0]?.why };
  };

  it('is named by its flag, in either form, whatever shape the token has', () => {
    // 0247473/cursor-supabase-app: `--access-token sbp_…`; 0nouman0/poligap_app: `--figma-api-key=figd_…`.
    expect(
      plaintext(['-y', '@supabase/mcp-server-supabase@latest', '--access-token', 'sbp_c0c46bc32330421d66fb959e01b1f318d2c4c62c']),
    ).toEqual({
      value: true,
      why: 'argument --access-token holds a literal value',
    });
    expect(plaintext(['-y', 'figma-developer-mcp', '--figma-api-key=figd_3tpaVvphKm9aa5IZXPwiEQxTr3lj', '--stdio'])).toEqual({
      value: true,
      why: 'argument --figma-api-key holds a literal value',
    });
    // A path to a key, a reference or a placeholder is no secret written here.
    expect(plaintext(['-y', 'srv', '--api-key-file', '/run/secrets/key']).value).toBe(false);
    expect(plaintext(['-y', 'srv', '--access-token', '${SUPABASE_TOKEN}']).value).toBe(false);
    expect(plaintext(['-y', 'srv', '--figma-api-key=<your-figma-key>']).value).toBe(false);
  });
});

describe('a .vscode/mcp.json with both "servers" and "mcpServers"', () => {
  // 220631948/cape-connect's .vscode/mcp.json: VS Code starts what is under "servers" only.
  const file = JSON.stringify({
    mcpServers: { memory: { command: 'npx', args: ['-y', '@modelcontextprotocol/server-memory'] } },
    servers: { Sentry: { type: 'http', url: 'https://mcp.sentry.dev/mcp/ferdi-fd/cape-gis' } },
  });

  it('reads the servers VS Code starts, and says the other block is not', () => {
    const c = collectWith(inline({ '.vscode/mcp.json': file }));
    expect(c.deployments.map((d) => d.name)).toEqual(['client:.vscode/mcp.json:Sentry']);
    expect(c.notes).toContainEqual({
      file: '.vscode/mcp.json',
      what: 'VS Code starts the servers under "servers"; the "mcpServers" block beside them is not read by it, nor here',
    });
    // Another client's file reads its own block as before.
    expect(collectWith(inline({ '.cursor/mcp.json': file })).deployments.map((d) => d.name)).toEqual(['client:.cursor/mcp.json:memory']);
  });
});

describe("a server's own switch that turns off certificate verification", () => {
  // 22syn/crm's .vscode/mcp.json: the Obsidian server with OBSIDIAN_VERIFY_SSL=false.
  const off = (env: Record<string, string>) => {
    const d = collectWith(
      inline({ '.vscode/mcp.json': JSON.stringify({ servers: { obsidian: { command: 'uvx', args: ['mcp-obsidian'], env } } }) }),
    ).deployments[0]!;
    return { value: fact(d, 'egress.tls_verification_disabled'), why: d.sources['egress.tls_verification_disabled']?.[0]?.why };
  };

  it('is read as NODE_TLS_REJECT_UNAUTHORIZED=0 is; a switch left on decides nothing', () => {
    expect(off({ OBSIDIAN_BASE_URL: 'https://127.0.0.1:27124', OBSIDIAN_VERIFY_SSL: 'false' })).toEqual({
      value: true,
      why: "OBSIDIAN_VERIFY_SSL=false turns off the server's certificate verification",
    });
    expect(off({ GITLAB_TLS_SKIP_VERIFY: 'true' }).value).toBe(true);
    expect(off({ NODE_TLS_REJECT_UNAUTHORIZED: '0' }).why).toBe(
      "NODE_TLS_REJECT_UNAUTHORIZED=0 turns off the server's certificate verification",
    );
    expect(off({ OBSIDIAN_VERIFY_SSL: 'true' }).value).toBeUndefined();
    expect(off({ PG_SSL_REJECT_UNAUTHORIZED: 'false' }).value).toBe(true);
    // Node reads NODE_TLS_REJECT_UNAUTHORIZED only as 0: `false` keeps verification on.
    expect(off({ NODE_TLS_REJECT_UNAUTHORIZED: 'false' }).value).toBeUndefined();
    // A switch that skips verification, set false, keeps it on (structured-world/gitlab-mcp's SKIP_TLS_VERIFY).
    expect(off({ SKIP_TLS_VERIFY: 'false' }).value).toBeUndefined();
    expect(off({ SKIP_TLS_VERIFY: 'true' }).value).toBe(true);
    expect(off({ DISABLE_SSL_VERIFY: 'false' }).value).toBeUndefined();
    // A product's own --insecure as a variable (peopleforrester/mcp-k8s-observability-argocd-server's
    // ARGOCD_INSECURE=true), Vault's VAULT_SKIP_VERIFY.
    expect([
      off({ ARGOCD_INSECURE: 'true' }).value,
      off({ VAULT_SKIP_VERIFY: '1' }).value,
      off({ ARGOCD_INSECURE: 'false' }).value,
    ]).toEqual([true, true, undefined]);
  });
});

describe("a tunnel's public name in a client's URL", () => {
  const d = (url: string) => collectWith(inline({ '.cursor/mcp.json': JSON.stringify({ mcpServers: { s: { url } } }) })).deployments[0]!;

  it('reaches the server from the internet; a quick tunnel is no proxy', () => {
    // 2716399563/gbd-config's .cursor/mcp.json.
    const quick = d('https://physics-architect-hockey-refrigerator.trycloudflare.com/mcp');
    expect(fact(quick, 'exposure.reachable_from_internet')).toBe(true);
    expect(fact(quick, 'exposure.behind_reverse_proxy')).toBe(false);
    const ngrok = d('https://a1b2-203-0-113-7.ngrok-free.app/mcp');
    expect(fact(ngrok, 'exposure.reachable_from_internet')).toBe(true);
    // An ngrok endpoint may enforce a traffic policy configured outside the files.
    expect(fact(ngrok, 'exposure.behind_reverse_proxy')).toBeUndefined();
    expect(fact(d('https://mcp.example.com/mcp'), 'exposure.reachable_from_internet')).toBeUndefined();
  });
});

describe('a placeholder in another language', () => {
  const plaintext = (value: string) =>
    fact(
      collectWith(
        inline({
          'claude_desktop_config.json': JSON.stringify({
            mcpServers: { s: { command: 'npx', args: ['-y', 'srv'], env: { VERCEL_API_TOKEN: value } } },
          }),
        }),
      ).deployments[0]!,
      'client.config_secrets_plaintext',
    );

  it('capital words that name the secret are a placeholder; a token with digits or lower case is not', () => {
    // Agalaxie/ma-boutique-medusa's claude_desktop_config.json.
    expect(plaintext('REMPLACEZ_PAR_VOTRE_TOKEN_VERCEL')).toBe(false);
    expect(plaintext('DEIN_TOKEN_HIER')).toBe(false);
    expect(plaintext('Xk9fT3mQ2vLp8sRw')).toBe(true);
    expect(plaintext('PROD_TOKEN_2024_A7')).toBe(true);
  });

  it("a token's prefix cut short by an ellipsis is a placeholder; a token with a dot inside is not", () => {
    // Deivisan/Contexto-Pleno's mcp-config-docker.json and .opencode/opencode.json.
    for (const cut of ['tvly-dev-...', 'github_pat_...', 'sk-...', 'ghp_\u2026', 'Bearer sk-...']) expect(plaintext(cut), cut).toBe(false);
    expect(plaintext('tvly-dev-4fQx9...Zk2')).toBe(true);
    expect(plaintext('sk-proj-Ab12Cd34Ef56Gh78')).toBe(true);
  });
});

describe('a configuration that names a JSON Schema draft as its $schema', () => {
  it('is read for its servers; a schema document itself is not', () => {
    // Deivisan/Contexto-Pleno's PC/MCPS/configs/kiro-mcp-docker.json.
    const config = JSON.stringify({
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      mcpServers: { fetch: { command: 'uvx', args: ['mcp-server-fetch==2025.4.7'] } },
    });
    const schema = JSON.stringify({
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      type: 'object',
      properties: { mcpServers: { type: 'object' } },
    });
    const out = collectWith(inline({ 'configs/kiro-mcp-docker.json': config, 'schema/mcp.schema.json': schema }));
    expect(out.files.map((f) => [f.path, f.kind])).toEqual([
      ['configs/kiro-mcp-docker.json', 'mcp_client_config'],
      ['schema/mcp.schema.json', 'other'],
    ]);
    expect(out.deployments.map((d) => d.name)).toEqual(['client:configs/kiro-mcp-docker.json:fetch']);
  });
});

describe("docker run's --network and the server's egress", () => {
  const egress = (network: string[]) => {
    const d = collectWith(
      inline({
        'claude_desktop_config.json': JSON.stringify({
          mcpServers: { s: { command: 'docker', args: ['run', '-i', '--rm', ...network, 'mcp/fetch:1.0.0'] } },
        }),
      }),
    ).deployments[0]!;
    return fact(d, 'egress.network_restricted') ?? `undecided: ${d.reasons['egress.network_restricted']}`;
  };

  it('none restricts it; the default bridge and the host do not; a named network is set where it is created', () => {
    expect(egress(['--network', 'none'])).toBe(true);
    expect(egress([])).toBe(false);
    expect(egress(['--network', 'host'])).toBe(false);
    // 0x1D-1983/book-api-mcp-docker-compose-bundle: a Compose project's network, which may be internal.
    expect(egress(['--network', 'book-api-mcp-bundle_default'])).toBe(
      'undecided: --network book-api-mcp-bundle_default: whether that network is internal is set where it is created, not in the files',
    );
  });
});

describe("docker run's options that take a value", () => {
  it('are never the image: the flags after them still count', () => {
    // aRustyDev/dotfiles' Zed context servers: `--annotation scope:global`, and `--pull always` before `--privileged`.
    const run = (flags: string[]) => {
      const d = collectWith(
        inline({
          '.mcp.json': JSON.stringify({
            mcpServers: { s: { command: 'docker', args: ['run', '-i', '--rm', ...flags, 'mcp/mongodb:1.0.0'] } },
          }),
        }),
      ).deployments[0]!;
      return {
        privileged: fact(d, 'container.privileged'),
        host: fact(d, 'container.host_namespaces'),
        mounts: fact(d, 'container.host_path_mounts'),
        release: fact(d, 'supply_chain.deployed_release'),
      };
    };
    expect(run(['--pull', 'always', '--privileged', '--network', 'host', '-v', '/:/host'])).toEqual({
      privileged: true,
      host: true,
      mounts: 'host_system',
      release: 'exact_version',
    });
    expect(run(['--annotation', 'scope:global', '--log-driver', 'none', '--dns', '1.1.1.1', '-v', '/etc:/host-etc']).mounts).toBe(
      'host_system',
    );
  });
});

describe('a Windows path mounted by docker run', () => {
  const mounts = (volume: string) => {
    const d = collectWith(
      inline({
        'claude_desktop_config.json': JSON.stringify({
          mcpServers: { s: { command: 'docker', args: ['run', '-i', '--rm', '-v', volume, 'mcp/git:1.0.0'] } },
        }),
      }),
    ).deployments[0]!;
    return fact(d, 'container.host_path_mounts') ?? `undecided: ${d.reasons['container.host_path_mounts']}`;
  };

  it('keeps its drive: a home directory is a system path, a volume name none', () => {
    expect(mounts('C:\\Users\\me\\.ssh:/root/.ssh')).toBe('host_system');
    expect(mounts('C:/Windows/System32:/win:ro')).toBe('host_system');
    expect(mounts('D:\\work\\repo:/repo')).toMatch(/^undecided: whether D:\\work\\repo belongs to the deployment/);
    expect(mounts('gitdata:/data')).toBe('none');
  });

  it("the editor's open project is the deployment's own files, unless the path climbs out of it", () => {
    // siakhooi/mcp-mariadb's .vscode/mcp.json: `${workspaceFolder}/example-config.yaml:/app/config.yaml`.
    expect(mounts('${workspaceFolder}/example-config.yaml:/app/config.yaml')).toBe('deployment_files');
    expect(mounts('${CLAUDE_PROJECT_DIR}:/repo:ro')).toBe('deployment_files');
    expect(mounts('${workspaceFolder}/../secrets:/s')).toMatch(/^undecided: /);
    expect(mounts('${DATA_DIR}:/data')).toMatch(/^undecided: /);
  });
});

describe('docker run -e with a reference the client resolves', () => {
  it('passes a secret through the environment', () => {
    // 15cm/obsidian-rest-mcp's .vscode/mcp.json.
    const d = collectWith(
      inline({
        '.vscode/mcp.json': JSON.stringify({
          inputs: [{ id: 'obsidian-api-key', type: 'promptString', password: true }],
          servers: {
            obsidian: {
              command: 'docker',
              args: ['run', '-i', '--rm', '-e', 'OBSIDIAN_API_KEY=${input:obsidian-api-key}', 'ghcr.io/alexw00/obsidian-rest-mcp:latest'],
            },
          },
        }),
      }),
    ).deployments[0]!;
    expect(fact(d, 'container.secrets_source')).toBe('environment');
    expect(d.sources['container.secrets_source']![0]!.why).toBe(
      '-e OBSIDIAN_API_KEY=${input:obsidian-api-key}: the client passes the value it resolves at start',
    );
    expect(fact(d, 'client.config_secrets_plaintext')).toBe(false);
  });
});

describe('a launch whose server the entry does not show', () => {
  const read = (command: string, args: string[]) => {
    const d = collectWith(inline({ 'claude_desktop_config.json': JSON.stringify({ mcpServers: { s: { command, args } } }) }))
      .deployments[0]!;
    return { used: fact(d, 'container.used'), sandboxed: fact(d, 'client.stdio_servers_sandboxed'), why: d.reasons['container.used'] };
  };

  it('a wrapper script or the Docker MCP gateway leaves the container and sandbox open', () => {
    // 0ceanWavves/REDUXsynthed: a .bat wrapper; 0lini/netbox-orb-extreme-xiq: bash with a script.
    expect(read('C:\\MCP\\github-mcp.bat', [])).toEqual({
      used: undefined,
      sandboxed: undefined,
      why: 'C:\\MCP\\github-mcp.bat is a script: what it starts, and whether in a container, is in the script, not in this file',
    });
    expect(read('bash', ['${workspaceFolder}/dev/netbox-mcp.sh']).used).toBeUndefined();
    // Alzarak/Kali-Linux-MCP: `docker mcp gateway run`.
    expect(read('docker', ['mcp', 'gateway', 'run']).why).toMatch(/^docker mcp gateway starts each server in a container of its own/);
    // A program the entry names runs on the host.
    expect(read('npx', ['-y', '@modelcontextprotocol/server-memory@2025.8.4'])).toMatchObject({ used: false, sandboxed: false });
  });

  it("a program in a dev container's workspace runs in that container: open", () => {
    // 23min/FlowTime's .vscode/mcp.json: `"cwd": "/workspaces/flowtime-vnext/tools/mcp-server"`, the devcontainer's workspaceFolder.
    const entry = { type: 'stdio', command: 'node', args: ['dist/index.js'], cwd: '/workspaces/flowtime-vnext/tools/mcp-server' };
    const d = collectWith(inline({ '.vscode/mcp.json': JSON.stringify({ servers: { flowtime: entry } }) })).deployments[0]!;
    expect(fact(d, 'container.used')).toBeUndefined();
    expect(fact(d, 'client.stdio_servers_sandboxed')).toBeUndefined();
    expect(d.reasons['container.used']).toBe(
      "/workspaces/flowtime-vnext/tools/mcp-server is a dev container's workspace path: the editor attached to that container runs the server in it",
    );
    expect(read('node', ['/workspaces/app/server.js']).used).toBeUndefined();
    expect(read('node', ['/home/me/workspaces/server.js']).used).toBe(false);
  });
});

describe('a secret-named variable that names a file', () => {
  it('says where the secret is kept, not the secret', () => {
    // phatblat/dotfiles' .omp/agent/mcp.json: GOOGLE_OAUTH_CREDENTIALS=${HOME}/.config/google-calendar-mcp/gcp-oauth.keys.json.
    const plaintext = (value: string) =>
      fact(
        collectWith(
          inline({
            '.mcp.json': JSON.stringify({
              mcpServers: { s: { command: 'npx', args: ['-y', 'x-mcp@1.0.0'], env: { GOOGLE_OAUTH_CREDENTIALS: value } } },
            }),
          }),
        ).deployments[0]!,
        'client.config_secrets_plaintext',
      );
    expect(plaintext('${HOME}/.config/google-calendar-mcp/gcp-oauth.keys.json')).toBe(false);
    expect(plaintext('/etc/mcp/service-account.json')).toBe(false);
    expect(plaintext('C:\\Users\\me\\keys\\gcp.json')).toBe(false);
    // The secret itself is still one.
    expect(plaintext('ya29.a0AfH6SMBx-example-token-value')).toBe(true);
    expect(plaintext('/not a path/with spaces.json')).toBe(true);
  });
});

describe('a TypeScript runner that npx starts on a file of the project', () => {
  it('is a local program: npx fixes the runner, not the server', () => {
    // martians-sheep/remote-mcpserver-sample's config/claude_desktop_local_dev.json.
    const entry = (args: string[]) =>
      collectWith(inline({ 'claude_desktop_config.json': JSON.stringify({ mcpServers: { s: { command: 'npx', args } } }) }))
        .deployments[0]!;
    const dev = entry(['tsx', '/home/me/remote-mcpserver-sample/src/local/server.ts']);
    for (const k of ['supply_chain.deployed_release', 'client.stdio_servers_release', 'supply_chain.builds_server'])
      expect(fact(dev, k), k).toBeUndefined();
    expect(dev.reasons['supply_chain.deployed_release']).toMatch(/runs a local program/);
    // A package npx runs is the server, whatever follows it.
    expect(fact(entry(['-y', '@modelcontextprotocol/server-filesystem', '/tmp/x.ts']), 'supply_chain.deployed_release')).toBe('floating');
  });
});

describe('YAML with servers keyed by name under mcpServers', () => {
  // LibreChat's librechat.yaml; rohitg00/kubectl-mcp-server's evals/mcp-config.yaml; nanobot's examples.
  const yaml = [
    'version: 1.2.1',
    'mcpServers:',
    '  everything:',
    '    type: streamable-http',
    '    url: https://mcp.example.com/mcp',
    '    headers:',
    '      Authorization: "Bearer ${MCP_TOKEN}"',
    '  filesystem:',
    '    command: npx',
    '    args: ["-y", "@modelcontextprotocol/server-filesystem@2025.8.21", "/data"]',
    '',
  ].join('\n');

  it('reads each entry as the JSON clients write it', () => {
    const c = collectWith(inline({ 'librechat.yaml': yaml }));
    expect(c.deployments.map((d) => d.name)).toEqual(['client:librechat.yaml:everything', 'client:librechat.yaml:filesystem']);
    const remote = deploymentOf(c, ':everything');
    expect(fact(remote, 'transport.kind')).toBe('http');
    expect(fact(remote, 'client.config_secrets_plaintext')).toBe(false);
    expect(remote.sources['tls.enabled']![0]).toMatchObject({ file: 'librechat.yaml', line: 5 });
    const local = deploymentOf(c, ':filesystem');
    expect(fact(local, 'client.stdio_servers_release')).toBe('exact_version');
  });

  it("1Password's op:// is a secret manager's item, no secret written in the file", () => {
    // aRustyDev/dotfiles' Zed context servers: `"GRAFANA_API_KEY": "op://employee/grafana/mcp-global/token"`.
    const written = (value: string) =>
      fact(
        collectWith(inline({ 'librechat.yaml': yaml.replace('"Bearer ${MCP_TOKEN}"', value) })).deployments[0]!,
        'client.config_secrets_plaintext',
      );
    expect(written('"op://employee/grafana/mcp-global/token"')).toBe(false);
    expect(written('"Bearer op://employee/grafana/token"')).toBe(false);
  });

  it("LibreChat's {{VAR}} is a value each user enters (customUserVars), no secret written in the file", () => {
    // faktenforum/ai-chat-interface's librechat.yaml: `Authorization: "Bearer {{GITHUB_PAT}}"` with customUserVars GITHUB_PAT.
    const perUser = (value: string) =>
      fact(
        collectWith(inline({ 'librechat.yaml': yaml.replace('"Bearer ${MCP_TOKEN}"', value) })).deployments[0]!,
        'client.config_secrets_plaintext',
      );
    expect(perUser('"Bearer {{GITHUB_PAT}}"')).toBe(false);
    expect(perUser("'{{MAIL_PASSWORD}}'")).toBe(false);
    expect(perUser('"Bearer ghp_0123456789abcdefghij0123456789abcdef"')).toBe(true);
    // A Go template's environment lookup (AmoyLab/Unla's `'{{ env "AMAP_MAPS_API_KEY" }}'`) is a reference too.
    expect(perUser(`'{{ env "AMAP_MAPS_API_KEY" }}'`)).toBe(false);
    // An installer's {{SECRET:X}}, filled in at install time (BartlettUSA/config's claude-desktop template).
    expect(perUser('"{{SECRET:FIGMA_API_KEY}}"')).toBe(false);
    // A hyphenated change-me is a placeholder as changeme is (joaomede/mcp-hub's `change-me-in-prod`).
    expect(perUser('"change-me-in-prod"')).toBe(false);
  });
});

describe("a file with a client's name that names no server", () => {
  it('is no client configuration: a badge, a telemetry convention', () => {
    // wandb/wandb-mcp-server's .badges/mcp.json (a shields.io badge); getsentry/sentry-mcp's conventions file.
    const out = collectWith(
      inline({
        '.badges/mcp.json': '{"schemaVersion": 1, "label": "MCP", "message": "ready", "color": "green"}',
        'semconv/mcp.json': '{"namespace": "mcp", "attributes": [{"key": "mcp.method.name", "type": "string"}]}',
        '.cursor/mcp.json': '{"mcpServers": {}}',
      }),
    );
    expect(out.files.map((f) => [f.path, f.kind])).toEqual([
      ['.badges/mcp.json', 'other'],
      ['.cursor/mcp.json', 'mcp_client_config'],
      ['semconv/mcp.json', 'other'],
    ]);
  });
});

describe('tools a client runs without asking', () => {
  it("Roo's alwaysAllow or Cline's autoApprove of a tool that writes: destructive calls are not confirmed", () => {
    // seanchatmangpt/erlmcp's .roo/mcp.json: alwaysAllow lists execute_sql and apply_migration.
    const confirmed = (entry: Record<string, unknown>) => {
      const d = collectWith(
        inline({
          '.roo/mcp.json': JSON.stringify({
            mcpServers: { db: { command: 'npx', args: ['-y', '@supabase/mcp-server-supabase@0.4.5'], ...entry } },
          }),
        }),
      ).deployments[0]!;
      return [fact(d, 'client.destructive_calls_confirmed'), d.sources['client.destructive_calls_confirmed']?.[0]?.why];
    };
    expect(confirmed({ alwaysAllow: ['list_tables', 'execute_sql', 'apply_migration'] })).toEqual([
      false,
      'alwaysAllow lists execute_sql, which the client then runs without asking',
    ]);
    expect(confirmed({ autoApprove: ['createIssue'] })[0]).toBe(false);
    expect(confirmed({ autoApprove: ['*'] })[0]).toBe(false);
    // Tools named for reading may be read-only: that decides nothing, a verb after get_ included.
    expect(confirmed({ alwaysAllow: ['list_tables', 'get_project', 'search_docs', 'get_commit', 'get_workflow_run'] })[0]).toBeUndefined();
    // A client that reads no such key (Claude Code's .mcp.json) starts no tool unasked for it.
    const claude = collectWith(
      inline({
        '.mcp.json': JSON.stringify({ mcpServers: { db: { command: 'npx', args: ['-y', 'pkg@1.0.0'], autoApprove: ['execute_sql'] } } }),
      }),
    ).deployments[0]!;
    expect(fact(claude, 'client.destructive_calls_confirmed')).toBeUndefined();
    // Kiro reads autoApprove in its .kiro/settings/mcp.json.
    const kiro = collectWith(
      inline({
        '.kiro/settings/mcp.json': JSON.stringify({
          mcpServers: { fs: { command: 'npx', args: ['-y', 'pkg@1.0.0'], autoApprove: ['delete_file'] } },
        }),
      }),
    ).deployments[0]!;
    expect(fact(kiro, 'client.destructive_calls_confirmed')).toBe(false);
  });
});

describe("GitHub Copilot's custom agents", () => {
  it('read the servers in an .agent.md front matter, cited at their lines; an agent with none is no client file', () => {
    // github/awesome-copilot's agents/terraform.agent.md: `mcp-servers:` in the YAML front matter.
    const agent = [
      '---',
      'name: terraform',
      "tools: ['*']",
      'mcp-servers:',
      '  terraform:',
      "    type: 'local'",
      "    command: 'docker'",
      "    args: ['run', '-i', '--rm', 'hashicorp/terraform-mcp-server:0.3.0']",
      '    env:',
      '      TFE_TOKEN: ${{ secrets.COPILOT_MCP_TFE_TOKEN }}',
      '  neo4j:',
      "    command: 'uvx'",
      "    args: ['mcp-neo4j-cypher@0.2.4']",
      '    env:',
      '      NEO4J_PASSWORD: hunter2hunter2',
      '---',
      '# Terraform',
      '',
      'A body with its own rule:',
      '---',
      '',
    ].join('\n');
    const c = collectWith(
      inline({ '.github/agents/terraform.agent.md': agent, '.github/agents/plain.agent.md': '---\nname: plain\n---\nBody\n' }),
    );
    expect(c.files.map((f) => [f.path, f.kind])).toEqual([
      ['.github/agents/plain.agent.md', 'other'],
      ['.github/agents/terraform.agent.md', 'mcp_client_config'],
    ]);
    expect(c.deployments.map((d) => d.name)).toEqual([
      'client:.github/agents/terraform.agent.md:neo4j',
      'client:.github/agents/terraform.agent.md:terraform',
    ]);
    const neo4j = deploymentOf(c, ':neo4j');
    expect(fact(neo4j, 'client.config_secrets_plaintext')).toBe(true);
    expect(neo4j.sources['client.config_secrets_plaintext']![0]).toMatchObject({ line: 15 });
    expect(fact(deploymentOf(c, ':terraform'), 'client.config_secrets_plaintext')).toBe(false);
    expect(fact(deploymentOf(c, ':terraform'), 'container.used')).toBe(true);
    // Written with CRLF line ends, a quoted value last in the front matter.
    const crlf = collectWith(
      inline({ '.github/agents/x.agent.md': agent.replace('hunter2hunter2', '"hunter2hunter2"').replace(/\n/g, '\r\n') }),
    );
    expect(crlf.skipped).toEqual([]);
    expect(fact(deploymentOf(crlf, ':neo4j'), 'client.config_secrets_plaintext')).toBe(true);
  });
});

describe('a launch inside a container the entry does not define', () => {
  const read = (command: string, args: string[] = []) =>
    collectWith(inline({ '.roo/mcp.json': JSON.stringify({ mcpServers: { s: { command, args } } }) })).deployments[0]!;

  it('docker exec runs the command it is given in an existing container', () => {
    // AT2024/ALA's .roo/mcp.json.
    const d = read('docker', ['exec', '-i', 'context7-mcp', 'npx', '@upstash/context7-mcp']);
    expect(fact(d, 'container.used')).toBe(true);
    expect(d.sources['container.used']![0]!.why).toBe('the server runs by docker exec into the container context7-mcp');
    expect(fact(d, 'client.stdio_servers_sandboxed')).toBeUndefined();
    expect(fact(d, 'supply_chain.deployed_release')).toBe('floating');
    // The container's own flags are not this entry's: nothing of them is read.
    expect(fact(d, 'container.privileged')).toBeUndefined();
  });

  it('docker compose run names a service whose settings are in a compose file', () => {
    // Alcal/gemini-extension's mcp_config.json: `docker compose run --rm -i mcp-server`.
    const d = read('docker', ['compose', 'run', '--rm', '-i', 'mcp-server']);
    expect(fact(d, 'container.used')).toBe(true);
    for (const path of [
      'container.capabilities_dropped',
      'container.seccomp',
      'container.image_pinned_by_digest',
      'egress.network_restricted',
    ])
      expect(fact(d, path), path).toBeUndefined();
    expect(d.reasons['supply_chain.deployed_release']).toMatch(/^docker compose run of the service mcp-server: that container's settings/);
  });

  it("runs in the Compose server of that container_name or service among the files: its container's facts are the entry's", () => {
    // stonediggity/unified-docker-mcps: configs/claude_desktop_config.json runs `exec -i mcp-puppeteer`,
    // docker-compose.yml's puppeteer service (`container_name: mcp-puppeteer`, SYS_ADMIN, seccomp unconfined).
    const client = (args: string[]) => out(args).deployments.find((d) => d.name.startsWith('client:'))!;
    const out = (args: string[]) =>
      collectWith(
        inline({
          'claude_desktop_config.json': JSON.stringify({ mcpServers: { puppeteer: { command: 'docker', args } } }),
          'docker-compose.yml': [
            'services:',
            '  puppeteer:',
            '    build: .',
            '    container_name: mcp-puppeteer',
            '    stdin_open: true',
            '    cap_add: [SYS_ADMIN]',
            '    security_opt: ["seccomp:unconfined"]',
            '',
          ].join('\n'),
          Dockerfile: 'FROM node:22-slim\nUSER node\nCMD ["npx", "-y", "puppeteer-mcp-server"]\n',
        }),
      );
    const exec = client(['exec', '-i', 'mcp-puppeteer', 'npx', '-y', 'puppeteer-mcp-server@1.2.0']);
    expect([fact(exec, 'container.seccomp'), fact(exec, 'container.capabilities_dropped'), fact(exec, 'container.runs_as_root')]).toEqual([
      'unconfined',
      false,
      false,
    ]);
    expect(exec.sources['container.seccomp']![0]).toMatchObject({ file: 'docker-compose.yml', line: 7 });
    // What the entry itself decides stays its own: the release it names.
    expect(fact(exec, 'supply_chain.deployed_release')).toBe('exact_version');
    expect(exec.reasons['client.stdio_servers_sandboxed']).toMatch(
      /^the server runs in the container of compose:docker-compose.yml:puppeteer/,
    );
    // A user of its own: root by -u.
    expect(fact(client(['exec', '-i', '-u', 'root', 'mcp-puppeteer', 'node', 'x.js']), 'container.runs_as_root')).toBe(true);
    expect(fact(client(['exec', '-i', '-u', '${USER_ID}', 'mcp-puppeteer', 'node', 'x.js']), 'container.runs_as_root')).toBeUndefined();
    // docker compose run SERVICE: the service's container; the program the client launches is the image's.
    const run = client(['compose', 'run', '--rm', '-i', 'puppeteer']);
    expect(fact(run, 'container.seccomp')).toBe('unconfined');
    expect([fact(run, 'supply_chain.deployed_release'), fact(run, 'client.stdio_servers_release')]).toEqual(['floating', 'floating']);
    // Another container's name is not it.
    expect(fact(client(['exec', '-i', 'other', 'node', 'x.js']), 'container.seccomp')).toBeUndefined();
  });

  it('a whole command line in "command" is read as the shell would split it', () => {
    // Bzcasper/n8n-mcp-server's .roo/mcp.json.
    const d = read('docker run --rm --env-file /home/bobby/projects/n8n-mcp-server/.env -p 3000:8000 n8n-mcp-server');
    expect(fact(d, 'container.used')).toBe(true);
    expect(fact(d, 'container.published_ports')).toBe('all_interfaces');
    // A path with a space is no command line.
    expect(fact(read('C:\\Program Files\\nodejs\\node.exe', ['server.js']), 'container.used')).toBe(false);
  });

  it('a SQL Server connection string that trusts any certificate turns verification off', () => {
    // A-Point-Systems-ltd/ms-sql-mcp's .roo/mcp.json.
    const d = collectWith(
      inline({
        '.roo/mcp.json': JSON.stringify({
          mcpServers: {
            mssql: {
              command: 'node',
              args: ['build/index.js'],
              env: { CONNECTION_STRING: 'Server=DC\\DEV14;Database=x;Trusted_Connection=True;TrustServerCertificate=True' },
            },
          },
        }),
      }),
    ).deployments[0]!;
    expect(fact(d, 'egress.tls_verification_disabled')).toBe(true);
  });
});

describe('a release the client pulls that these files publish', () => {
  const entry = (command: string, args: string[]) => JSON.stringify({ mcpServers: { srv: { command, args } } });
  const builds = (files: Record<string, string>) => {
    const d = collectWith(inline(files)).deployments.find((x) => x.name === 'client:.vscode/mcp.json:srv')!;
    return { value: fact(d, 'supply_chain.builds_server'), why: d.reasons['supply_chain.builds_server'] };
  };

  it("is open: the server's own repository may run its own build, or the one someone published", () => {
    // siakhooi/mcp-mariadb: .vscode/mcp.json runs siakhooi/mcp-mariadb:latest; docker-build.env names it for the workflow.
    const docker = entry('docker', ['run', '-i', '--rm', 'siakhooi/mcp-mariadb:latest']);
    expect(builds({ '.vscode/mcp.json': docker, 'docker-build.env': 'DOCKER_IMAGE_NAME_DOCKER=siakhooi/mcp-mariadb\n' })).toEqual({
      value: undefined,
      why: "the client runs the published siakhooi/mcp-mariadb:latest, and docker-build.env builds or publishes siakhooi/mcp-mariadb (docker-build.env:1): whether the release pulled is this team's own build is not in the files",
    });
    // phamhung075/4genthub's scripts/publish-docker.sh: the name in IMAGE_NAME, built as "$IMAGE_NAME:latest".
    const published = builds({
      '.vscode/mcp.json': entry('docker', ['run', '-i', '--rm', 'agenthub/mcp-server:latest']),
      'scripts/publish-docker.sh': '#!/bin/bash\nIMAGE_NAME="agenthub/mcp-server"\ndocker build --tag "$IMAGE_NAME:latest" .\n',
    });
    expect(published.why).toMatch(/scripts\/publish-docker\.sh builds or publishes agenthub\/mcp-server \(scripts\/publish-docker\.sh:2\)/);
    // redhat-ai-tools/testing-farm-mcp's Makefile: `IMG := localhost/testing-farm-mcp:latest`, `podman build -t $(IMG) .`.
    const img = builds({
      '.vscode/mcp.json': entry('podman', ['run', '-i', '--rm', 'localhost/testing-farm-mcp:latest']),
      Makefile: 'IMG := localhost/testing-farm-mcp:latest\n\nbuild:\n\tpodman build -t $(IMG) .\n',
    });
    expect(img.why).toMatch(/Makefile builds or publishes localhost\/testing-farm-mcp \(Makefile:1\)/);
    // GitHub's publishing workflow: the image is named after the repository it runs in.
    const ghcr = entry('docker', ['run', '-i', '--rm', 'ghcr.io/alexw00/obsidian-rest-mcp:latest']);
    const workflow =
      'env:\n  REGISTRY: ghcr.io\n  IMAGE_NAME: ${{ github.repository }}\njobs:\n  build:\n    steps:\n      - uses: docker/build-push-action@v6\n';
    expect(builds({ '.vscode/mcp.json': ghcr, '.github/workflows/docker-publish.yml': workflow }).why).toMatch(
      /\.github\/workflows\/docker-publish\.yml publishes an image named after the repository it runs in, on ghcr\.io/,
    );
    // The package itself: npm and PyPI.
    expect(
      builds({
        '.vscode/mcp.json': entry('npx', ['-y', '@acme/mcp@1.2.0']),
        'package.json': '{\n  "name": "@acme/mcp",\n  "version": "1.2.0"\n}\n',
      }).why,
    ).toMatch(/package\.json is the package @acme\/mcp \(package\.json:2\)/);
    expect(
      builds({
        '.vscode/mcp.json': entry('uvx', ['acme_mcp@latest']),
        'pyproject.toml': '[project]\nname = "acme-mcp"\nversion = "0.1.0"\n',
      }).why,
    ).toMatch(/pyproject\.toml is the package acme-mcp/);
  });

  it('is a release someone else built when the files publish nothing of that name', () => {
    const docker = entry('docker', ['run', '-i', '--rm', 'ghcr.io/github/github-mcp-server:v0.20.0']);
    expect(builds({ '.vscode/mcp.json': docker, Makefile: 'build:\n\tdocker build -t ghcr.io/acme/tools .\n' }).value).toBe(false);
    // A package of another name, or a name mentioned without a build (a README), says nothing.
    expect(builds({ '.vscode/mcp.json': entry('npx', ['-y', '@acme/mcp']), 'package.json': '{ "name": "@acme/mcp-client" }' }).value).toBe(
      false,
    );
    expect(builds({ '.vscode/mcp.json': docker, 'run.sh': 'docker run -i -t ghcr.io/github/github-mcp-server\n' }).value).toBe(false);
    expect(builds({ '.vscode/mcp.json': docker, 'README.md': 'docker build -t ghcr.io/github/github-mcp-server .\n' }).value).toBe(false);
  });
});

describe('a client entry whose command starts an HTTP server', () => {
  const transport = (command: string, args: string[]) => {
    const d = collectWith(inline({ 'claude_desktop_config.json': JSON.stringify({ mcpServers: { s: { command, args } } }) }))
      .deployments[0]!;
    return fact(d, 'transport.kind') ?? `undecided: ${d.reasons['transport.kind']}`;
  };

  it('is not read as a stdio server: which transport it speaks is open', () => {
    // 270aldo/nexus.core's claude_desktop_config.json launches a FastAPI app under uvicorn.
    expect(transport('python', ['-m', 'uvicorn', 'main:create_app', '--factory', '--host', '0.0.0.0', '--port', '8000'])).toMatch(
      /^undecided: .*uvicorn serves HTTP/,
    );
    expect(transport('uv', ['run', 'gunicorn', 'app:app'])).toMatch(/^undecided: .*gunicorn serves HTTP/);
    expect(transport('uvx', ['some-mcp', '--transport', 'sse'])).toMatch(/^undecided: .*--transport sse/);
    // A port of a database it connects to, or a stdio transport named, is still a stdio server.
    expect(transport('uvx', ['mysql-mcp', '--port', '3306'])).toBe('stdio');
    expect(transport('uvx', ['some-mcp', '--transport', 'stdio'])).toBe('stdio');
  });
});

describe('an entry that writes both a command and a URL', () => {
  it('leaves the transport to the client that reads it', () => {
    // datacline/secure-mcp-gateway's server-java/vscode-mcp-config.json.
    const d = collectWith(
      inline({
        '.vscode/mcp.json': JSON.stringify({
          servers: { gw: { command: 'node', args: [], url: 'http://localhost:8000/mcp', transport: { type: 'http' } } },
        }),
      }),
    ).deployments[0]!;
    expect(fact(d, 'transport.kind')).toBeUndefined();
    expect(d.reasons['transport.kind']).toBe(
      "the entry writes both a command (node) and a URL (http://localhost:8000/mcp): which one the client uses is the client's choice",
    );
  });
});

describe('an entry whose transport key is "transport"', () => {
  it('is cited by that key', () => {
    // XTeam-Pro/xteam-agents' client entry: `"transport": "sse"` beside its url.
    const d = collectWith(
      inline({ '.mcp.json': JSON.stringify({ mcpServers: { x: { url: 'https://mcp.example.com/events', transport: 'sse' } } }) }),
    ).deployments[0]!;
    expect(fact(d, 'transport.legacy_sse')).toBe(true);
    expect(d.sources['transport.legacy_sse']![0]!.why).toBe('transport "sse": the deprecated HTTP+SSE transport');
  });
});

describe("OpenCode's opencode.json", () => {
  // 1764712542/dotfiles' opencode/.config/opencode/opencode.jsonc: servers under `mcp`, a local one's command line as a list.
  const config = [
    '{',
    '  "$schema": "https://opencode.ai/config.json",',
    '  // MCP servers',
    '  "mcp": {',
    '    "context7": {',
    '      "type": "local",',
    '      "command": ["npx", "-y", "@upstash/context7-mcp@1.0.14"],',
    '      "environment": { "CONTEXT7_API_KEY": "{env:CONTEXT7_API_KEY}" },',
    '      "enabled": true',
    '    },',
    '    "github": {',
    '      "type": "remote",',
    '      "url": "https://api.githubcopilot.com/mcp/",',
    '      "headers": { "Authorization": "Bearer ghp_1234567890abcdefghijklmnopqrstuvwxyzAB" }',
    '    },',
    '    "old": { "type": "local", "command": ["uvx", "mcp-server-fetch"], "enabled": false }',
    '  }',
    '}',
  ].join('\n');
  const out = collectWith(inline({ 'opencode/.config/opencode/opencode.jsonc': config }));

  it('is a client configuration: one deployment per enabled entry', () => {
    expect(out.deployments.map((d) => d.name)).toEqual([
      'client:opencode/.config/opencode/opencode.jsonc:context7',
      'client:opencode/.config/opencode/opencode.jsonc:github',
    ]);
    expect(out.notes).toContainEqual({
      file: 'opencode/.config/opencode/opencode.jsonc',
      what: 'server entry "old" is switched off (enabled = false): the client does not start it',
    });
  });

  it('reads its command list, its {env:X} references and its remote headers', () => {
    const local = deploymentOf(out, ':context7');
    expect(fact(local, 'transport.kind')).toBe('stdio');
    expect(fact(local, 'supply_chain.deployed_release')).toBe('exact_version');
    expect(fact(local, 'client.config_secrets_plaintext')).toBe(false);
    expect(local.sources['client.stdio_servers_release']![0]).toMatchObject({ line: 7 });
    const remote = deploymentOf(out, ':github');
    expect(fact(remote, 'transport.kind')).toBe('http');
    expect(fact(remote, 'tls.enabled')).toBe(true);
    expect(fact(remote, 'client.config_secrets_plaintext')).toBe(true);
    expect(JSON.stringify(out)).not.toContain('ghp_1234567890');
    // Nothing about OAuth is written: whether the client runs it depends on the server's answer.
    expect(fact(remote, 'client.uses_oauth')).toBeUndefined();
  });

  it('under another name, by its $schema: the same reading', () => {
    // CowboyLogic/ai-dev's docs/mcp/sample-configs/sample-npx-mcp.json.
    const other = collectWith(inline({ 'docs/sample-configs/sample-npx-mcp.json': config }));
    expect(other.deployments.map((d) => d.name)).toEqual([
      'client:docs/sample-configs/sample-npx-mcp.json:context7',
      'client:docs/sample-configs/sample-npx-mcp.json:github',
    ]);
    expect(fact(deploymentOf(other, ':context7'), 'supply_chain.deployed_release')).toBe('exact_version');
    const oauth = JSON.stringify({
      $schema: 'https://opencode.ai/config.json',
      mcp: { portal: { type: 'remote', url: 'https://mcp.example.com/mcp', oauth: false } },
    });
    expect(fact(collectWith(inline({ 'sample.json': oauth })).deployments[0]!, 'client.uses_oauth')).toBe(false);
    // Without OpenCode's $schema, `mcp` in a file of another name is not read.
    expect(collectWith(inline({ 'docs/sample.json': config.replace(/"\$schema".*\n/, '') })).deployments).toEqual([]);
  });

  it("a remote entry's oauth: an object runs the flow, false turns it off", () => {
    // theherk/commons' .config/opencode/opencode.json.
    const oauth = (value: unknown) =>
      fact(
        collectWith(
          inline({
            'opencode.json': JSON.stringify({ mcp: { portal: { type: 'remote', url: 'https://mcp.example.com/mcp', oauth: value } } }),
          }),
        ).deployments[0]!,
        'client.uses_oauth',
      );
    expect(oauth({ clientId: 'b46c2f7c' })).toBe(true);
    expect(oauth(false)).toBe(false);
    // Gemini CLI's per-server oauth.enabled (stripe/agent-toolkit's gemini-extension.json).
    const gemini = (value: unknown) =>
      fact(
        collectWith(
          inline({
            'gemini-extension.json': JSON.stringify({ name: 's', mcpServers: { s: { httpUrl: 'https://mcp.example.com', oauth: value } } }),
          }),
        ).deployments[0]!,
        'client.uses_oauth',
      );
    expect([gemini({ enabled: true }), gemini({ enabled: false }), gemini({})]).toEqual([true, false, undefined]);
  });
});

describe('client configuration files a walk finds', () => {
  it("Codex's format in a TOML file of another name", () => {
    // influxdata/influxdb3_mcp_server's harness-profiles/codex/*.config.toml.
    const out = collectWith(
      inline({
        'harness-profiles/codex/local.config.toml':
          '[mcp_servers.influxdb]\ncommand = "node"\nargs = ["build/index.js"]\nenabled = false\n',
      }),
    );
    expect(out.files[0]!.kind).toBe('mcp_client_config');
    expect(out.notes.map((n) => n.what)).toEqual([
      'server entry "influxdb" is switched off (enabled = false): the client does not start it',
    ]);
  });

  it("a JSONC file named for MCP, and mcphub.nvim's servers.json", () => {
    // mikedfunk/dots: .config/claude/work_mcps.jsonc and .config/mcphub/servers.json.
    expect([wanted('work_mcps.jsonc', 'claude'), wanted('servers.json', 'mcphub'), wanted('servers.json', 'api')]).toEqual([
      true,
      true,
      false,
    ]);
    const out = collectWith(
      inline({ '.config/mcphub/servers.json': JSON.stringify({ mcpServers: { fetch: { command: 'uvx', args: ['mcp-server-fetch'] } } }) }),
    );
    expect(out.deployments.map((d) => d.name)).toEqual(['client:.config/mcphub/servers.json:fetch']);
  });

  it("Amazon Q Developer CLI's agents", () => {
    // pauljsnider/ai-config-guide's example agent, at Q's own path: `mcpServers` beside the agent's tools.
    expect([wanted('reviewer.json', 'cli-agents'), wanted('reviewer.json', 'agents')]).toEqual([true, false]);
    const agent = {
      $schema: 'https://raw.githubusercontent.com/aws/amazon-q-developer-cli/refs/heads/main/schemas/agent-v1.json',
      name: 'reviewer',
      mcpServers: {
        fetch: { command: 'uvx', args: ['mcp-server-fetch'] },
        git: { command: 'npx', args: ['-y', '@modelcontextprotocol/server-git'] },
      },
      tools: ['*'],
    };
    const out = collectWith(inline({ '.amazonq/cli-agents/reviewer.json': JSON.stringify(agent) }));
    expect(out.deployments.map((d) => d.name)).toEqual([
      'client:.amazonq/cli-agents/reviewer.json:fetch',
      'client:.amazonq/cli-agents/reviewer.json:git',
    ]);
    expect(fact(out.deployments[1]!, 'supply_chain.deployed_release')).toBe('floating');
  });
});

describe('a secrets injector in front of the server', () => {
  it('runs what follows --: its package and version decide the release', () => {
    // BartlettUSA/config's cursor template: `infisical run --projectId=… -- npx -y figma-mcp`.
    const release = (command: string, args: string[]) =>
      fact(
        collectWith(inline({ '.mcp.json': JSON.stringify({ mcpServers: { s: { command, args } } }) })).deployments[0]!,
        'supply_chain.deployed_release',
      );
    expect(release('infisical', ['run', '--projectId=abc', '--', 'npx', '-y', 'figma-mcp'])).toBe('floating');
    expect(release('op', ['run', '--env-file', './.env', '--', 'npx', '-y', '@acme/mcp@1.2.3'])).toBe('exact_version');
    expect(release('doppler', ['run', '--', 'uvx', 'mcp-server-fetch==2025.4.7'])).toBe('exact_version');
    expect(release('aws-vault', ['exec', 'dev', '--', 'npx', '-y', 'figma-mcp'])).toBe('floating');
    // Without `--`, what it runs is not shown.
    expect(release('infisical', ['run', 'npx -y figma-mcp'])).toBeUndefined();
  });
});

describe('go run of a module at a version', () => {
  // SamMorrowDrums/mcp-go-starter's server.json: `go run github.com/SamMorrowDrums/mcp-go-starter/cmd/stdio@latest`.
  const entry = (args: string[], files: Record<string, string> = {}) => {
    const d = collectWith(inline({ '.vscode/mcp.json': JSON.stringify({ servers: { s: { command: 'go', args } } }), ...files }))
      .deployments[0]!;
    return {
      release: fact(d, 'supply_chain.deployed_release'),
      builds: fact(d, 'supply_chain.builds_server'),
      why: d.reasons['supply_chain.builds_server'],
    };
  };

  it('fetches it at launch: floating at latest or a branch, exact at a release or a commit; a local path is a local program', () => {
    expect(entry(['run', 'github.com/acme/mcp/cmd/stdio@latest']).release).toBe('floating');
    expect(entry(['run', '-mod=mod', 'github.com/acme/mcp/cmd/stdio@main']).release).toBe('floating');
    expect(entry(['run', 'github.com/acme/mcp/cmd/stdio@v1.4.2']).release).toBe('exact_version');
    expect(entry(['run', 'github.com/acme/mcp/cmd/stdio@v0.0.0-20250101120000-abcdef123456']).release).toBe('exact_version');
    expect(entry(['run', './cmd/stdio']).release).toBeUndefined();
  });

  it("in the module's own repository, whether the release run is this team's build is open", () => {
    const go = { 'go.mod': 'module github.com/acme/mcp\n\ngo 1.23\n' };
    expect(entry(['run', 'github.com/acme/mcp/cmd/stdio@latest'], go)).toMatchObject({ release: 'floating', builds: undefined });
    expect(entry(['run', 'github.com/other/mcp/cmd/stdio@latest'], go).builds).toBe(false);
  });
});
