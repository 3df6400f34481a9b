// biome-ignore-all lint/suspicious/noTemplateCurlyInString: Dockerfile and Compose ${VAR} references, not JavaScript templates
// The contract of collect(): deterministic bytes, facts valid against the doctrine, and hostile
// or malformed input a recorded skip or a clear error, never a crash or a guess.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { collectFromDisk, kubectlError, wanted } from '../../../src/collect/disk.js';
import { withoutContinuedComments } from '../../../src/collect/dockerfile/continued-comments.js';
import { LIMITS } from '../../../src/collect/index.js';
import { passwordInUrl, SECRET_NAME } from '../../../src/collect/secrets.js';
import { listenHost } from '../../../src/collect/server-args.js';
import { isSignetError } from '../../../src/errors.js';
import { collectWith, doctrine, fact, inline, repoFiles } from '../../helpers/collect.js';
import { ROOT } from '../../helpers/paths.js';
import { tempDir } from '../../helpers/tmp-doctrine.js';

const sample = () => [
  ...repoFiles('docker-compose.yml', 'Dockerfile', 'package.json', 'proxy/Dockerfile', 'proxy/templates/signet.conf.template'),
  ...inline({
    '.mcp.json': JSON.stringify({ mcpServers: { a: { command: 'npx', args: ['-y', 'pkg'] }, b: { url: 'https://x.example/mcp' } } }),
  }),
];

describe('collect()', () => {
  it('gives the same bytes for the same files, whatever their order', () => {
    const a = JSON.stringify(collectWith(sample()));
    const b = JSON.stringify(collectWith(sample().reverse()));
    expect(b).toBe(a);
    expect(JSON.parse(a).files.map((f: { path: string }) => f.path)).toEqual(
      [...JSON.parse(a).files.map((f: { path: string }) => f.path)].sort(),
    );
  });

  it('every deployment is valid against the doctrine facts schema, with a source for every fact it decides', () => {
    const c = collectWith(sample());
    expect(c.deployments.length).toBe(3);
    for (const d of c.deployments) {
      expect(doctrine.validateFacts(d.facts), d.name).toBe(true);
      const leaves = (o: Record<string, unknown>, p = ''): string[] =>
        Object.entries(o).flatMap(([k, v]) =>
          v && typeof v === 'object' && !Array.isArray(v) ? leaves(v as Record<string, unknown>, `${p}${k}.`) : [`${p}${k}`],
        );
      expect(leaves(d.facts).sort()).toEqual(Object.keys(d.sources).sort());
      for (const p of Object.keys(d.sources)) expect(d.undecided).not.toContain(p);
    }
  });

  it('records binary, oversized, non-UTF-8 and malformed files as skipped, with the reason', () => {
    const big = new Uint8Array(LIMITS.fileBytes + 1).fill(0x61);
    const c = collectWith([
      { path: 'img.png', bytes: new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0, 0, 0]) },
      { path: 'huge.yaml', bytes: big },
      { path: 'latin1.conf', bytes: new Uint8Array([0x73, 0x65, 0x72, 0xe9, 0x0a]) },
      ...inline({
        'compose.yaml': 'services:\n  mcp:\n    image: [unclosed\n',
        'bomb/compose.yaml': `a: &a ["x","x","x","x","x","x","x","x","x"]\nb: &b [${'*a,'.repeat(9)}*a]\nc: &c [${'*b,'.repeat(9)}*b]\nd: &d [${'*c,'.repeat(9)}*c]\nservices: *d\n`,
        '.mcp.json': `${'['.repeat(20000)}${']'.repeat(20000)}`,
        'k8s.yaml': 'apiVersion: v1\nkind: Pod\nmetadata: {name: x\n',
      }),
    ]);
    const reasons = Object.fromEntries(c.skipped.map((s) => [s.path, s.reason]));
    expect(reasons['img.png']).toMatch(/binary/);
    expect(reasons['huge.yaml']).toMatch(/larger than/);
    expect(reasons['latin1.conf']).toMatch(/UTF-8/);
    expect(reasons['compose.yaml']).toMatch(/could not be read as compose: YAML line/);
    expect(reasons['bomb/compose.yaml']).toMatch(/could not be read/);
    expect(reasons['k8s.yaml']).toMatch(/could not be read/);
    expect(c.deployments).toEqual([]);
    // Skipped files are still subjects: hashed and listed.
    expect(c.files.map((f) => f.path)).toContain('huge.yaml');
  });

  it('refuses paths out of the root, duplicates and too many files with a clear error', () => {
    const refuse = (files: { path: string; bytes: Uint8Array }[], re: RegExp) => {
      try {
        collectWith(files);
        expect.unreachable();
      } catch (err) {
        expect(isSignetError(err)).toBe(true);
        expect((err as Error).message).toMatch(re);
      }
    };
    const one = new TextEncoder().encode('x');
    refuse([{ path: '../etc/passwd', bytes: one }], /inside the root/);
    refuse([{ path: '/etc/passwd', bytes: one }], /relative/);
    refuse([{ path: 'a/../../b', bytes: one }], /inside the root/);
    refuse([{ path: 'a\u0000b', bytes: one }], /must be relative/);
    refuse(
      [
        { path: 'x', bytes: one },
        { path: './x', bytes: one },
      ],
      /given twice/,
    );
    refuse(
      Array.from({ length: LIMITS.files + 1 }, (_, i) => ({ path: `f${i}`, bytes: one })),
      /too many files/,
    );
  });

  it('never runs or fetches what files name: a compose command or an npx package is only read', () => {
    const c = collectWith(
      inline({
        'compose.yaml': 'services:\n  mcp:\n    image: acme/mcp:1.0.0\n    command: ["sh", "-c", "touch /tmp/signet-collect-ran"]\n',
      }),
    );
    expect(c.deployments).toHaveLength(1);
    expect(existsSync('/tmp/signet-collect-ran')).toBe(false);
  });
});

describe('an image that is an MCP server by its registry name', () => {
  // microsoft/playwright-mcp (test/fixtures/collect-walk names the sources): no MCP SDK among its
  // runtime dependencies, but the MCP registry's `mcpName` in package.json.
  const { files } = JSON.parse(readFileSync(join(ROOT, 'test/fixtures/collect-walk/playwright-mcp-image.json'), 'utf8')) as {
    files: Record<string, string>;
  };

  it('is a deployment of its Dockerfile, its user from the stage ARG', () => {
    const out = collectWith(inline(files));
    expect(out.deployments.map((d) => d.name)).toEqual(['image:Dockerfile']);
    const d = out.deployments[0]!;
    expect(d.sources['container.used']![0]!.why).toBe('an image of an MCP server (mcpName io.github.microsoft/playwright-mcp)');
    expect(fact(d, 'container.runs_as_root')).toBe(false);
    const userLine = files['Dockerfile']!.split('\n').findIndex((l) => l.startsWith('USER ')) + 1;
    expect(d.sources['container.runs_as_root']![0]).toMatchObject({ file: 'Dockerfile', line: userLine });
  });

  it('without mcpName, nothing says the image is an MCP server', () => {
    const pkg = JSON.parse(files['package.json']!) as Record<string, unknown>;
    delete pkg['mcpName'];
    expect(collectWith(inline({ ...files, 'package.json': JSON.stringify(pkg, null, 2) })).deployments).toEqual([]);
  });
});

describe('a comment line inside a continued instruction', () => {
  // MCP-Manager/MCP-Checklists' ngrok_tunnel/Dockerfile: a `#` line explains the next one inside the
  // ENTRYPOINT's JSON array; Docker drops it before parsing, and the image runs supergateway on 8000.
  const dockerfile = [
    'FROM node:22-slim',
    'ENTRYPOINT [ \\',
    '    "bash", \\',
    '    "-c", \\',
    '    "ngrok http 8000 --url $NGROK_URL \\',
    '    # Start Supergateway to proxy stdio from $NPM_MCP as a streamableHttp server',
    '    & npx supergateway --port 8000 --outputTransport streamableHttp --stdio \\"npx --no $NPM_MCP\\"" \\',
    ']',
    'USER node',
    '',
  ].join('\n');

  it('is read as Docker reads it, every line keeping its number', () => {
    expect(withoutContinuedComments(dockerfile).split('\n')).toHaveLength(dockerfile.split('\n').length);
    const d = collectWith(inline({ Dockerfile: dockerfile })).deployments[0]!;
    expect(fact(d, 'transport.kind')).toBe('http');
    expect(d.sources['container.runs_as_root']![0]).toMatchObject({ line: 9 });
  });

  it('leaves a comment between instructions, and a # in an argument, alone', () => {
    const text = '# escape=`\nFROM x\n# a comment\nRUN echo `\n  # dropped\n  "#kept"\n';
    expect(withoutContinuedComments(text)).toBe('# escape=`\nFROM x\n# a comment\nRUN echo `\n`\n  "#kept"\n');
  });
});

describe("an entrypoint script's command continued over lines", () => {
  // pratp7/chrome-devtools-mcp-http's entrypoint.sh: supergateway's flags on the lines after it.
  const image = (script: string) =>
    collectWith(
      inline({
        Dockerfile:
          'FROM node:22-slim\nRUN npm install -g supergateway@3.4.3\nCOPY entrypoint.sh /entrypoint.sh\nENTRYPOINT ["/entrypoint.sh"]\n',
        'entrypoint.sh': script,
      }),
    ).deployments[0]!;

  it('is one command, cited at its first line', () => {
    const d = image(
      '#!/bin/bash\nset -e\nchromium --headless \\\n  --remote-debugging-port=9222 &\n\nsupergateway --stdio "npx -y chrome-devtools-mcp@0.8.1" \\\n  --outputTransport streamableHttp \\\n  --port 8000 \\\n  --path /mcp\n',
    );
    expect(fact(d, 'transport.kind')).toBe('http');
    expect(fact(d, 'transport.legacy_sse')).toBeUndefined();
    expect(d.sources['transport.kind']![0]).toMatchObject({ file: 'entrypoint.sh', line: 6 });
  });
});

describe("supergateway's default output transport", () => {
  // simomagazzu/mcp-shopify's Dockerfile: `supergateway --stdio … --port $PORT`, no --outputTransport.
  const sse = (flags: string) =>
    fact(
      collectWith(
        inline({
          Dockerfile: `FROM node:22-slim\nRUN npm install -g supergateway@3.4.3 shopify-mcp@1.0.7\nCMD supergateway --stdio "shopify-mcp" --port 8000${flags}\n`,
        }),
      ).deployments[0]!,
      'transport.legacy_sse',
    );

  it('is SSE with --stdio, unless --outputTransport says another', () => {
    expect(sse('')).toBe(true);
    expect(sse(' --outputTransport sse')).toBe(true);
    expect(sse(' --outputTransport streamableHttp')).toBeUndefined();
  });
});

describe('a Rust MCP server built with Cargo', () => {
  // elastic/mcp-server-elasticsearch (test/fixtures/collect-walk names the sources; Cargo.lock shortened).
  const { files } = JSON.parse(readFileSync(join(ROOT, 'test/fixtures/collect-walk/rust-rmcp-cargo.json'), 'utf8')) as {
    files: Record<string, string>;
  };

  it('is an MCP server by rmcp, in each Dockerfile, however it is named', () => {
    const out = collectWith(inline(files));
    expect(out.files.map((f) => [f.path, f.kind])).toEqual([
      ['Cargo.lock', 'cargo_lockfile'],
      ['Cargo.toml', 'cargo_manifest'],
      ['Dockerfile', 'dockerfile'],
      ['Dockerfile-8000', 'dockerfile'],
    ]);
    expect(out.deployments.map((d) => d.name)).toEqual(['image:Dockerfile', 'image:Dockerfile-8000']);
    const d = out.deployments[0]!;
    expect(d.sources['container.used']![0]!.why).toBe('an image of an MCP server (rmcp)');
  });

  it('cargo build without --locked: not held to Cargo.lock, its release undecided while one is committed, build scripts run', () => {
    const d = collectWith(inline(files)).deployments[0]!;
    expect(fact(d, 'supply_chain.lockfile_enforced')).toBe(false);
    expect(fact(d, 'supply_chain.install_scripts_disabled')).toBe(false);
    expect(d.sources['supply_chain.install_scripts_disabled']![0]!.why).toBe(
      "cargo build --release runs its dependencies' build scripts and procedural macros",
    );
    expect(d.undecided).toContain('supply_chain.deployed_release');
    // Without a Cargo.lock the build resolves the newest versions the ranges allow.
    const { 'Cargo.lock': _, ...rest } = files;
    const unlocked = { ...rest, Dockerfile: files['Dockerfile']!.replace('COPY Cargo.toml Cargo.lock ./', 'COPY Cargo.toml ./') };
    expect(fact(collectWith(inline(unlocked)).deployments[0]!, 'supply_chain.deployed_release')).toBe('floating');
    // A Cargo.lock the build copies is in the image even where the files read do not hold it.
    expect(collectWith(inline(rest)).deployments[0]!.undecided).toContain('supply_chain.deployed_release');
    // --locked holds it to the lockfile.
    const locked = collectWith(
      inline({ ...files, Dockerfile: files['Dockerfile']!.replaceAll('cargo build --release', 'cargo build --release --locked') }),
    ).deployments[0]!;
    expect(fact(locked, 'supply_chain.lockfile_enforced')).toBe(true);
    expect(fact(locked, 'supply_chain.deployed_release')).toBe('locked');
  });

  it('a walk of the directory reads them too', () => {
    const root = tempDir('signet-cargo-');
    for (const [name, text] of Object.entries({ ...files, 'Dockerfile.md': '# notes\n' })) writeFileSync(join(root, name), text);
    const out = collectFromDisk([root], { root }, doctrine);
    expect(out.files.map((f) => f.path)).toEqual(['Cargo.lock', 'Cargo.toml', 'Dockerfile', 'Dockerfile-8000']);
  });

  it('names about a Dockerfile, or of a template of one, are not one', () => {
    const out = collectWith(
      inline({
        ...files,
        'Dockerfile.md': '# how to build\nFROM is explained here\n',
        'dockerfile-lint.json': '{}',
        // kagent-dev/kagent's templates for the projects its CLI generates.
        'templates/Dockerfile.tmpl':
          '# {{.ProjectName}} MCP server\nFROM python:3.12-slim\nRUN uv sync\nCMD ["python", "-m", "mcp_server"]\n',
        'templates/Dockerfile.j2': 'FROM {{ base_image }}\n',
        // continuedev/continue's syntax grammar for the format.
        'syntaxes/Dockerfile.tmLanguage': '<?xml version="1.0"?>\n<plist version="1.0"><dict/></plist>\n',
      }),
    );
    expect(out.files.filter((f) => f.kind === 'dockerfile').map((f) => f.path)).toEqual(['Dockerfile', 'Dockerfile-8000']);
  });
});

