// biome-ignore-all lint/suspicious/noTemplateCurlyInString: Compose variables, not JavaScript templates
// Hostile input to every collector, as the MCP tool receives it (files as bytes): each gets a
// clear error or a recorded skip, never a crash, a hang or a guess. The reading from disk
// (symbolic links, FIFOs, /dev/zero, thousands of files) is test/integration/facts-cli.test.ts.
import { describe, expect, it } from 'vitest';
import { LIMITS } from '../../../src/collect/index.js';
import { SignetError } from '../../../src/errors.js';
import { collectWith, inline } from '../../helpers/collect.js';

/** The billion laughs in YAML: nine levels of nine aliases (9^9 nodes if expanded). */
const laughs = (prefix: string) =>
  [
    prefix,
    'a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]',
    ...'bcdefghi'.split('').map((k, i) => `${k}: &${k} [${Array(9).fill(`*${'abcdefghi'[i]}`).join(',')}]`),
  ].join('\n');

/** Nesting `depth` levels deep in flow style: `[[[ ... ]]]` or `{a: {a: ...}}`. */
const deepSeq = (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`;

// Bounded work is the parsers' limits (aliases, depth, bytes), each asserted by the skip it
// records; a hang would meet the runner's test timeout. No wall-clock bound here: on a loaded CI
// machine it measures the machine, not the collector (bench/ measures speed).
const skippedFor = (files: Record<string, string>, path: string) => {
  const out = collectWith(inline(files));
  return { out, skip: out.skipped.find((s) => s.path === path) };
};

describe('hostile files: a recorded skip with the reason, never a crash, a hang or a guess', () => {
  it('a YAML alias bomb in a compose file, a manifest and a kustomization', () => {
    for (const [path, prefix] of [
      ['compose.yaml', 'services:\n  mcp:\n    image: acme/mcp:1\n    x-bomb: *i\nx-laughs:'],
      ['k8s/bomb.yaml', 'apiVersion: v1\nkind: ConfigMap\nmetadata: { name: bomb }\ndata:'],
      ['kustomization.yaml', 'resources: []\nx:'],
    ] as const) {
      const text = laughs(prefix).replace(/\n([a-i]):/g, '\n  $1:');
      const { out, skip } = skippedFor({ [path]: text }, path);
      expect(skip?.reason, path).toMatch(/could not be read|alias/i);
      expect(out.deployments).toEqual([]);
    }
  });

  it('deep nesting in YAML, JSON, JSONC and TOML', () => {
    const depth = 50_000;
    const cases: Record<string, string> = {
      'compose.yaml': `services:\n  mcp:\n    image: acme/mcp:1\n    x-deep: ${deepSeq(depth)}\n`,
      'k8s/deep.yaml': `apiVersion: v1\nkind: ConfigMap\nmetadata: { name: deep }\ndata: ${deepSeq(depth)}\n`,
      '.mcp.json': `{"mcpServers": {"x": {"command": "node", "args": ${deepSeq(depth)}}}}`,
      '.vscode/mcp.json': `// a comment\n{"servers": {"x": {"command": "node", "args": ${deepSeq(depth)}}}}`,
      '.codex/config.toml': `[mcp_servers.x]\ncommand = "node"\nargs = ${deepSeq(depth)}\n`,
    };
    for (const [path, text] of Object.entries(cases)) {
      const { out, skip } = skippedFor({ [path]: text }, path);
      expect(skip?.reason, path).toMatch(/could not be read|deeper|nest/i);
      expect(out.deployments, path).toEqual([]);
    }
  });

  it('a huge single line in each text kind: read within bounds, nothing decided from it', () => {
    const line = 'x'.repeat(LIMITS.fileBytes - 100);
    const cases: Record<string, string> = {
      'nginx.conf': `# ${line}\n`,
      Caddyfile: `# ${line}\n`,
      Dockerfile: `FROM node:24 AS x${line}\n`,
      'compose.yaml': `services:\n  mcp:\n    image: "${line}"\n`,
      '.mcp.json': `{"mcpServers": {"x": {"command": "${line}"}}}`,
      'requirements.txt': `${line}\n`,
      'go.sum': `${line}\n`,
    };
    for (const [path, text] of Object.entries(cases)) {
      // A pattern that backtracks on a megabyte line would meet the runner's test timeout.
      const out = collectWith(inline({ [path]: text }));
      expect(out.files.map((f) => f.path)).toEqual([path]);
      for (const d of out.deployments) expect(JSON.stringify(d.facts).length, path).toBeLessThan(10_000);
    }
  });

  it('NUL bytes and invalid UTF-8 in any kind: skipped as binary or not UTF-8, still hashed', () => {
    const out = collectWith([
      { path: 'compose.yaml', bytes: new TextEncoder().encode('services:\n  mcp:\n    image: a\u0000b\n') },
      { path: 'Dockerfile', bytes: new Uint8Array([0x46, 0x52, 0x4f, 0x4d, 0x20, 0xc3, 0x28, 0x0a]) },
      { path: '.mcp.json', bytes: new Uint8Array([0x7b, 0xff, 0xfe, 0x7d]) },
    ]);
    expect(out.skipped).toEqual([
      { path: '.mcp.json', reason: 'not UTF-8 text' },
      { path: 'Dockerfile', reason: 'not UTF-8 text' },
      { path: 'compose.yaml', reason: 'binary (a NUL byte)' },
    ]);
    expect(out.files.every((f) => /^sha256:[0-9a-f]{64}$/.test(f.sha256))).toBe(true);
    expect(out.deployments).toEqual([]);
  });

  it('a truncated or malformed client configuration: skipped with the line of the error, never read around it', () => {
    const whole =
      '{\n  "mcpServers": {\n    "github": {\n      "command": "npx",\n      "args": ["-y", "@modelcontextprotocol/server-github@2025.4.8"],\n' +
      '      "env": { "GITHUB_PERSONAL_ACCESS_TOKEN": "${GITHUB_TOKEN}" }\n    },\n    "fetch": {\n      "command": "uvx",\n      "args": ["mcp-server-fetch"]\n    }\n  }\n}\n';
    // Whole, it describes two servers; cut after the first, the parser would still recover one of them.
    expect(collectWith(inline({ '.mcp.json': whole })).deployments).toHaveLength(2);
    const cut = whole.slice(0, whole.indexOf('"fetch"') + 20);
    const cases: Record<string, [string, number]> = {
      '.mcp.json': [cut, 9],
      'claude_desktop_config.json': ['{\n  "mcpServers": {\n    "x": { "command": "npx" "args": ["pkg"] }\n  }\n}\n', 3],
      '.vscode/mcp.json': ['// JSONC\n{\n  "servers": {\n    "x": { "command": "node", args: ["server.js"] }\n  }\n}\n', 4],
    };
    for (const [path, [text, line]] of Object.entries(cases)) {
      const { out, skip } = skippedFor({ [path]: text }, path);
      expect(skip?.reason, path).toMatch(new RegExp(`^could not be read as mcp_client_config: not valid JSON .* at line ${line}$`));
      expect(out.deployments, path).toEqual([]);
    }
  });

  it('a client entry of the wrong types: no server guessed from it, a note naming it', () => {
    const out = collectWith(
      inline({
        'manifest.json': JSON.stringify({
          manifest_version: '0.2',
          name: 'x',
          server: { mcp_config: { command: 123, args: 'x', url: { a: 1 } } },
        }),
        'mcp_settings.json': JSON.stringify({
          mcpServers: { s: { command: 'npx', args: [null, { a: 1 }, 'pkg'], env: { API_KEY: { x: 1 } } }, t: { url: '' } },
        }),
        'mcp_agent.config.yaml': 'mcp:\n  servers:\n    a:\n      command: [1, 2]\n      transport: {x: 1}\n    b: 7\n',
      }),
    );
    expect(out.deployments.map((d) => d.name)).toEqual(['client:mcp_settings.json:s']);
    expect(out.notes.map((n) => `${n.file}: ${n.what}`)).toEqual([
      'manifest.json: server entry "x" names neither a command nor a URL as text: no client can start it, and it is not read',
      'mcp_agent.config.yaml: server entry "a" names neither a command nor a URL as text: no client can start it, and it is not read',
      'mcp_settings.json: server entry "t" names neither a command nor a URL as text: no client can start it, and it is not read',
    ]);
    // An object where a value's text belongs is no value: nothing is read from it, not "[object Object]".
    expect(JSON.stringify(out.deployments[0])).not.toContain('[object Object]');
  });

  it('a kustomization that includes itself, and two that include each other', () => {
    const deployment =
      'apiVersion: apps/v1\nkind: Deployment\nmetadata: { name: mcp-server }\nspec:\n  template:\n    spec:\n      containers: [{ name: mcp, image: "acme/mcp-server:1.0.0" }]\n';
    const self = collectWith(inline({ 'k/kustomization.yaml': 'resources: [., deploy.yaml]\n', 'k/deploy.yaml': deployment }));
    expect(self.deployments).toEqual([]);
    expect(self.skipped).toEqual([
      { path: 'k/kustomization.yaml', reason: 'a kustomization that includes itself (k → k): kubectl kustomize refuses the cycle' },
    ]);
    const pair = collectWith(
      inline({
        'a/kustomization.yaml': 'resources: [../b, deploy.yaml]\n',
        'a/deploy.yaml': deployment,
        'b/kustomization.yaml': 'resources: [../a]\n',
      }),
    );
    expect(pair.deployments).toEqual([]);
    expect(pair.skipped.map((x) => x.path)).toEqual(['a/kustomization.yaml', 'b/kustomization.yaml']);
    expect(pair.skipped[0]!.reason).toBe('a kustomization that includes itself (a → b → a): kubectl kustomize refuses the cycle');
  });

  it('compose include cycles and extends cycles: an error naming the cycle, reported as a skip', () => {
    const include = collectWith(
      inline({
        'compose.yaml': 'include: [other.yaml]\nservices:\n  mcp:\n    image: acme/mcp:1\n',
        'other.yaml': 'include: [compose.yaml]\nservices:\n  db:\n    image: postgres:17\n',
      }),
    );
    expect(JSON.stringify(include.skipped) + JSON.stringify(include.notes)).toMatch(/cycle|includes itself|already included/i);
    const ext = collectWith(
      inline({
        'compose.yaml':
          'services:\n  mcp:\n    image: acme/mcp:1\n    extends: { service: other }\n  other:\n    image: acme/mcp:1\n    extends: { service: mcp }\n',
      }),
    );
    expect(JSON.stringify(ext.skipped) + JSON.stringify(ext.notes)).toMatch(/cycle|extends itself/i);
    const selfExt = collectWith(inline({ 'compose.yaml': 'services:\n  mcp:\n    image: acme/mcp:1\n    extends: mcp\n' }));
    expect(JSON.stringify(selfExt.skipped) + JSON.stringify(selfExt.notes)).toMatch(/cycle|extends itself/i);
  });

  it('a service key the spec makes a list, written as a map: a skip that says so, not a runtime error', () => {
    // Forge-Space/mcp-gateway's config/services.yml, a catalog read as Compose: `volumes: {"./w": "/w"}`.
    const out = collectWith(
      inline({ 'services.yml': 'services:\n  fs-mcp:\n    image: acme/fs-mcp:1.0.0\n    volumes:\n      "./w": "/w"\n' }),
    );
    expect(out.deployments).toEqual([]);
    expect(out.skipped).toEqual([
      {
        path: 'services.yml',
        reason: 'could not be read as compose: service fs-mcp: volumes is a map, not a list: Compose refuses the file (services.yml:4)',
      },
    ]);
  });

  it('an nginx include of itself and a Caddy snippet importing itself', () => {
    const nginx = collectWith(
      inline({
        'nginx.conf':
          'http {\n  include nginx.conf;\n  server {\n    listen 80;\n    location /mcp { proxy_pass http://127.0.0.1:8000; }\n  }\n}\n',
      }),
    );
    expect(nginx.deployments.length).toBeLessThanOrEqual(1);
    const caddy = collectWith(
      inline({ Caddyfile: '(loop) {\n  import loop\n}\nmcp.example.com {\n  import loop\n  reverse_proxy /mcp* localhost:8000\n}\n' }),
    );
    expect(caddy.deployments.length).toBeLessThanOrEqual(1);
  });

  it('a parameter expansion shell-quote refuses is read as the variable, in every form and place', () => {
    // razorpay/razorpay-mcp-server's Dockerfile: `${CONFIG:+--config ${CONFIG}}` ("Bad substitution" in
    // shell-quote) made the whole run fail in shell form, and skipped the file in exec form.
    const go =
      'FROM golang:1.24 AS b\nWORKDIR /app\nCOPY . .\nRUN go build -o srv ./cmd/x\nFROM alpine:3.20\nCOPY --from=b /app/srv .\nUSER rzp\n';
    const files = { 'go.mod': 'module x\n\nrequire github.com/mark3labs/mcp-go v0.32.0\n', 'go.sum': 'x\n' };
    for (const entrypoint of [
      'ENTRYPOINT ./srv stdio ${CONFIG:+--config ${CONFIG}} ${LOG_FILE:+--log-file ${LOG_FILE}}',
      'ENTRYPOINT ["sh", "-c", "./srv stdio ${CONFIG:+--config ${CONFIG}}"]',
    ]) {
      const out = collectWith(inline({ ...files, Dockerfile: `${go}${entrypoint}\n` }));
      expect(out.skipped, entrypoint).toEqual([]);
      expect(
        out.deployments.map((d) => [d.name, d.facts['transport']]),
        entrypoint,
      ).toEqual([['image:Dockerfile', { kind: 'stdio' }]]);
    }
    const compose = collectWith(
      inline({ 'compose.yaml': 'services:\n  mcp:\n    image: acme/mcp:1.0.0\n    command: sh -c "srv ${A:+--a ${A}} ${B:-${C:-x}}"\n' }),
    );
    expect(compose.skipped).toEqual([]);
  });
});