describe('an image that installs an MCP server or bridge from a registry', () => {
  // supercorp-ai/supergateway's docker/base.Dockerfile (commit ffd7d247161d486d5c8f15ef6a65f5492881b128),
  // built from the repository root: nothing beside it says MCP, its install does.
  const base = 'FROM node:20-alpine\n\nRUN npm install -g supergateway\n\nEXPOSE 8000\n\nENTRYPOINT ["supergateway"]\n\nCMD ["--help"]\n';

  it('is a deployment, the install its evidence, its release floating', () => {
    const d = collectWith(inline({ 'docker/base.Dockerfile': base })).deployments;
    expect(d.map((x) => x.name)).toEqual(['image:docker/base.Dockerfile']);
    expect(d[0]!.sources['container.used']).toEqual([
      { file: 'docker/base.Dockerfile', line: 3, why: 'the image installs an MCP package (supergateway)' },
    ]);
    expect(fact(d[0]!, 'supply_chain.deployed_release')).toBe('floating');
  });

  it('by a name with mcp as a word of its own; a name that merely contains the letters is not', () => {
    const image = (run: string) => collectWith(inline({ Dockerfile: `FROM python:3.13-slim\nRUN ${run}\nCMD ["serve"]\n` })).deployments;
    expect(image('pip install mcp-server-fetch==2025.4.7').length).toBe(1);
    expect(image('npm install -g @playwright/mcp@0.0.79').length).toBe(1);
    expect(image('pip install gunicorn mcpo').length).toBe(1);
    // uv's and pipx's installs name their packages as pip's do (samanhappy/mcphub, qdrant/mcp-server-qdrant).
    expect(image('uv tool install mcp-server-fetch').length).toBe(1);
    expect(image('pipx install mcp-server-time==2025.8.4').length).toBe(1);
    expect(image('uv pip install --system mcp-server-qdrant').length).toBe(1);
    expect(image('uv add mcp-server-git').length).toBe(1);
    expect(image('pip install gunicorn flask').length).toBe(0);
    expect(image('npm install -g mcpx-like-tool').length).toBe(0);
  });
});

describe('a package manager installed to install the rest', () => {
  // metatool-ai/metamcp's base stage: `npm install -g pnpm@10.12.0`, then pnpm installs the lockfile.
  const image = (bootstrap: string) =>
    collectWith(
      inline({
        'package.json': '{"dependencies":{"@modelcontextprotocol/sdk":"1.0.0"}}',
        'pnpm-lock.yaml': "lockfileVersion: '9.0'\n",
        Dockerfile: `FROM node:20-slim\nRUN ${bootstrap}\nCOPY package.json pnpm-lock.yaml ./\nRUN pnpm install --frozen-lockfile --ignore-scripts\nUSER node\n`,
      }),
    ).deployments[0]!;

  it('at one exact version installs nothing of the server: the lockfile decides', () => {
    const d = image('npm install -g pnpm@10.12.0');
    expect(fact(d, 'supply_chain.lockfile_enforced')).toBe(true);
    expect(fact(d, 'supply_chain.deployed_release')).toBe('locked');
    expect(fact(d, 'supply_chain.install_scripts_disabled')).toBe(true);
  });

  it("pnpm's version decides its install-script policy: packageManager, or the exact pnpm installed", () => {
    // bytebase/dbhub: package.json `"packageManager": "pnpm@10.17.1"`, corepack enabled, `RUN pnpm install`.
    const scripts = (packageJson: string, bootstrap = 'corepack enable', extra: Record<string, string> = {}) => {
      const d = collectWith(
        inline({
          'package.json': packageJson,
          'pnpm-lock.yaml': "lockfileVersion: '9.0'\n",
          Dockerfile: `FROM node:22-slim\nRUN ${bootstrap}\nCOPY package.json pnpm-*.yaml ./\nRUN pnpm install --frozen-lockfile\nUSER node\n`,
          ...extra,
        }),
      ).deployments[0]!;
      return [fact(d, 'supply_chain.install_scripts_disabled') ?? 'undecided', d.sources['supply_chain.install_scripts_disabled']?.[0]];
    };
    const sdk = '"dependencies": {"@modelcontextprotocol/sdk": "1.0.0"}';
    expect(scripts(`{\n  "packageManager": "pnpm@10.17.1",\n  ${sdk}\n}`)).toEqual([
      true,
      {
        file: 'package.json',
        line: 2,
        why: "every install runs without dependency scripts: pnpm 10 runs no dependency's build scripts unless allowed",
      },
    ]);
    expect(scripts(`{\n  "packageManager": "pnpm@9.15.0",\n  ${sdk}\n}`)[0]).toBe(false);
    expect(scripts(`{${sdk}}`, 'npm install -g pnpm@10.12.0')[0]).toBe(true);
    // A major line is enough: pnpm 8 runs dependency scripts (sparesparrow/mcp-prompts' `npm install -g pnpm@8`).
    expect(scripts(`{${sdk}}`, 'npm install -g pnpm@8')[0]).toBe(false);
    // corepack fetching pnpm at one version (jmagar/pulse's apps/mcp/Dockerfile: `corepack prepare pnpm@9.15.0 --activate`).
    expect(scripts(`{${sdk}}`, 'corepack enable && corepack prepare pnpm@9.15.0 --activate')[0]).toBe(false);
    expect(scripts(`{${sdk}}`, 'corepack enable && corepack prepare pnpm@10.12.0 --activate')[0]).toBe(true);
    expect(scripts(`{${sdk}}`)[0]).toBe('undecided');
    // dangerouslyAllowAllBuilds lets every dependency run its scripts again.
    expect(
      scripts(`{"packageManager": "pnpm@10.17.1", ${sdk}}`, 'corepack enable', {
        'pnpm-workspace.yaml': 'dangerouslyAllowAllBuilds: true\n',
      })[0],
    ).toBe(false);
  });

  it("unpinned too, it is the build's tooling, not the code that runs: the lockfile decides", () => {
    // confluentinc/mcp-confluent's `npm install --global pnpm && pnpm install --frozen-lockfile`.
    // cloudflare/mcp-server-cloudflare's `pnpm install turbo --global`, a monorepo's build runner.
    for (const bootstrap of ['npm install -g pnpm', 'npm install -g typescript pnpm', 'pip install uv', 'npm install -g turbo']) {
      const d = image(bootstrap);
      expect(fact(d, 'supply_chain.lockfile_enforced'), bootstrap).toBe(true);
      expect(fact(d, 'supply_chain.deployed_release'), bootstrap).toBe('locked');
      expect(d.sources['supply_chain.lockfile_enforced']![0]).toMatchObject({ line: 4 });
    }
  });

  it("unpinned before the server's own unpinned install, the server's install is named", () => {
    // qdrant/mcp-server-qdrant's Dockerfile.
    const d = collectWith(
      inline({
        Dockerfile:
          'FROM python:3.11-slim\nRUN pip install --no-cache-dir uv\nRUN uv pip install --system --no-cache-dir mcp-server-qdrant\n',
      }),
    ).deployments[0]!;
    expect(fact(d, 'supply_chain.deployed_release')).toBe('floating');
    expect(d.sources['supply_chain.deployed_release']![0]).toMatchObject({ line: 3 });
    // Install scripts too: cited at the server's own install, not at the bootstrap's.
    expect(d.sources['supply_chain.install_scripts_disabled']![0]).toMatchObject({ line: 3 });
    expect(d.sources['supply_chain.lockfile_enforced']![0]).toMatchObject({ line: 3 });
    // IBM/mcp-context-forge's cedar plugin: uv installed with pip, then run as python -m uv.
    const viaPython = collectWith(
      inline({ Dockerfile: 'FROM python:3.12-slim\nRUN pip install uv && python -m uv pip install mcp-server-fetch\n' }),
    ).deployments[0]!;
    expect(viaPython.sources['supply_chain.deployed_release']![0]!.why).toBe(
      'python -m uv pip install mcp-server-fetch resolves versions at build time',
    );
    // neo4j-contrib/mcp-neo4j: a build backend first, then the server's dependencies.
    const backend = collectWith(inline({ Dockerfile: 'FROM python:3.13-slim\nRUN pip install hatchling\nRUN pip install fastmcp neo4j\n' }))
      .deployments[0]!;
    expect(backend.sources['supply_chain.deployed_release']![0]).toMatchObject({ line: 3 });
  });
});

describe('a Deno server', () => {
  it("is an MCP server by its deno.json's imports", () => {
    // wyattjoh/jmap-mcp: deno.json imports `npm:@modelcontextprotocol/sdk`, the Dockerfile copies it.
    const image = (imports: string) =>
      collectWith(
        inline({
          'deno.json': `{\n  "imports": {\n    ${imports}\n  }\n}\n`,
          Dockerfile:
            'FROM denoland/deno:2.1.4\nWORKDIR /app\nCOPY deno.json deno.lock ./\nCOPY src ./src\nUSER deno\nCMD ["deno", "run", "-A", "src/index.ts"]\n',
        }),
      ).deployments;
    const d = image('"@modelcontextprotocol/sdk": "npm:@modelcontextprotocol/sdk@^1.20.0"');
    expect(d.map((x) => x.name)).toEqual(['image:Dockerfile']);
    expect(d[0]!.sources['container.used']![0]!.why).toBe('an image of an MCP server (@modelcontextprotocol/sdk)');
    expect(image('"@std/assert": "jsr:@std/assert@^1.0.0"')).toEqual([]);
  });
});

describe('an install run as another user', () => {
  it('su-exec and gosu before npm or pip are the install they run', () => {
    // createthis/diffcalculia_mcp's Dockerfile: `RUN su-exec mcpuser npm install`.
    const d = collectWith(
      inline({
        'package.json': '{"dependencies":{"@modelcontextprotocol/sdk":"1.20.0"}}',
        'package-lock.json': '{"lockfileVersion":3}',
        Dockerfile: 'FROM node:22-alpine\nCOPY package*.json ./\nRUN su-exec mcpuser npm ci --ignore-scripts\nUSER node\n',
      }),
    ).deployments[0]!;
    expect([fact(d, 'supply_chain.lockfile_enforced'), fact(d, 'supply_chain.install_scripts_disabled')]).toEqual([true, true]);
  });
});

describe('a redirection on an install line', () => {
  it("`2>/dev/null` and `2>&1` are the shell's, not packages to install", () => {
    // dickens88/dify-db-search-mcp's Dockerfile:7: `pip install --no-cache-dir -e . 2>/dev/null || …`.
    const release = (line: string) => {
      const d = collectWith(inline({ Dockerfile: `FROM python:3.12-slim\nRUN ${line}\nUSER 1000\nCMD ["python", "server.py"]\n` }))
        .deployments[0]!;
      return [fact(d, 'supply_chain.deployed_release'), d.sources['supply_chain.deployed_release']?.[0]?.why];
    };
    expect(release('pip install --no-cache-dir mcp==1.9.0 uvicorn==0.30.0 2>/dev/null')[0]).toBe('exact_version');
    expect(release('pip install mcp==1.9.0 2>&1 | tee /tmp/log')[0]).toBe('exact_version');
    expect(release('pip install mcp 2>/dev/null')).toEqual(['floating', 'pip install mcp resolves versions at build time']);
  });
});

describe('an installer fetched and piped to a shell', () => {
  // pulumi/mcp-server's Dockerfile: `curl -fsSL https://get.pulumi.com | sh` in the final stage,
  // after `npm ci`; oraios/serena's uv installer before its own `uv pip install`.
  const image = (run: string) =>
    collectWith(
      inline({
        'package.json': '{"dependencies":{"@modelcontextprotocol/sdk":"1.0.0"}}',
        'package-lock.json': '{"lockfileVersion":3}',
        Dockerfile: `FROM node:22-slim\nCOPY package*.json ./\nRUN npm ci --ignore-scripts\n${run}\nUSER node\n`,
      }),
    ).deployments[0]!;

  it('installs whatever the URL serves at build time: floating, from no lockfile', () => {
    const d = image(
      'RUN apt-get update && apt-get install -y curl \\\n    && curl -fsSL https://get.pulumi.com | sh \\\n    && mv /root/.pulumi/bin/pulumi /usr/local/bin/',
    );
    expect(fact(d, 'supply_chain.deployed_release')).toBe('floating');
    expect(d.sources['supply_chain.deployed_release']![0]).toMatchObject({ line: 4 });
    expect(d.sources['supply_chain.deployed_release']![0]!.why).toBe(
      'curl -fsSL https://get.pulumi.com | sh resolves versions at build time',
    );
    expect(fact(d, 'supply_chain.lockfile_enforced')).toBe(false);
    // What the fetched script runs is not in the files.
    expect(d.reasons['supply_chain.install_scripts_disabled']).toMatch(/^curl -fsSL https:\/\/get.pulumi.com \| sh:/);
    expect(fact(image('RUN wget -qO- https://deno.land/install.sh | sudo -E bash -s -- v2.1.0'), 'supply_chain.deployed_release')).toBe(
      'floating',
    );
    // nanobot-ai/nanobot's Dockerfile.agent: the shell started through env, with the installer's settings.
    const viaEnv = image(
      'RUN curl -LsSf https://astral.sh/uv/install.sh | env UV_INSTALL_DIR=/usr/local/bin INSTALLER_NO_MODIFY_PATH=1 sh',
    );
    expect(fact(viaEnv, 'supply_chain.deployed_release')).toBe('floating');
    expect(viaEnv.sources['supply_chain.deployed_release']![0]!.why).toMatch(/^curl -LsSf https:\/\/astral.sh\/uv\/install.sh \| env /);
  });

  it("a monorepo's package.json with an SDK says nothing of an image that runs a binary on distroless or scratch", () => {
    // AENDYSTUDIO/NORMALDANCE-INFRASTRUCTURE: the root package.json lists @modelcontextprotocol/sdk; ipfs-service.Dockerfile
    // copies the whole context to build a Go binary it runs on gcr.io/distroless/static:nonroot.
    const service = (final: string, cmd: string) =>
      collectWith(
        inline({
          'package.json': '{"name":"monorepo","dependencies":{"@modelcontextprotocol/sdk":"1.20.0"}}',
          'docker-compose.yml':
            'services:\n  ipfs:\n    build: { context: ., dockerfile: ipfs-service.Dockerfile }\n    ports: ["5001:5001"]\n',
          'ipfs-service.Dockerfile': `FROM golang:1.23 AS build\nWORKDIR /src\nCOPY . .\nRUN go build -o /ipfs-service ./ipfs\nFROM ${final}\nCOPY --from=build /ipfs-service /ipfs-service\nCMD ${cmd}\n`,
        }),
        { named: [] },
      ).deployments.map((d) => d.name);
    expect(service('gcr.io/distroless/static:nonroot', '["/ipfs-service"]')).toEqual([]);
    expect(service('scratch', '["/ipfs-service"]')).toEqual([]);
    // On an image that can run Node, the SDK counts as before.
    expect(service('node:22-slim', '["node", "server.js"]')).toEqual(['compose:docker-compose.yml:ipfs']);
    // So it does where the build compiles the Node program into the binary (`bun build --compile`).
    expect(service('gcr.io/distroless/cc', '["/ipfs-service"]\nRUN bun build --compile ./src/index.ts --outfile /ipfs-service')).toEqual([
      'compose:docker-compose.yml:ipfs',
    ]);
  });

  it("distroless's :nonroot tags run as nonroot; another tag's user is the image's", () => {
    // AENDYSTUDIO/NORMALDANCE-INFRASTRUCTURE's ipfs-service.Dockerfile: a Go binary on gcr.io/distroless/static:nonroot.
    const user = (base: string) =>
      fact(
        collectWith(
          inline({
            Dockerfile: `FROM golang:1.23 AS build\nCOPY go.mod go.sum ./\nRUN go build -o /mcp-server .\nFROM ${base}\nCOPY --from=build /mcp-server /mcp-server\nCMD ["/mcp-server"]\n`,
            'go.mod': 'module example.com/mcp-server\n\nrequire github.com/mark3labs/mcp-go v0.40.0\n',
            'go.sum': 'github.com/mark3labs/mcp-go v0.40.0 h1:x=\n',
          }),
        ).deployments[0]!,
        'container.runs_as_root',
      );
    expect([
      user('gcr.io/distroless/static:nonroot'),
      user('gcr.io/distroless/base-debian12:debug-nonroot'),
      user('gcr.io/distroless/static'),
    ]).toEqual([false, false, undefined]);
  });

  it('npm install -g of a folder links it: no install of its own', () => {
    // PJW2004/mcp-hub-helm-template's Dockerfile:26, after `npm ci` from package-lock.json.
    const d = collectWith(
      inline({
        'package.json': '{"name":"mcp-hub","dependencies":{"@modelcontextprotocol/sdk":"1.0.0"}}',
        'package-lock.json': '{"lockfileVersion":3}',
        Dockerfile:
          'FROM node:22-slim\nWORKDIR /app\nCOPY package.json package-lock.json ./\nRUN npm ci --ignore-scripts\nCOPY . .\nRUN npm install -g .\nUSER node\nCMD ["mcp-hub"]\n',
      }),
    ).deployments[0]!;
    expect([fact(d, 'supply_chain.deployed_release'), fact(d, 'supply_chain.lockfile_enforced')]).toEqual(['locked', true]);
    // A package by name still installs.
    const named = collectWith(inline({ Dockerfile: 'FROM node:22-slim\nRUN npm install -g mcp-hub\nUSER node\nCMD ["mcp-hub"]\n' }))
      .deployments[0]!;
    expect(fact(named, 'supply_chain.deployed_release')).toBe('floating');
  });

  it('go install of a module at a version needs no go.sum of the build; at @latest it floats', () => {
    // acuvity/mcp-servers-registry's mcp-server-fetch/docker/Dockerfile: minibridge at a commit, then an exact pip pin.
    const go = (version: string) =>
      collectWith(
        inline({
          Dockerfile: `FROM golang:1.24 AS bridge\nRUN go install go.acuvity.ai/minibridge@${version}\nFROM python:3.12-slim\nCOPY --from=bridge /go/bin/minibridge /usr/bin/minibridge\nRUN pip install mcp-server-fetch==2025.4.7\nUSER 1000\nENTRYPOINT ["minibridge", "frontend", "--", "mcp-server-fetch"]\n`,
        }),
      ).deployments[0]!;
    const pinned = go('5a873664bd1d9b0b3d0c1c2e3f4a5b6c7d8e9f00');
    expect(fact(pinned, 'supply_chain.deployed_release')).toBe('exact_version');
    expect(pinned.sources['supply_chain.deployed_release']![0]).toMatchObject({ line: 5 });
    expect(fact(go('latest'), 'supply_chain.deployed_release')).toBe('floating');
  });

  it("a tool run by its path is that tool: a venv's pip installs as pip does", () => {
    // nanobot-ai/nanobot's Dockerfile.agent:65-70.
    const d = image('RUN python3 -m venv /opt/v && /opt/v/bin/pip install playwright');
    expect([fact(d, 'supply_chain.deployed_release'), fact(d, 'supply_chain.lockfile_enforced')]).toEqual(['floating', false]);
    expect(d.sources['supply_chain.deployed_release']![0]!.why).toBe('/opt/v/bin/pip install playwright resolves versions at build time');
    expect(fact(image('RUN /opt/v/bin/pip3.12 install playwright==1.55.0'), 'supply_chain.lockfile_enforced')).toBe(false);
    // A program that is no install tool is not read as one.
    expect(fact(image('RUN /opt/v/bin/python -c "print(1)"'), 'supply_chain.deployed_release')).toBe('locked');
  });

  it("a download kept as a file, and NodeSource's apt repository (the OS layer), are no such install", () => {
    expect(fact(image('RUN curl -fsSL https://get.pulumi.com -o install.sh'), 'supply_chain.deployed_release')).toBe('locked');
    expect(
      fact(
        image('RUN curl -fsSL https://deb.nodesource.com/setup_22.x | bash - && apt-get install -y nodejs'),
        'supply_chain.deployed_release',
      ),
    ).toBe('locked');
  });

  it('an installer fetched with ADD and run from its file is one too, unless ADD --checksum fixes it', () => {
    // deslicer/mcp-for-splunk's mcp_itsi/Dockerfile:16-18.
    const added = (add: string) => image(`${add}\nENV UV_INSTALL_DIR=/usr/local/bin\nRUN sh /uv-installer.sh && rm /uv-installer.sh`);
    const d = added('ADD https://astral.sh/uv/install.sh /uv-installer.sh');
    expect([fact(d, 'supply_chain.deployed_release'), fact(d, 'supply_chain.lockfile_enforced')]).toEqual(['floating', false]);
    expect(d.sources['supply_chain.deployed_release']![0]).toMatchObject({
      line: 6,
      why: 'sh /uv-installer.sh (ADD https://astral.sh/uv/install.sh) resolves versions at build time',
    });
    expect(
      fact(
        added(`ADD --checksum=sha256:${'a'.repeat(64)} https://astral.sh/uv/install.sh /uv-installer.sh`),
        'supply_chain.deployed_release',
      ),
    ).toBe('locked');
  });

  it("before the server's own unpinned install, the server's install is named", () => {
    const d = collectWith(
      inline({
        Dockerfile:
          'FROM python:3.11-slim\nRUN curl -LsSf https://astral.sh/uv/install.sh | sh\nRUN uv pip install --system mcp-server-fetch\n',
      }),
    ).deployments[0]!;
    expect(d.sources['supply_chain.deployed_release']![0]).toMatchObject({ line: 3 });
  });
});

describe('an image that carries a plugin', () => {
  // higress-group/higress's plugins/wasm-go/mcp-servers/Dockerfile: FROM scratch, one .wasm file, no command.
  it('is no deployment, and a note says why; with a command it is one', () => {
    const plugin = 'FROM scratch\nARG SERVER_NAME=quark-search\nCOPY ${SERVER_NAME}/main.wasm /plugin.wasm\n';
    const out = collectWith(inline({ 'mcp-servers/Dockerfile': plugin }));
    expect(out.deployments).toEqual([]);
    expect(out.notes).toEqual([
      {
        file: 'mcp-servers/Dockerfile',
        what: 'an image FROM scratch with no ENTRYPOINT or CMD: it cannot run as a container, only carry files (a plugin) for another program, and it is no deployment',
      },
    ]);
    const binary = collectWith(inline({ 'mcp-servers/Dockerfile': `${plugin}ENTRYPOINT ["/mcp-server"]\n` }));
    expect(fact(binary.deployments[0]!, 'container.runs_as_root')).toBe(true);
  });
});

describe('an image whose command names MCP', () => {
  // MCPJam/inspector's discord-app/Dockerfile: CMD ["npm", "start", "--workspace", "@mcpjam/discord-app"].
  const image = (cmd: string) =>
    collectWith(inline({ 'app/Dockerfile': `FROM node:22-slim\nCMD ${cmd}\n` })).deployments.map((d) => d.name);

  it('names it as a word of its own, not inside another name', () => {
    expect(image('["npm", "start", "--workspace", "@mcpjam/discord-app"]')).toEqual([]);
    expect(image('["node", "dist/mcp-server.js"]')).toEqual(['image:app/Dockerfile']);
    expect(image('["python", "-m", "weather_mcp"]')).toEqual(['image:app/Dockerfile']);
  });

  it('or a command its launcher script hands over to, on any branch', () => {
    // Altinity/altinity-mcp: COPY of a prebuilt binary, and docker/entrypoint.sh's `exec /bin/altinity-mcp "$@"`.
    const files = (exec: string) => ({
      Dockerfile:
        'FROM alpine:3.20\nCOPY altinity-mcp /bin/\nCOPY docker/entrypoint.sh /docker/entrypoint.sh\nENTRYPOINT ["/docker/entrypoint.sh"]\n',
      'docker/entrypoint.sh': `#!/bin/sh\nif [ -z "$1" ]; then\n    ${exec} "$@"\nelse\n    exec "$@"\nfi\n`,
    });
    const d = collectWith(inline(files('exec /bin/altinity-mcp'))).deployments;
    expect(d.map((x) => x.name)).toEqual(['image:Dockerfile']);
    expect(d[0]!.sources['container.used']![0]!.why).toBe('an image whose command, or the script it starts, names MCP');
    expect(collectWith(inline(files('exec /bin/altinity-server'))).deployments).toEqual([]);
  });
});

describe('an entrypoint script that hands over on one branch of several', () => {
  it("names no transport: which branch runs is the environment's", () => {
    // PromptExecution/rust-cargo-docs-rag-mcp's docker/entrypoint.sh: `case "$CRATEDOCS_MODE" in http) … stdio) …`.
    const d = collectWith(
      inline({
        Dockerfile:
          'FROM rust:1.85-slim\nRUN cargo install rmcp-docs --version 1.2.3 --locked\nCOPY docker/entrypoint.sh /entrypoint.sh\nENV CRATEDOCS_MODE=http\nENTRYPOINT ["/entrypoint.sh"]\n',
        'docker/entrypoint.sh': [
          '#!/bin/sh',
          'case "${CRATEDOCS_MODE:-http}" in',
          '  http)',
          '    exec cratedocs-mcp http --address 0.0.0.0:8080',
          '    ;;',
          '  stdio)',
          '    exec cratedocs-mcp stdio',
          '    ;;',
          'esac',
          '',
        ].join('\n'),
      }),
    ).deployments[0]!;
    expect(fact(d, 'transport.kind')).not.toBe('stdio');
  });
});