describe('hostile file lists (the MCP tool gets names from a client)', () => {
  const refused = (files: { path: string; bytes: Uint8Array }[]) => {
    try {
      collectWith(files);
    } catch (err) {
      expect(err).toBeInstanceOf(SignetError);
      return (err as SignetError).message;
    }
    throw new Error('expected a refusal');
  };
  const b = new TextEncoder().encode('x');

  it('refuses traversal, absolute and Windows-absolute paths, control characters and duplicates after normalising', () => {
    for (const path of ['../etc/passwd', 'a/../../b', '/etc/passwd', 'C:\\Windows\\x', '\\\\server\\share\\x', 'a\u0000b', 'a\nb'])
      expect(refused([{ path, bytes: b }]), path).toMatch(/must be relative, inside the root|given twice/);
    for (const [a, c] of [
      ['a/b.yaml', 'a//b.yaml'],
      ['a/b.yaml', './a/b.yaml'],
      ['a/b.yaml', 'a\\b.yaml'],
      ['a/b.yaml', 'a/x/../b.yaml'],
    ])
      expect(
        refused([
          { path: a!, bytes: b },
          { path: c!, bytes: b },
        ]),
        `${a} ${c}`,
      ).toMatch(/given twice/);
  });

  it('refuses more files than the bound and more bytes in all, before reading them', () => {
    expect(refused(Array.from({ length: LIMITS.files + 1 }, (_, i) => ({ path: `f${i}.txt`, bytes: b })))).toMatch(/too many files/);
    const big = new Uint8Array(LIMITS.fileBytes);
    expect(refused(Array.from({ length: 17 }, (_, i) => ({ path: `big${i}.txt`, bytes: big })))).toMatch(/exceed .* bytes in all/);
  });
});