describe("a project's smithery.yaml", () => {
  it('gives the transport its image starts with, where the image names none', () => {
    // tavily-ai/tavily-mcp's smithery.yaml: `startCommand: type: stdio`, building the Dockerfile beside it.
    const image = (smithery: string, cmd = '["node", "build/index.js"]') =>
      collectWith(
        inline({
          'smithery.yaml': smithery,
          Dockerfile: `FROM node:22-slim\nRUN npm install -g @modelcontextprotocol/sdk@1.17.0\nCOPY . .\nCMD ${cmd}\n`,
        }),
      ).deployments[0]!;
    const stdio = image('startCommand:\n  type: stdio\n  configSchema: {}\n');
    expect(fact(stdio, 'transport.kind')).toBe('stdio');
    expect(stdio.sources['transport.kind']![0]).toMatchObject({ file: 'smithery.yaml', line: 2 });
    expect(fact(image('runtime: container\nstartCommand:\n  type: http\n'), 'transport.kind')).toBe('http');
    // Another Dockerfile, a runtime Smithery builds itself, or a command that names its transport: not this.
    expect(fact(image('build:\n  dockerfile: deploy/Dockerfile\nstartCommand:\n  type: stdio\n'), 'transport.kind')).toBeUndefined();
    expect(fact(image('runtime: typescript\nstartCommand:\n  type: http\n'), 'transport.kind')).toBeUndefined();
    // Open, and why (dcolley/companies-house-mcp's image).
    expect(image('runtime: typescript\nstartCommand:\n  type: http\n').reasons['transport.kind']).toMatch(
      /^what the image starts names no transport, nor does a smithery\.yaml or server\.json/,
    );
    expect(fact(image('startCommand:\n  type: stdio\n', '["node", "build/index.js", "--transport", "http"]'), 'transport.kind')).toBe(
      'http',
    );
  });

  it("not over a bridge the image starts bare: that bridge's own transport", () => {
    // mcp-cloud-collection/mcp-hn: `ENTRYPOINT ["mcp-proxy"]` after `npm install -g mcp-proxy`; smithery.yaml
    // describes Smithery starting mcp-hn itself on stdio.
    const bridge = (install: string, entrypoint: string) =>
      collectWith(
        inline({
          'smithery.yaml': 'startCommand:\n  type: stdio\n',
          Dockerfile: `FROM nikolaik/python-nodejs:python3.13-nodejs24-slim\nRUN ${install}\nRUN uv pip install --system mcp-hn\nUSER 1001\nEXPOSE 8080\nENTRYPOINT ${entrypoint}\n`,
        }),
      ).deployments[0]!;
    const npm = bridge('npm install -g mcp-proxy', '["mcp-proxy"]');
    expect(fact(npm, 'transport.kind')).toBe('http');
    expect(npm.sources['transport.kind']![0]).toMatchObject({ file: 'Dockerfile', line: 6 });
    // Python's mcp-proxy is a stdio client when the run hands it a URL.
    const python = bridge('pip install mcp-proxy', '["mcp-proxy"]');
    expect(fact(python, 'transport.kind')).toBeUndefined();
    expect(python.reasons['transport.kind']).toMatch(/^the image starts mcp-proxy with the words of `docker run`/);
  });
});

describe('an image a smithery.yaml builds, its server written without an SDK', () => {
  // kdkiss/mcp-monster-jobs: JSON-RPC answered by hand, `runtime: "container"`, the Dockerfile built
  // for Smithery's registry of MCP servers; pip install from a requirements.txt of minimum versions.
  const files = (smithery: string | null) =>
    inline({
      ...(smithery === null ? {} : { 'smithery.yaml': smithery }),
      Dockerfile:
        'FROM python:3.12-slim\nCOPY . .\nRUN pip install -r requirements.txt\nCMD ["python", "-m", "job_scraper_server.server"]\n',
      'requirements.txt': 'requests>=2.31.0\nflask>=3.0\n',
    });

  it('is an MCP server, started as the smithery.yaml says', () => {
    const c = collectWith(files('runtime: "container"\nbuild:\n  dockerfile: "Dockerfile"\nstartCommand:\n  type: "http"\n'));
    expect(c.deployments).toHaveLength(1);
    const d = c.deployments[0]!;
    expect(fact(d, 'transport.kind')).toBe('http');
    expect(fact(d, 'supply_chain.lockfile_enforced')).toBe(false);
    expect(fact(d, 'supply_chain.deployed_release')).toBe('floating');
  });

  it('not without it, nor when Smithery builds another Dockerfile or a runtime of its own', () => {
    expect(collectWith(files(null)).deployments).toEqual([]);
    expect(collectWith(files('build:\n  dockerfile: deploy/Dockerfile\nstartCommand:\n  type: http\n')).deployments).toEqual([]);
    expect(collectWith(files('runtime: typescript\nstartCommand:\n  type: http\n')).deployments).toEqual([]);
  });
});

describe("an image the MCP Registry's label names, and its server.json", () => {
  // marmotdata/marmot: `LABEL io.modelcontextprotocol.server.name="io.github.marmotdata/marmot"`, its
  // server.json's remote a streamable-http endpoint of the operator's own instance.
  const image = (serverJson: unknown, label = 'io.github.marmotdata/marmot') =>
    collectWith(
      inline({
        Dockerfile: `FROM golang:1.24 AS build\nCOPY . .\nRUN go build -o /marmot .\nFROM debian:trixie-slim\nCOPY --from=build /marmot /marmot\nLABEL io.modelcontextprotocol.server.name="${label}"\nEXPOSE 8080\nCMD ["/marmot", "run"]\n`,
        'server.json': JSON.stringify(serverJson, null, 2),
      }),
    ).deployments;
  const remote = (type: string) => ({
    name: 'io.github.marmotdata/marmot',
    remotes: [{ type, url: 'https://{marmot_host}/api/v1/mcp' }],
  });

  it('is an MCP server, speaking as its server.json says', () => {
    const [d] = image(remote('streamable-http'));
    expect(fact(d!, 'transport.kind')).toBe('http');
    expect(d!.sources['transport.kind']![0]).toMatchObject({ file: 'server.json', line: 5 });
    expect(fact(image(remote('sse'))[0]!, 'transport.legacy_sse')).toBe(true);
    const oci = {
      name: 'io.github.marmotdata/marmot',
      packages: [{ registryType: 'oci', identifier: 'ghcr.io/marmotdata/marmot', transport: { type: 'stdio' } }],
    };
    expect(fact(image(oci)[0]!, 'transport.kind')).toBe('stdio');
  });

  it('cites the OCI package, not an npm package before it; OCI packages that disagree say nothing', () => {
    const npmFirst = {
      name: 'io.github.marmotdata/marmot',
      packages: [
        { registryType: 'npm', identifier: 'marmot', transport: { type: 'stdio' } },
        { registryType: 'oci', identifier: 'ghcr.io/marmotdata/marmot', transport: { type: 'streamable-http' } },
      ],
    };
    const [d] = image(npmFirst);
    expect(fact(d!, 'transport.kind')).toBe('http');
    const line =
      JSON.stringify(npmFirst, null, 2)
        .split('\n')
        .findIndex((l) => l.includes('"streamable-http"')) + 1;
    expect(d!.sources['transport.kind']![0]).toMatchObject({ file: 'server.json', line });
    const two = {
      name: 'io.github.marmotdata/marmot',
      packages: [
        { registryType: 'oci', identifier: 'ghcr.io/marmotdata/sidecar', transport: { type: 'sse' } },
        { registryType: 'oci', identifier: 'ghcr.io/marmotdata/marmot', transport: { type: 'stdio' } },
      ],
    };
    expect(fact(image(two)[0]!, 'transport.kind')).toBeUndefined();
  });

  it('makes the workload and the compose service that run its build MCP servers', () => {
    // anthony-chaudhary/fak: go.mod names the project as the Deployment names its image, and nothing else says MCP.
    const files = (deploy: Record<string, string>) =>
      inline({
        Dockerfile:
          'FROM golang:1.24\nCOPY . .\nRUN go build -o /fak .\nLABEL io.modelcontextprotocol.server.name="io.github.acme/fak"\nCMD ["/fak", "serve", "--addr", ":8080"]\n',
        'go.mod': 'module github.com/acme/fak\n\ngo 1.24\n',
        ...deploy,
      });
    const k8s = collectWith(
      files({
        'deploy/k8s/fak.yaml':
          'apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: fak}\nspec:\n  template:\n    spec:\n      containers: [{name: fak, image: "ghcr.io/acme/fak:1.0.0"}]\n',
      }),
    );
    expect(k8s.deployments.map((x) => x.name)).toEqual(['kubernetes:deploy/k8s/fak.yaml:Deployment/fak']);
    const compose = collectWith(files({ 'compose.yaml': 'services:\n  fak:\n    build: .\n    ports: ["8080:8080"]\n' }), { named: [] });
    expect(compose.deployments.map((x) => x.name)).toEqual(['compose:compose.yaml:fak']);
  });

  it("another server's server.json, or remotes of two kinds, say nothing of it", () => {
    expect(fact(image(remote('streamable-http'), 'io.github.other/x')[0]!, 'transport.kind')).toBeUndefined();
    const two = { name: 'io.github.marmotdata/marmot', remotes: [{ type: 'sse' }, { type: 'streamable-http' }] };
    expect(fact(image(two)[0]!, 'transport.kind')).toBeUndefined();
  });
});

describe('a build that copies its context whole and works in a folder of it', () => {
  // aiming-lab/SimpleMem: `COPY . .`, `WORKDIR /app/MCP`, `pip install -r requirements.txt`; the
  // top's requirements.txt is a research project's, MCP/requirements.txt the server's.
  const files = (extra: Record<string, string> = {}) => ({
    Dockerfile: [
      'FROM python:3.11-slim',
      'WORKDIR /app',
      'RUN adduser --disabled-password --gecos "" appuser',
      'COPY . .',
      'WORKDIR /app/MCP',
      'RUN pip install --no-cache-dir -r requirements.txt',
      'ENTRYPOINT ["/app/scripts/docker-entrypoint.sh"]',
      'CMD ["python", "run.py", "--host", "0.0.0.0", "--port", "8000"]',
      '',
    ].join('\n'),
    'requirements.txt': 'fastapi==0.115.0\nuvicorn==0.32.0\n',
    'MCP/requirements.txt': 'mcp>=1.0.0\nfastapi>=0.109.0\n',
    'scripts/docker-entrypoint.sh': '#!/bin/sh\nset -e\nchown -R appuser:appuser /app/data\nexec gosu appuser "$@"\n',
    'docker-compose.yml': 'services:\n  memsvc:\n    build: .\n    ports: ["8000:8000"]\n',
    ...extra,
  });

  it('reads the manifest where the install runs, and the script the ENTRYPOINT names in the copied tree', () => {
    const d = collectWith(inline(files())).deployments;
    expect(d.map((x) => x.name)).toEqual(['compose:docker-compose.yml:memsvc']);
    expect(d[0]!.sources['container.used']![0]!.why).toBe(
      'service memsvc runs in a container (its build copies a manifest that depends on mcp)',
    );
    expect(fact(d[0]!, 'container.runs_as_root')).toBe(false);
    expect(d[0]!.sources['container.runs_as_root']![0]).toMatchObject({ file: 'scripts/docker-entrypoint.sh', line: 4 });
  });

  it('a walk reads launcher scripts by their names, a prefix before `entrypoint` too', () => {
    // nanobot-ai/nanobot's scripts/agent-entrypoint.sh, copied as the image's ENTRYPOINT.
    expect(['agent-entrypoint.sh', 'docker-entrypoint.sh', 'start-server.sh', 'run.sh'].map((n) => wanted(n))).toEqual([
      true,
      true,
      true,
      true,
    ]);
    expect(['entrypoint.md', 'test-utils.sh', 'entrypoints.py'].map((n) => wanted(n))).toEqual([false, false, false]);
  });

  it('a script outside what the build copies is not the one it starts', () => {
    const other = files({
      Dockerfile: files().Dockerfile.replace('COPY . .', 'COPY MCP/ ./MCP/'),
    });
    const d = collectWith(inline(other)).deployments;
    expect(d.map((x) => x.name)).toEqual(['compose:docker-compose.yml:memsvc']);
    expect(fact(d[0]!, 'container.runs_as_root')).toBeUndefined();
    // Installed at the top, the build is the top's project: its manifest names no MCP SDK.
    const top = files({ Dockerfile: files().Dockerfile.replace('WORKDIR /app/MCP\n', '') });
    expect(collectWith(inline(top)).deployments[0]!.sources['container.used']![0]!.why).not.toMatch(/depends on mcp/);
  });
});

describe('the transport an image starts with', () => {
  const image = (lines: string, files: Record<string, string> = {}) =>
    collectWith(inline({ Dockerfile: `FROM python:3.13-slim\nRUN pip install mcp==1.20.0\n${lines}`, ...files })).deployments[0]!;

  it("is the one its ENTRYPOINT and CMD name, or its environment's; else how it is run decides", () => {
    // aRustyDev/zettelkasten-mcp's docker/Dockerfile.
    const http = image('ENTRYPOINT ["python", "-m", "zettelkasten_mcp.main"]\nCMD ["--transport", "http"]\n');
    expect(fact(http, 'transport.kind')).toBe('http');
    expect(http.sources['transport.kind']![0]).toMatchObject({ line: 4, why: 'started with --transport http, as the image starts' });
    // github/github-mcp-server's Dockerfile: `ENTRYPOINT ["/server/github-mcp-server"]`, `CMD ["stdio"]`.
    expect(fact(image('ENTRYPOINT ["/server/github-mcp-server"]\nCMD ["stdio"]\n'), 'transport.kind')).toBe('stdio');
    const sse = image('CMD ["python", "server.py", "--transport", "sse"]\n');
    expect([fact(sse, 'transport.kind'), fact(sse, 'transport.legacy_sse')]).toEqual(['http', true]);
    const cron = image('ENV MCP_CRON_SERVER_TRANSPORT=sse\nCMD ["mcp-cron"]\n');
    expect([fact(cron, 'transport.kind'), fact(cron, 'transport.legacy_sse')]).toEqual(['http', true]);
    const env = image('ENV MCP_TRANSPORT=stdio\nCMD ["python", "mcp_server.py"]\n');
    expect(env.sources['transport.kind']![0]).toMatchObject({ line: 3, why: 'MCP_TRANSPORT=stdio, as the image starts' });
    // Nothing named: an EXPOSE alone does not say the server serves MCP there.
    expect(fact(image('EXPOSE 8000\nCMD ["python", "mcp_server.py"]\n'), 'transport.kind')).toBeUndefined();
  });

  it("Go's one-dash flags name the transport and the listen address as two dashes do", () => {
    // Protobomb/mcp-server-framework's Dockerfile: `CMD ["-transport=http-streams", "-addr=8080"]`.
    const go = (cmd: string) => image(`ENTRYPOINT ["/app/server"]\nCMD ${cmd}\n`);
    expect(fact(go('["-transport=http-streams", "-addr=8080"]'), 'transport.kind')).toBe('http');
    const sse = go('["-transport", "sse", "-host", "0.0.0.0"]');
    expect([fact(sse, 'transport.kind'), fact(sse, 'transport.legacy_sse')]).toEqual(['http', true]);
    expect(sse.sources['transport.legacy_sse']![0]!.why).toMatch(/-transport sse/);
    expect(fact(go('["-transport=stdio"]'), 'transport.kind')).toBe('stdio');
    expect(fact(go('["-sse", "-port", "9000"]'), 'transport.legacy_sse')).toBe(true);
    expect(listenHost(['/app/server', '-transport', 'sse', '-host', '127.0.0.1'])).toMatchObject({ flag: '-host', loopback: true });
    expect(listenHost(['/app/server', '-addr=0.0.0.0:8080'])).toMatchObject({ flag: '-addr', loopback: false });
  });

  it('--mode with a transport for its value, and a port beside a transport variable', () => {
    // Jpisnice/shadcn-ui-mcp-server's Dockerfile: `ENV MCP_TRANSPORT_MODE=sse`, then `--mode sse --port 7423`.
    const shadcn = image('ENV MCP_TRANSPORT_MODE=sse\nCMD ["node", "build/index.js", "--mode", "sse", "--port", "7423"]\n');
    expect([fact(shadcn, 'transport.kind'), fact(shadcn, 'transport.legacy_sse')]).toEqual(['http', true]);
    expect(fact(image('ENV MCP_TRANSPORT_MODE=sse\nCMD ["node", "build/index.js", "--port", "7423"]\n'), 'transport.legacy_sse')).toBe(
      true,
    );
    // A mode that names no transport says nothing of one.
    expect(fact(image('CMD ["node", "build/index.js", "--mode", "production"]\n'), 'transport.kind')).toBeUndefined();
  });

  it("ASP.NET Core's listen URLs: the C# SDK's HTTP transport", () => {
    // estebanjosse/mcp-server-template's Dockerfile: `ENV ASPNETCORE_URLS=http://+:5000`.
    const aspnet = image('ENV ASPNETCORE_URLS=http://+:5000\nENTRYPOINT ["dotnet", "Host.Http.dll"]\n');
    expect(fact(aspnet, 'transport.kind')).toBe('http');
    expect(aspnet.sources['transport.kind']![0]).toMatchObject({ line: 3 });
    expect(fact(image('ENV ASPNETCORE_HTTP_PORTS=8080\nENTRYPOINT ["dotnet", "Host.Http.dll"]\n'), 'transport.kind')).toBe('http');
  });

  it("the product's own transport variable, not a logger's", () => {
    // neo4j-contrib/mcp-neo4j's Dockerfile: `ENV NEO4J_TRANSPORT="stdio"`.
    expect(fact(image('ENV NEO4J_TRANSPORT="stdio"\nCMD ["mcp-neo4j-cypher"]\n'), 'transport.kind')).toBe('stdio');
    expect(fact(image('ENV LOG_TRANSPORT=http\nCMD ["python", "server.py"]\n'), 'transport.kind')).toBeUndefined();
    // One named for MCP is an MCP server's whatever else it names.
    expect(fact(image('ENV EMAIL_MCP_TRANSPORT=http\nCMD ["python", "server.py"]\n'), 'transport.kind')).toBe('http');
  });

  it("a debugger's flags are not the server's", () => {
    // reportportal/reportportal-mcp-server's debug.dockerfile: Delve listens on 52202, the server speaks stdio.
    expect(fact(image('ENTRYPOINT ["dlv", "exec", "/app/server", "--headless", "--listen=:52202"]\n'), 'transport.kind')).toBeUndefined();
    const after = image('ENTRYPOINT ["dlv", "exec", "/app/server", "--headless", "--listen=:52202", "--", "--transport", "http"]\n');
    expect(fact(after, 'transport.kind')).toBe('http');
    // Delve's flags before `exec` (inference-gateway/inference-gateway's Dockerfile.debug).
    const before = image('CMD ["/dlv", "--listen=:2345", "--headless=true", "--api-version=2", "exec", "/app/inference-gateway"]\n');
    expect(fact(before, 'transport.kind')).toBeUndefined();
  });

  it('a mode variable set to a transport, by its value', () => {
    // reza-gholizade/k8s-mcp-server's docker-compose.yml: `SERVER_MODE=sse`, which main.go reads.
    const sse = image('ENV SERVER_MODE=sse\nCMD ["./k8s-mcp-server"]\n');
    expect([fact(sse, 'transport.kind'), fact(sse, 'transport.legacy_sse')]).toEqual(['http', true]);
    expect(fact(image('ENV MCP_MODE=stdio\nCMD ["./server"]\n'), 'transport.kind')).toBe('stdio');
    expect(fact(image('ENV MCP_MODE=http\nCMD ["./server"]\n'), 'transport.kind')).toBe('http');
    // `http` under a name that does not say MCP, a mode that names no transport, a logger's mode: nothing.
    for (const env of ['SERVER_MODE=http', 'APP_MODE=production', 'LOG_MODE=stdio', 'MODEL=sse'])
      expect(fact(image(`ENV ${env}\nCMD ["./server"]\n`), 'transport.kind'), env).toBeUndefined();
  });

  it('the subcommand http after the binary; a nested TRANSPORT__TYPE setting', () => {
    // elastic/mcp-server-elasticsearch's Dockerfile-8000: `ENTRYPOINT [".../elasticsearch-core-mcp-server"]`, `CMD ["http"]`.
    const sub = image('ENTRYPOINT ["/usr/local/bin/elasticsearch-core-mcp-server"]\nCMD ["http"]\n');
    expect(sub.sources['transport.kind']![0]).toMatchObject({ line: 4, why: 'started with the transport word http, as the image starts' });
    expect(fact(image('ENTRYPOINT ["/usr/local/bin/srv"]\nCMD ["http", "--sse"]\n'), 'transport.kind')).toBe('http');
    // `http` as some argument's value, not the subcommand, says nothing.
    expect(fact(image('CMD ["python", "server.py", "http", "extra"]\n'), 'transport.kind')).toBeUndefined();
    // apollographql/apollo-mcp-server's Dockerfile: `ENV APOLLO_MCP_TRANSPORT__TYPE=streamable_http`.
    const nested = image('ENV APOLLO_MCP_TRANSPORT__TYPE=streamable_http\nENTRYPOINT ["/apollo-mcp-server"]\n');
    expect(nested.sources['transport.kind']![0]).toMatchObject({
      line: 3,
      why: 'APOLLO_MCP_TRANSPORT__TYPE=streamable_http, as the image starts',
    });
  });
});

describe('npm rebuild after an install without scripts', () => {
  // wonderwhy-er/DesktopCommanderMCP's Dockerfile: `npm install --ignore-scripts`, then
  // `npm rebuild @vscode/ripgrep` to run that package's postinstall (it downloads ripgrep).
  const image = (rebuild: string) =>
    collectWith(
      inline({
        'package.json': '{"dependencies":{"@modelcontextprotocol/sdk":"1.0.0"}}',
        'package-lock.json': '{"lockfileVersion":3}',
        Dockerfile: `FROM node:22-slim\nCOPY package*.json ./\nRUN npm ci --ignore-scripts\nRUN ${rebuild}\nUSER node\n`,
      }),
    ).deployments[0]!;

  it('runs the scripts the install skipped; with --ignore-scripts it runs none', () => {
    const d = image('npm rebuild @vscode/ripgrep');
    expect(fact(d, 'supply_chain.install_scripts_disabled')).toBe(false);
    expect(d.sources['supply_chain.install_scripts_disabled']![0]).toMatchObject({ line: 4 });
    expect(fact(image('npm rebuild --ignore-scripts'), 'supply_chain.install_scripts_disabled')).toBe(true);
    expect(fact(image('pnpm rebuild sharp'), 'supply_chain.install_scripts_disabled')).toBe(false);
  });
});

describe('YAML with a top-level services: that is no Compose file', () => {
  // Azure-Samples/mcp-container-ts's azure.yaml (the Azure Developer CLI's), beside its real compose file.
  const azd =
    'name: mcp-container-ts\nmetadata:\n    template: mcp-container-ts@0.1.0\nservices:\n    mcp-container-ts:\n        project: .\n        host: containerapp\n        language: ts\n';
  const render = 'services:\n  - type: web\n    name: mcp\n    runtime: docker\n';
  const gitlab = 'stages: [test]\nservices:\n  - docker:dind\ntest:\n  script: [npm test]\n';

  // theherk/commons' .config/lazygit/config.yml: its git hosts, a map of strings.
  const lazygit =
    'gui:\n  theme: dark\nservices:\n  "dnb.ghe.com": "github:dnb.ghe.com"\n  gitlab.example.com:2222: gitlab:gitlab.example.com\n';

  it('is read as other, never as an override or a project', () => {
    const out = collectWith(inline({ 'azure.yaml': azd, 'render.yaml': render, '.gitlab-ci.yml': gitlab, 'lazygit/config.yml': lazygit }));
    expect(out.files.map((f) => [f.path, f.kind])).toEqual([
      ['.gitlab-ci.yml', 'other'],
      ['azure.yaml', 'other'],
      ['lazygit/config.yml', 'other'],
      ['render.yaml', 'other'],
    ]);
    // A service written as a flow mapping or an anchor is a Compose service still.
    const flow = collectWith(inline({ 'compose.yaml': 'services:\n  mcp: { image: "acme/mcp:1.0.0" }\n' }));
    expect(flow.files[0]!.kind).toBe('compose');
    const anchored = collectWith(inline({ 'compose.yaml': 'services:\n  mcp: &base\n    image: acme/mcp:1.0.0\n' }));
    expect(anchored.files[0]!.kind).toBe('compose');
    expect(out.notes).toEqual([]);
  });

  it("an include: that names one file is Dart's analysis options; Compose's include is a list", () => {
    // 0x1D-1983/book-api-mcp-docker-compose-bundle's analysis_options.yaml.
    const dart = 'include: package:lints/recommended.yaml\nlinter:\n  rules:\n    - prefer_const_constructors\n';
    const compose = 'include:\n  - ./db/compose.yaml\n';
    const out = collectWith(inline({ 'analysis_options.yaml': dart, 'stack/compose.yaml': compose }));
    expect(out.files.map((f) => [f.path, f.kind])).toEqual([
      ['analysis_options.yaml', 'other'],
      ['stack/compose.yaml', 'compose'],
    ]);
  });
});

describe('Java, .NET and older Rust builds of an MCP server', () => {
  const image = (files: Record<string, string>) => collectWith(inline(files)).deployments.map((d) => d.name);
  const dockerfile = (from: string) => `FROM ${from}\nWORKDIR /app\nCOPY . .\nCMD ["./start"]\n`;

  it('are MCP servers by the SDK their build file names', () => {
    // Spring AI's MCP server starter (ShahMinulAmin/mcp), the C# SDK (estebanjosse/mcp-server-template),
    // the Rust SDK's crates before rmcp (PromptExecution/rust-cargo-docs-rag-mcp).
    const pom =
      '<project>\n  <dependencies>\n    <dependency>\n      <groupId>org.springframework.ai</groupId>\n      <artifactId>spring-ai-starter-mcp-server-webmvc</artifactId>\n    </dependency>\n  </dependencies>\n</project>\n';
    expect(image({ Dockerfile: dockerfile('eclipse-temurin:21-jre'), 'pom.xml': pom })).toEqual(['image:Dockerfile']);
    const csproj =
      '<Project Sdk="Microsoft.NET.Sdk.Web">\n  <ItemGroup>\n    <PackageReference Include="ModelContextProtocol.AspNetCore" Version="0.4.0-preview.3" />\n  </ItemGroup>\n</Project>\n';
    expect(image({ Dockerfile: dockerfile('mcr.microsoft.com/dotnet/aspnet:9.0'), 'Host.Http.csproj': csproj })).toEqual([
      'image:Dockerfile',
    ]);
    // Kotlin's SDK and Quarkus' MCP server.
    const gradle = 'dependencies {\n  implementation("io.modelcontextprotocol:kotlin-sdk:0.5.0")\n}\n';
    expect(image({ Dockerfile: dockerfile('eclipse-temurin:21-jre'), 'build.gradle.kts': gradle })).toEqual(['image:Dockerfile']);
    const quarkus =
      '<project><dependencies><dependency><artifactId>quarkus-mcp-server-sse</artifactId></dependency></dependencies></project>\n';
    expect(image({ Dockerfile: dockerfile('eclipse-temurin:21-jre'), 'pom.xml': quarkus })).toEqual(['image:Dockerfile']);
    const cargo =
      '[package]\nname = "docs-rag"\n\n[dependencies]\nmcp-server = { git = "https://github.com/modelcontextprotocol/rust-sdk" }\n';
    expect(image({ Dockerfile: dockerfile('rust:1.88'), 'Cargo.toml': cargo })).toEqual(['image:Dockerfile']);
  });

  it('and by the Swift, Ruby, PHP and Elixir SDKs their manifests name', () => {
    // sassiwalid/spm-analyzer-mcp's Package.swift, on the official Swift SDK.
    const swift =
      'let package = Package(\n  name: "spm-analyzer",\n  dependencies: [\n    .package(url: "https://github.com/modelcontextprotocol/swift-sdk.git", from: "0.9.0"),\n  ]\n)\n';
    const out = collectWith(inline({ Dockerfile: dockerfile('swift:6.1'), 'Package.swift': swift }));
    expect(out.deployments.map((d) => d.name)).toEqual(['image:Dockerfile']);
    expect(out.deployments[0]!.sources['container.used']![0]!.why).toBe('an image of an MCP server (modelcontextprotocol/swift-sdk)');
    expect(image({ Dockerfile: dockerfile('ruby:3.4'), Gemfile: "source 'https://rubygems.org'\ngem 'mcp', '~> 0.3'\n" })).toEqual([
      'image:Dockerfile',
    ]);
    expect(image({ Dockerfile: dockerfile('php:8.4'), 'composer.json': '{"require": {"php-mcp/server": "^3.3"}}' })).toEqual([
      'image:Dockerfile',
    ]);
    expect(image({ Dockerfile: dockerfile('elixir:1.18'), 'mix.exs': 'defp deps do\n  [{:hermes_mcp, "~> 0.14"}]\nend\n' })).toEqual([
      'image:Dockerfile',
    ]);
    // A Gemfile with no MCP SDK is another program.
    expect(image({ Dockerfile: dockerfile('ruby:3.4'), Gemfile: "gem 'rails', '~> 8.0'\n" })).toEqual([]);
    expect([wanted('Package.swift'), wanted('Gemfile'), wanted('composer.json'), wanted('mix.exs')]).toEqual([true, true, true, true]);
  });

  it('or by the jar their build copies, which the Maven or Gradle project of its context builds', () => {
    // bubua12/nacos-mcp-server: `COPY nacos-mcp-server-*.jar app.jar`, the pom.xml beside it on Spring AI's MCP server starter.
    const jar = (copy: string) => `FROM eclipse-temurin:21-jre\nWORKDIR /app\n${copy}\nENTRYPOINT ["java", "-jar", "app.jar"]\n`;
    const pom =
      '<project><dependencies><dependency><artifactId>spring-ai-starter-mcp-server-webflux</artifactId></dependency></dependencies></project>\n';
    expect(image({ Dockerfile: jar('COPY nacos-mcp-server-*.jar app.jar'), 'pom.xml': pom })).toEqual(['image:Dockerfile']);
    expect(image({ Dockerfile: jar('COPY target/app-1.0.jar app.jar'), 'pom.xml': pom })).toEqual(['image:Dockerfile']);
    const gradle = 'dependencies {\n  implementation("io.modelcontextprotocol:kotlin-sdk:0.5.0")\n}\n';
    expect(image({ Dockerfile: jar('COPY build/libs/*.jar app.jar'), 'build.gradle.kts': gradle })).toEqual(['image:Dockerfile']);
    // A jar of a project with no MCP SDK is another program.
    expect(image({ Dockerfile: jar('COPY target/app-1.0.jar app.jar'), 'pom.xml': '<project></project>\n' })).toEqual([]);
  });

  it("and a build file naming none is another program's: Spring AI's MCP client starter", () => {
    const client =
      '<project><dependencies><dependency><artifactId>spring-ai-starter-mcp-client</artifactId></dependency></dependencies></project>\n';
    expect(image({ Dockerfile: dockerfile('eclipse-temurin:21-jre'), 'pom.xml': client })).toEqual([]);
    // Walked, a Compose service built from it is no server either (docker/compose-for-agents' akka agent).
    const root = tempDir('signet-jvm-');
    writeFileSync(join(root, 'compose.yml'), 'services:\n  agent:\n    build: .\n    ports: ["9000:9000"]\n');
    writeFileSync(join(root, 'Dockerfile'), dockerfile('eclipse-temurin:21-jre'));
    writeFileSync(join(root, 'pom.xml'), client);
    const out = collectFromDisk([root], { root }, doctrine);
    expect(out.files.map((f) => f.path)).toContain('pom.xml');
    expect(out.deployments).toEqual([]);
  });
});

describe('an image that starts its tests or a shell', () => {
  it('runs no server: a note, no deployment', () => {
    // datacline/secure-mcp-gateway's server-java/Dockerfile.test; sitbon/magg's last stage, `CMD ["bash"]`.
    const pom =
      '<project><dependencies><dependency><artifactId>spring-ai-starter-mcp-server-webmvc</artifactId></dependency></dependencies></project>\n';
    const test = collectWith(
      inline({
        'server-java/Dockerfile.test': 'FROM maven:3.9-eclipse-temurin-21\nWORKDIR /app\nCOPY . .\nCMD ["mvn", "clean", "test"]\n',
        'server-java/pom.xml': pom,
      }),
    );
    expect(test.deployments).toEqual([]);
    expect(test.notes.map((n) => n.what)).toContain('the image starts its tests (mvn clean test), not a server: no deployment of its own');
    // inkeep/agents' Dockerfile.manage-ui-test: one workspace's tests in a bash -lc script.
    for (const cmd of [
      '["bash", "-lc", "pnpm --filter @inkeep/agents-manage-ui test --run"]',
      '["./gradlew", "--no-daemon", "check"]',
      '["pnpm", "-r", "test"]',
    ]) {
      const out = collectWith(
        inline({
          'mcp/Dockerfile': `FROM node:24-slim\nRUN npm install -g @modelcontextprotocol/server-everything@2025.9.25\nCMD ${cmd}\n`,
        }),
      );
      expect(out.deployments, cmd).toEqual([]);
    }
    const shell = collectWith(inline({ 'mcp-tools/Dockerfile': 'FROM python:3.13-slim\nRUN pip install mcp==1.20.0\nCMD ["bash"]\n' }));
    expect(shell.deployments).toEqual([]);
    // Dezocode/mcp-system's Dockerfile.production: `CMD ["mcp-universal", "--help"]`.
    const help = collectWith(
      inline({ Dockerfile: 'FROM python:3.13-slim\nRUN pip install mcp==1.20.0\nCMD ["mcp-universal", "--help"]\n' }),
    );
    expect(help.deployments).toEqual([]);
    expect(help.notes.map((n) => n.what)).toContain(
      'the image starts a program that prints its help (mcp-universal --help), not a server: no deployment of its own',
    );
    // The same image started as a server is one.
    const server = collectWith(
      inline({ 'mcp-tools/Dockerfile': 'FROM python:3.13-slim\nRUN pip install mcp==1.20.0\nCMD ["python", "server.py"]\n' }),
    );
    expect(server.deployments.map((d) => d.name)).toEqual(['image:mcp-tools/Dockerfile']);
  });
});

describe('an image started with an MCP endpoint to call', () => {
  it('is a client of that server: a note, no deployment', () => {
    // freemangh/mcp-demo-server's go-server/cmd/testclient/Dockerfile.
    const out = collectWith(
      inline({
        'cmd/testclient/Dockerfile':
          'FROM gcr.io/distroless/static\nCOPY mcp-testclient /mcp-testclient\nENTRYPOINT ["/mcp-testclient"]\nCMD ["-i", "-url", "http://localhost:8080/mcp"]\n',
      }),
    );
    expect(out.deployments).toEqual([]);
    expect(out.notes).toContainEqual({
      file: 'cmd/testclient/Dockerfile',
      what: 'the image is started with the MCP endpoint http://localhost:8080/mcp to call: a client of that server, and no deployment of its own',
    });
  });
});

describe('an image that runs the MCP Inspector', () => {
  it('is a client: a note, no deployment', () => {
    // mcp-use/mcp-use's libraries/typescript/packages/inspector/Dockerfile.
    const out = collectWith(
      inline({
        'inspector/Dockerfile':
          'FROM node:22-slim\nENV PORT=8080\nCMD ["sh", "-c", "exec npx @mcp-use/inspector --port \\"${PORT:-8080}\\" --no-open"]\n',
      }),
    );
    expect(out.deployments).toEqual([]);
    expect(out.notes.map((n) => n.what)).toContainEqual(
      expect.stringMatching(/^the image runs an MCP client \(sh -c exec npx @mcp-use\/inspector/),
    );
  });
});

describe("a walk reads an image's launcher script", () => {
  it('so the user it drops to decides, as when the script is named', () => {
    // nordeim/Security-MCP-Server: USER root, tini starting docker/entrypoint.sh, whose exec_app()
    // drops to mcp with gosu when it runs as root and execs the server directly otherwise.
    const root = tempDir('signet-launcher-');
    mkdirSync(join(root, 'docker'));
    writeFileSync(
      join(root, 'Dockerfile'),
      'FROM python:3.12-slim\nRUN pip install mcp==1.2.0\nCOPY docker/entrypoint.sh /entrypoint.sh\nUSER root\nENTRYPOINT ["/usr/bin/tini", "--", "/entrypoint.sh"]\nCMD ["python", "-m", "mcp_server.server"]\n',
    );
    writeFileSync(
      join(root, 'docker/entrypoint.sh'),
      '#!/usr/bin/env bash\nexec_app() {\n  if [[ "$(id -u)" -eq 0 ]]; then\n    exec gosu mcp:mcp python -m mcp_server.server\n  else\n    exec python -m mcp_server.server\n  fi\n}\nexec_app\n',
    );
    writeFileSync(join(root, 'docker/notes.sh'), 'echo not a launcher\n');
    const out = collectFromDisk([root], { root }, doctrine);
    expect(out.files.map((f) => f.path)).toEqual(['Dockerfile', 'docker/entrypoint.sh']);
    const d = out.deployments[0]!;
    expect(fact(d, 'container.runs_as_root')).toBe(false);
    expect(d.sources['container.runs_as_root']![0]).toMatchObject({ file: 'docker/entrypoint.sh', line: 4 });
  });
});

describe('a privilege drop under a condition other than the user id', () => {
  it('leaves who runs the server undecided: the other branch runs it as the image user', () => {
    // createthis/diffcalculia_mcp's entrypoint.sh: su-exec only when SANDBOX_USER_ID is not 0, no USER in the image.
    const runs = (script: string, user = '') => {
      const d = collectWith(
        inline({
          Dockerfile: `FROM node:22-slim\nRUN npm install -g @modelcontextprotocol/server-everything@2025.8.4\nCOPY entrypoint.sh /entrypoint.sh\n${user}ENTRYPOINT ["/entrypoint.sh"]\nCMD ["mcp-server-everything"]\n`,
          'entrypoint.sh': script,
        }),
      ).deployments[0]!;
      return fact(d, 'container.runs_as_root') ?? d.reasons['container.runs_as_root'];
    };
    expect(runs('#!/bin/sh\nif [ "$SANDBOX_USER_ID" != "0" ]; then\n  exec su-exec mcpuser "$@"\nelse\n  exec "$@"\nfi\n')).toBe(
      'the entrypoint script drops to another user only under `if [ "$SANDBOX_USER_ID" != "0" ]; then`; otherwise it runs the server as the image\'s user',
    );
    expect(runs('#!/bin/sh\nif command -v su-exec >/dev/null; then\n  exec su-exec mcpuser "$@"\nfi\nexec "$@"\n', 'USER root\n')).toMatch(
      /^the entrypoint script drops to another user only under `if command -v su-exec/,
    );
    // Unconditional, or when the script runs as root: the drop decides.
    expect(runs('#!/bin/sh\nexec su-exec mcpuser "$@"\n')).toBe(false);
    expect(runs('#!/bin/sh\nif [ "$(id -u)" = 0 ]; then\n  exec su-exec mcpuser "$@"\nfi\nexec "$@"\n')).toBe(false);
    expect(runs('#!/bin/sh\nif [ "$(id -un)" = root ]; then\n  exec su-exec mcpuser "$@"\nfi\nexec "$@"\n')).toBe(false);
    // A block closed with a comment or a `;` ends there: the drop after it is unconditional.
    expect(runs('#!/bin/sh\nif [ -n "$DEBUG" ]; then\n  set -x\nfi # debug\nexec su-exec mcpuser "$@"\n')).toBe(false);
    expect(runs('#!/bin/sh\nif [ -n "$DEBUG" ]; then\n  set -x\nfi;\nexec su-exec mcpuser "$@"\n')).toBe(false);
  });
});

describe('a walk reads settings.json only where an editor or agent keeps MCP servers in it', () => {
  it("a Claude Code or Codex plugin's plugin.json, not any plugin.json", () => {
    // jmagar/unraid-mcp ships both, each listing the server inline.
    const root = tempDir('signet-plugins-');
    const manifest = '{ "name": "unraid-mcp", "mcpServers": { "unraid-mcp": { "command": "uvx", "args": ["unraid-mcp"] } } }';
    for (const dir of ['.claude-plugin', '.codex-plugin', 'src']) {
      mkdirSync(join(root, dir), { recursive: true });
      writeFileSync(join(root, dir, 'plugin.json'), manifest);
    }
    const out = collectFromDisk([root], { root }, doctrine);
    expect(out.files.map((f) => f.path)).toEqual(['.claude-plugin/plugin.json', '.codex-plugin/plugin.json']);
    expect(out.deployments.map((d) => d.name)).toEqual([
      'client:.claude-plugin/plugin.json:unraid-mcp',
      'client:.codex-plugin/plugin.json:unraid-mcp',
    ]);
  });

  it('.vscode, .zed and .gemini, not any settings.json', () => {
    const root = tempDir('signet-settings-');
    const servers = '{ "mcpServers": { "time": { "command": "uvx", "args": ["mcp-server-time"] } } }';
    for (const dir of ['.vscode', '.zed', '.gemini', 'config', 'src/app']) {
      mkdirSync(join(root, dir), { recursive: true });
      writeFileSync(join(root, dir, 'settings.json'), servers);
    }
    const out = collectFromDisk([root], { root }, doctrine);
    expect(out.files.map((f) => f.path)).toEqual(['.gemini/settings.json', '.vscode/settings.json', '.zed/settings.json']);
  });

  it('and the JSON files projects name for MCP servers, not every JSON file', () => {
    const root = tempDir('signet-client-names-');
    const servers = '{ "mcpServers": { "time": { "command": "uvx", "args": ["mcp-server-time"] } } }';
    for (const name of [
      'mcp_settings.json',
      'mcp-config.json',
      'claude_config_example.json',
      'gemini-extension.json',
      'config.json',
      'tsconfig.json',
      'servers.json',
    ])
      writeFileSync(join(root, name), servers);
    for (const dir of ['.claude-plugin', 'other']) {
      mkdirSync(join(root, dir));
      writeFileSync(join(root, dir, 'plugin.json'), servers);
    }
    const out = collectFromDisk([root], { root }, doctrine);
    expect(out.files.map((f) => f.path)).toEqual([
      '.claude-plugin/plugin.json',
      'claude_config_example.json',
      'config.json',
      'gemini-extension.json',
      'mcp-config.json',
      'mcp_settings.json',
    ]);
    expect(out.deployments.length).toBe(6);
  });
});

describe('an install that follows a committed lockfile without being held to it', () => {
  const image = (run: string, files: Record<string, string>) =>
    collectWith(
      inline({
        'package.json': '{"dependencies":{"@modelcontextprotocol/sdk":"1.0.0"}}',
        Dockerfile: `FROM node:24-slim\nCOPY . .\n${run}\nUSER node\n`,
        ...files,
      }),
    ).deployments[0]!;

  it('npm install beside package-lock.json: not enforced, its release undecided (npm ci would fail instead of resolving anew)', () => {
    const d = image('RUN npm install', { 'package-lock.json': '{"lockfileVersion":3}' });
    expect(fact(d, 'supply_chain.lockfile_enforced')).toBe(false);
    expect(fact(d, 'supply_chain.deployed_release')).toBeUndefined();
    expect(d.undecided).toContain('supply_chain.deployed_release');
    // Without a lockfile it resolves the newest versions its ranges allow.
    expect(fact(image('RUN npm install', {}), 'supply_chain.deployed_release')).toBe('floating');
    // A package named floats whatever the lockfile says.
    expect(fact(image('RUN npm install left-pad', { 'package-lock.json': '{}' }), 'supply_chain.deployed_release')).toBe('floating');
  });

  it('cargo build after cargo fetch --locked keeps to the lockfile that fetch checked (agentgateway/agentgateway)', () => {
    const rust = (run: string) =>
      collectWith(
        inline({
          'Cargo.toml': '[package]\nname = "gw"\n[dependencies]\nrmcp = "0.8"\n',
          'Cargo.lock': 'version = 4\n',
          Dockerfile: `FROM rust:1.90\nCOPY . .\n${run}\n`,
        }),
      ).deployments[0]!;
    const d = rust('RUN cargo fetch --locked\nRUN cargo build --release');
    expect(fact(d, 'supply_chain.lockfile_enforced')).toBe(true);
    expect(fact(d, 'supply_chain.deployed_release')).toBe('locked');
    expect(fact(rust('RUN cargo build --release'), 'supply_chain.lockfile_enforced')).toBe(false);
    // A cargo fetch without --locked first may rewrite Cargo.lock; the --locked build then checks the rewritten one (tuananh/hyper-mcp).
    const after = rust('RUN cargo fetch\nRUN cargo build --release --locked');
    expect(fact(after, 'supply_chain.lockfile_enforced')).toBe(false);
    expect(fact(after, 'supply_chain.deployed_release')).toBeUndefined();
  });
});

describe('secrets by name and in connection URLs', () => {
  /** The one deployment of a Compose service with these `environment:` lines. */
  const withEnvironment = (lines: string) =>
    collectWith(inline({ 'compose.yaml': `services:\n  mcp-server:\n    image: mcp/server:1\n    environment:\n${lines}` }))
      .deployments[0]!;

  it('names that hold a secret, and names that only look close', () => {
    const secret = [
      'SECRET_KEY',
      'LANGFUSE_SECRET_KEY',
      'DB_PASS',
      'SMTP_PWD',
      'SERVICE_ROLE_KEY',
      'JWT_SIGNING_KEY',
      'GITHUB_PAT',
      'API_KEY',
      // adibirzu/mcp-oci's .mcp.json: OCI APM's private data key.
      'OCI_APM_PRIVATE_DATA_KEY',
      // zautke/mcp-proxy-server's compose.yml: a list of bearer tokens, and their kin.
      'AUTH_TOKENS',
      'API_KEYS',
      'ADMIN_PASSWORDS',
      'CLIENT_SECRETS',
      // ArrEssJay/mcp-utc-time-server's compose: numbered keys, each one the server accepts.
      'API_KEY_1',
      'AUTH_TOKEN_2',
      // PureGrain/ProxmoxEmCP's PROXMOX_TOKEN_VALUE, the API token's secret half.
      'PROXMOX_TOKEN_VALUE',
    ];
    const not = [
      'LANGFUSE_PUBLIC_KEY',
      'CACHE_KEY',
      'CACHE_BYPASS',
      'MAX_TOKENS',
      'OPENAI_MAX_TOKENS',
      'PATH',
      'PWD',
      'SORT_KEY',
      'SORT_KEYS',
      'PORT_8080',
      'DEFAULT_VALUE',
    ];
    expect(secret.filter((n) => !SECRET_NAME.test(n))).toEqual([]);
    expect(not.filter((n) => SECRET_NAME.test(n))).toEqual([]);
  });

  it('a password in a connection URL is written in the compose file, the manifest or the image', () => {
    // mindsdb/mindsdb's docker-compose.yml: MINDSDB_DB_CON: "postgresql://postgres:postgres@postgres/mindsdb".
    const compose = withEnvironment(
      '      MINDSDB_DB_CON: "postgresql://postgres:postgres@postgres/mindsdb"\n      CACHE_URL: "redis://cache:6379/0"\n',
    );
    expect(fact(compose, 'container.secrets_source')).toBe('manifest_plaintext');
    expect(compose.sources['container.secrets_source']![0]).toMatchObject({ line: 5 });
    const k8s = collectWith(
      inline({
        'deploy.yaml':
          'apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: mcp-server\nspec:\n  selector:\n    matchLabels: {app: mcp}\n  template:\n    metadata:\n      labels: {app: mcp}\n    spec:\n      containers:\n        - name: mcp-server\n          image: mcp/server:1\n          env:\n            - name: DATABASE_URL\n              value: "mysql://app:hunter22@db:3306/app"\n',
      }),
    ).deployments[0]!;
    expect(fact(k8s, 'container.secrets_source')).toBe('manifest_plaintext');
    const image = collectWith(
      inline({ Dockerfile: 'FROM python:3.13-slim\nENV DATABASE_URL=postgres://app:hunter22@db/app\nRUN pip install mcp==1.9.0\n' }),
    ).deployments[0]!;
    expect(fact(image, 'container.secrets_source')).toBe('baked_into_image');
    expect(image.sources['container.secrets_source']![0]!.why).toBe(
      'ENV DATABASE_URL is a connection URL with a password written in the Dockerfile',
    );
    const noPassword = withEnvironment('      DB: "postgresql://postgres@postgres/x"\n');
    expect(fact(noPassword, 'container.secrets_source')).toBeUndefined();
    expect(noPassword.reasons['container.secrets_source']).toMatch(/^no secret reaches the container from the files/);
  });

  it("a placeholder for the password, or a documentation's user:password, is none written", () => {
    // kiliczsh/mcp-mongo-server's examples/docker-compose.yml.
    expect(passwordInUrl('mongodb://username:password@localhost:27017/database')).toBeNull();
    expect(passwordInUrl('postgres://user:<your-password>@db/x')).toBeNull();
    expect(passwordInUrl('postgres://app:YOUR_PASSWORD@db/x')).toBeNull();
    expect(passwordInUrl('jdbc:postgresql://db/x?user=app&password=<password>')).toBeNull();
    // A real (if weak) one stays: mindsdb's postgres:postgres, an app user's password.
    expect(passwordInUrl('postgresql://postgres:postgres@postgres/mindsdb')).toBe('postgres');
    expect(passwordInUrl('postgres://app:password@db/x')).toBe('password');
    const compose = withEnvironment('      - MCP_MONGODB_URI=mongodb://username:password@localhost:27017/database\n');
    // The operator writes the real one where the files do not show, as for a secret-named placeholder.
    expect(fact(compose, 'container.secrets_source')).toBeUndefined();
    expect(compose.reasons['container.secrets_source']).toBe(
      'MCP_MONGODB_URI is a connection URL whose password is a placeholder the operator replaces: where the real value is kept is not in the files',
    );
  });
});

describe('what a build copies decides whose image it is', () => {
  const sdk = '[project]\nname = "x"\ndependencies = ["mcp>=1.9.3"]\n';
  const plain = '[project]\nname = "auth"\ndependencies = ["fastapi>=0.110"]\n';

  it("fastmcp-slim is FastMCP's SDK too", () => {
    // Arize-ai/phoenix's pyproject.toml: `fastmcp-slim[client,server]`.
    const out = collectWith(
      inline({
        'pyproject.toml': '[project]\nname = "phoenix"\ndependencies = ["fastmcp-slim[client,server]>=3.0"]\n',
        Dockerfile: 'FROM python:3.12-slim\nCOPY . .\nRUN pip install .\nCMD ["python", "-m", "phoenix.server.main"]\n',
      }),
    );
    expect(out.deployments.map((d) => [d.name, d.sources['container.used']?.[0]?.why])).toEqual([
      ['image:Dockerfile', 'an image of an MCP server (fastmcp-slim[client,server])'],
    ]);
  });

  it("a workspace member's manifest copied for the install, or a project nested in the copied code, is not the image's", () => {
    // andkirby/markdown-ticket: every image copies each member's package.json for one `bun install`,
    // then one member's code; the backend's server/ holds an MCP dev tool of its own.
    const pkg = (name: string, deps: Record<string, string>) => JSON.stringify({ name, dependencies: deps });
    const image = (member: string) =>
      [
        'FROM oven/bun:1.2',
        'WORKDIR /app',
        'COPY package.json bun.lock ./',
        'COPY server/package.json ./server/',
        'COPY mcp-server/package.json ./mcp-server/',
        'COPY frontend/package.json ./frontend/',
        'RUN bun install --frozen-lockfile',
        `COPY ${member} ./${member}`,
        `WORKDIR /app/${member}`,
        'CMD ["bun", "run", "start"]',
        '',
      ].join('\n');
    const out = collectWith(
      inline({
        'package.json': JSON.stringify({ name: 'mdt', workspaces: ['server', 'mcp-server', 'frontend'] }),
        'bun.lock': '{}',
        'server/package.json': pkg('server', { express: '^4.21.0' }),
        'server/mcp-dev-tools/package.json': pkg('mcp-dev-tools', { '@modelcontextprotocol/sdk': '^1.17.0' }),
        'mcp-server/package.json': pkg('mcp-server', { '@modelcontextprotocol/sdk': '^1.17.0' }),
        'frontend/package.json': pkg('frontend', { react: '^19.0.0', vite: '^7.0.0' }),
        'server/Dockerfile': image('server'),
        'mcp-server/Dockerfile': image('mcp-server'),
        'frontend/Dockerfile': image('frontend'),
        'docker-compose.yml': [
          'services:',
          '  backend: { build: { context: ., dockerfile: server/Dockerfile } }',
          '  mcp: { build: { context: ., dockerfile: mcp-server/Dockerfile }, ports: ["3002:3002"] }',
          '  frontend: { build: { context: ., dockerfile: frontend/Dockerfile }, ports: ["5173:5173"] }',
          '',
        ].join('\n'),
      }),
    );
    expect(out.deployments.map((d) => d.name)).toEqual(['compose:docker-compose.yml:mcp']);
  });

  it('a service built from the repository root is the project it copies, not the root', () => {
    // agentic-community/mcp-gateway-registry: every image is built from the root, whose pyproject.toml
    // depends on mcp; the auth service copies auth_server/ alone, each MCP server its ${SERVER_PATH}/.
    const out = collectWith(
      inline({
        'pyproject.toml': sdk,
        'auth_server/pyproject.toml': plain,
        'servers/currenttime/pyproject.toml': sdk,
        'docker/Dockerfile.auth': 'FROM python:3.12-slim\nCOPY auth_server/ /app/\nRUN pip install uv\nCMD ["uvicorn", "server:app"]\n',
        'docker/Dockerfile.mcp-server': 'FROM python:3.12-slim\nARG SERVER_PATH\nCOPY ${SERVER_PATH}/ /app/\nCMD ["python", "server.py"]\n',
        'docker-compose.yml': [
          'services:',
          '  auth-server:',
          '    build: { context: ., dockerfile: docker/Dockerfile.auth }',
          '    ports: ["8888:8888"]',
          '  currenttime-server:',
          '    build:',
          '      context: .',
          '      dockerfile: docker/Dockerfile.mcp-server',
          '      args:',
          '        SERVER_PATH: servers/currenttime',
          '    ports: ["8000:8000"]',
          '',
        ].join('\n'),
      }),
    );
    expect(out.deployments.map((d) => d.name)).toEqual(['compose:docker-compose.yml:currenttime-server']);
    expect(out.deployments[0]!.sources['container.used']![0]!.why).toBe(
      'service currenttime-server runs in a container (its build copies a manifest that depends on mcp)',
    );
  });

  it('a Dockerfile nothing builds: its context is where what it copies is found', () => {
    // modelcontextprotocol/servers' src/everything/Dockerfile, built from the repository root.
    const d = collectWith(
      inline({
        'package-lock.json': '{"lockfileVersion":3}',
        'src/everything/package.json': '{"dependencies":{"@modelcontextprotocol/sdk":"^1.0.0"}}',
        'src/everything/Dockerfile':
          'FROM node:22-alpine\nCOPY src/everything /app\nWORKDIR /app\nRUN npm install\nCMD ["node", "dist/index.js"]\n',
      }),
    ).deployments;
    expect(d.map((x) => x.name)).toEqual(['image:src/everything/Dockerfile']);
    // The root's lockfile is not copied to /app: npm install resolves anew.
    expect(fact(d[0]!, 'supply_chain.deployed_release')).toBe('floating');
  });

  it('a directory copied whole, bind mounts of the context, and a binary copied out of an MCP image', () => {
    const crates = collectWith(
      inline({
        'Cargo.toml': '[workspace]\nmembers = ["crates/gw"]\n',
        'Cargo.lock': 'version = 4\n',
        'crates/gw/Cargo.toml': '[package]\nname = "gw"\n[dependencies]\nrmcp = "0.8"\n',
        Dockerfile: 'FROM rust:1.90\nCOPY Cargo.toml Cargo.lock ./\nCOPY crates ./crates\nRUN cargo build --locked\n',
      }),
    ).deployments;
    expect(crates[0]!.sources['container.used']![0]!.why).toBe('an image of an MCP server (rmcp)');
    const mounted = collectWith(
      inline({
        'pyproject.toml': sdk,
        'uv.lock': 'version = 1\n',
        Dockerfile:
          'FROM python:3.13-slim\nRUN --mount=type=bind,source=uv.lock,target=uv.lock --mount=type=bind,source=pyproject.toml,target=pyproject.toml uv sync --locked --no-install-project\n',
      }),
    ).deployments[0]!;
    expect(fact(mounted, 'supply_chain.deployed_release')).toBe('locked');
    const copiedOut = collectWith(
      inline({ Dockerfile: 'FROM scratch\nCOPY --from=docker/mcp-gateway /docker-mcp /\nENTRYPOINT ["/run.sh"]\n' }),
    ).deployments[0]!;
    expect(copiedOut.sources['container.used']![0]!.why).toBe('the image copies from the MCP image docker/mcp-gateway');
  });
});

describe("kubectl's refusal, as a note quotes it", () => {
  it("is the error, not the warnings before it, and not klog's wrapping", () => {
    // sapientpants/sonarqube-mcp-server's production overlay, as kubectl 1.32 refuses it.
    const stderr = [
      "# Warning: 'bases' is deprecated. Please use 'resources' instead. Run 'kustomize edit fix' to update your Kustomization automatically.",
      'E1128 04:09:58.935086   19569 run.go:72] "command failed" err="merging from generator &{0xc00 <nil>}: id resid.ResId{Name:\\"sonarqube-mcp-config\\"} does not exist; cannot merge or replace"',
      '',
    ].join('\n');
    expect(kubectlError(stderr)).toBe(
      'merging from generator &{0xc00 <nil>}: id resid.ResId{Name:"sonarqube-mcp-config"} does not exist; cannot merge or replace',
    );
    expect(kubectlError('error: accumulating resources: missing.yaml\n')).toBe('error: accumulating resources: missing.yaml');
    expect(kubectlError('')).toBe('kubectl failed');
  });
});

describe('which files a walk reads', () => {
  it('takes nginx templates by their `.conf…template` name, not backups', () => {
    // HarderBetterFasterStronger/config-1mcp mounts proxy/nginx.conf.oauth.template as the nginx image's template.
    for (const name of ['nginx.conf', 'default.conf.template', 'nginx.conf.oauth.template', 'mcp.conf.tmpl', 'site.conf.example'])
      expect(wanted(name), name).toBe(true);
    for (const name of ['nginx.conf.bak', 'nginx.conf.orig', 'notes.template']) expect(wanted(name), name).toBe(false);
  });

  it("takes Yarn Berry's .yarnrc.yml, whose enableScripts a build copies", () => {
    expect(wanted('.yarnrc.yml')).toBe(true);
    expect(wanted('.yarnrc')).toBe(false);
  });
});

describe('supervisord as what the container runs', () => {
  it("leaves the server's user to its configuration: root as the image's user says nothing", () => {
    // dx-tooling/maas-webapp's images: `USER root`, supervisord, and `user=mcp` in supervisord.conf.
    const root = (user: string) => {
      const d = collectWith(
        inline({
          Dockerfile: `FROM node:22-slim\nRUN npm install -g @playwright/mcp@0.0.41\nUSER ${user}\nCMD ["/usr/bin/supervisord", "-c", "/etc/supervisor/conf.d/supervisord.conf"]\n`,
        }),
      ).deployments[0]!;
      return { value: fact(d, 'container.runs_as_root'), why: d.reasons['container.runs_as_root'] };
    };
    expect(root('root')).toEqual({
      value: undefined,
      why: "the container runs supervisord, which starts the server as the user= its configuration's program section names (root where it names none)",
    });
    // A user other than root cannot start it as root.
    expect(root('app').value).toBe(false);
  });
});

describe('an image whose command is a bridge to a remote server', () => {
  it('reaches that server over HTTP; the release is its operator’s, the image fixes only the adapter', () => {
    // PostHog/mcp's Dockerfile.
    const dockerfile = (url: string) =>
      [
        'FROM node:20-slim',
        'WORKDIR /usr/src/app',
        'RUN npm install -g mcp-remote@latest',
        `ENV POSTHOG_REMOTE_MCP_URL=${url}`,
        'ENTRYPOINT ["sh", "-c", "mcp-remote \\"${POSTHOG_REMOTE_MCP_URL}\\" --header \\"Authorization:Bearer ${POSTHOG_AUTH_HEADER}\\""]',
        '',
      ].join('\n');
    const d = collectWith(inline({ Dockerfile: dockerfile('https://mcp.posthog.com/mcp') })).deployments[0]!;
    expect([fact(d, 'transport.kind'), fact(d, 'tls.enabled'), fact(d, 'supply_chain.deployed_release')]).toEqual([
      'http',
      true,
      undefined,
    ]);
    expect(d.sources['transport.kind']![0]).toMatchObject({
      line: 5,
      why: 'the image runs a bridge to the remote server at https://mcp.posthog.com/mcp: that server speaks HTTP',
    });
    expect(d.reasons['supply_chain.deployed_release']).toBe(
      'the remote server runs a release its operator chose; the image fixes only the adapter',
    );
    const sse = collectWith(inline({ Dockerfile: dockerfile('http://mcp.internal:8080/sse') })).deployments[0]!;
    expect([fact(sse, 'tls.enabled'), fact(sse, 'transport.legacy_sse')]).toEqual([false, true]);
  });
});

describe("an image whose build clones an MCP server's repository", () => {
  it('is that server’s image', () => {
    // stefanosimontacchi/Polygon-mcp-cloudrun's Dockerfile: git clone of polygon-io/mcp_polygon, then `uv pip install -e .`.
    const out = (url: string) =>
      collectWith(
        inline({
          Dockerfile: `FROM python:3.11-slim\nRUN pip install --no-cache-dir uv\nRUN git clone ${url} /srv/app\nWORKDIR /srv/app\nRUN uv pip install --system -e .\nEXPOSE 8080\nCMD ["python", "entrypoint.py"]\n`,
        }),
      );
    const d = out('https://github.com/polygon-io/mcp_polygon.git').deployments[0]!;
    expect(d.sources['container.used']![0]!.why).toBe(
      "the build clones the MCP server's repository https://github.com/polygon-io/mcp_polygon.git",
    );
    // A repository named for something else is no evidence.
    expect(out('https://github.com/acme/weather-api.git').deployments).toEqual([]);
    // Nor one a comment names.
    expect(
      collectWith(
        inline({
          Dockerfile:
            'FROM python:3.11-slim\n# git clone https://github.com/polygon-io/mcp_polygon.git to build locally\nCMD ["python", "app.py"]\n',
        }),
      ).deployments,
    ).toEqual([]);
  });
});

describe('more of what real images write', () => {
  const image = (dockerfile: string, files: Record<string, string> = {}) =>
    collectWith(inline({ Dockerfile: dockerfile, ...files })).deployments[0];

  it("runuser's su form drops to that user; a file's presence checks nothing", () => {
    // pgEdge/pgedge-postgres-mcp's init-server.sh: `exec runuser mcp /bin/sh -c "exec /app/pgedge-postgres-mcp $ARGS"`.
    const d = image(
      'FROM debian:bookworm-slim\nCOPY server /app/mcp-server\nCOPY entrypoint.sh /entrypoint.sh\nHEALTHCHECK CMD test -f /app/mcp-server\nENTRYPOINT ["/entrypoint.sh"]\n',
      {
        'entrypoint.sh': '#!/bin/sh\nexec runuser mcp /bin/sh -c "exec /app/mcp-server"\n',
      },
    )!;
    expect(fact(d, 'container.runs_as_root')).toBe(false);
    expect(fact(d, 'container.healthcheck')).toBe(false);
  });

  it("uv's global options before its command; bun ci is a frozen install", () => {
    const uv = (run: string) =>
      fact(
        image(`FROM python:3.12-slim\nCOPY pyproject.toml uv.lock ./\nRUN ${run}\nCMD ["mcp-server"]\n`, {
          'pyproject.toml': '[project]\nname = "s"\nversion = "0.1.0"\ndependencies = ["mcp>=1.9"]\n',
          'uv.lock': 'version = 1\n',
        })!,
        'supply_chain.lockfile_enforced',
      );
    // oracle/mcp's `uv --no-cache sync --locked`.
    expect(uv('uv --no-cache sync --locked')).toBe(true);
    expect(uv('uv --directory /app --quiet sync --locked')).toBe(true);
    // timescale/pg-aiguide's `bun ci --production`.
    const bun = image('FROM oven/bun:1.2\nCOPY package.json bun.lock ./\nRUN bun ci --production\nCMD ["bun", "run", "mcp-server.ts"]\n', {
      'package.json': JSON.stringify({ name: 's', dependencies: { '@modelcontextprotocol/sdk': '1.20.0' } }),
      'bun.lock': '{}',
    })!;
    expect([fact(bun, 'supply_chain.lockfile_enforced'), fact(bun, 'supply_chain.deployed_release')]).toEqual([true, 'locked']);
  });

  it('a client started with an MCP URL flag is no server', () => {
    // pgEdge/pgedge-postgres-mcp's Dockerfile.cli: `-mcp-url http://postgres-mcp:8080`.
    const out = collectWith(
      inline({
        Dockerfile: 'FROM debian:bookworm-slim\nCOPY cli /app/mcp-cli\nCMD ["/app/mcp-cli", "-mcp-url", "http://postgres-mcp:8080"]\n',
      }),
    );
    expect(out.deployments).toEqual([]);
    expect(out.notes.map((n) => n.what)).toContain(
      'the image is started with the MCP endpoint http://postgres-mcp:8080 to call: a client of that server, and no deployment of its own',
    );
  });
});
