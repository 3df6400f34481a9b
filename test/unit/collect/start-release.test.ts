// A container that fetches its server as it starts (a package runner, an install before the
// server): the image's tag or build does not fix the release, what runs at start does.
import { describe, expect, it } from 'vitest';
import { collectWith, deploymentOf, deploymentYaml, fact, inline } from '../../helpers/collect.js';

const release = (files: Record<string, string>, suffix: string) => {
  const d = deploymentOf(collectWith(inline(files)), suffix);
  return {
    value: fact(d, 'supply_chain.deployed_release'),
    source: d.sources['supply_chain.deployed_release']?.[0],
    reason: d.reasons['supply_chain.deployed_release'],
  };
};

describe('a package runner in what the container runs', () => {
  const compose = 'services:\n  everything:\n    build: .\n    ports: ["3001:3001"]\n';

  it('on a runtime image, the runner fetches the release: floating without a version, exact with one', () => {
    const floating = release(
      { Dockerfile: 'FROM node:22-slim\nCMD ["npx", "-y", "@modelcontextprotocol/server-everything"]\n', 'compose.yaml': compose },
      ':everything',
    );
    expect(floating.value).toBe('floating');
    expect(floating.source).toMatchObject({
      file: 'Dockerfile',
      line: 2,
      why: 'the container starts npx @modelcontextprotocol/server-everything: no version, whatever is newest at launch',
    });
    const exact = release(
      {
        Dockerfile: 'FROM python:3.12-slim\nRUN pip install uv==0.5.0\nCMD ["uvx", "mcp-server-fetch==2025.4.7"]\n',
        'compose.yaml': compose,
      },
      ':everything',
    );
    expect(exact.value).toBe('exact_version');
  });

  it("a script's exec line counts, as the script the image starts", () => {
    // stonediggity/unified-docker-mcps' Dockerfile.context7 writes its entrypoint with printf.
    const script =
      'FROM node:22-slim\nRUN printf \'#!/bin/bash\\nset -e\\nexec npx -y @upstash/context7-mcp\\n\' > /entrypoint.sh && chmod +x /entrypoint.sh\nCMD ["/entrypoint.sh"]\n';
    expect(release({ Dockerfile: script, 'compose.yaml': compose }, ':everything')).toMatchObject({
      value: 'floating',
      source: { file: 'Dockerfile', line: 2 },
    });
  });

  it('not where the image may hold the package: a base of its own, or an install of it', () => {
    // `FROM mcp-base:latest`, built by the project: npx runs what that base installed, if it did.
    const own = release(
      { Dockerfile: 'FROM mcp-base:latest\nCMD ["npx", "-y", "@upstash/context7-mcp"]\n', 'compose.yaml': compose },
      ':everything',
    );
    expect(own.value).toBeUndefined();
    const installed = release(
      {
        Dockerfile: 'FROM node:22-slim\nRUN npm install -g @upstash/context7-mcp@1.0.14\nCMD ["npx", "-y", "@upstash/context7-mcp"]\n',
        'compose.yaml': compose,
      },
      ':everything',
    );
    expect(installed.value).toBe('exact_version');
    expect(installed.source).toMatchObject({ line: 2 });
  });

  it("nor a package the project's own install puts in node_modules", () => {
    // carlosjperez/SOLARIA-DFO's docker/dev/Dockerfile.mcp: `npm install`, then `npx tsx watch src/http-server.ts`,
    // tsx among the package.json's devDependencies.
    const files = (install: string) => ({
      Dockerfile: `FROM node:22-slim\nWORKDIR /app\nCOPY package*.json ./\nRUN ${install}\nCOPY . .\nCMD ["npx", "tsx", "watch", "src/http-server.ts"]\n`,
      'package.json': JSON.stringify({
        name: 'x',
        dependencies: { '@modelcontextprotocol/sdk': '^1.0.0' },
        devDependencies: { tsx: '^4.21.0' },
      }),
      'compose.yaml': compose,
    });
    expect(release(files('npm install'), ':everything').source?.why).not.toMatch(/npx tsx/);
    // An install of other packages puts no tsx there: npx fetches it.
    expect(release(files('npm install -g typescript@5.6.3'), ':everything')).toMatchObject({
      value: 'floating',
      source: { why: 'the container starts npx tsx: no version, whatever is newest at launch' },
    });
  });
});

describe('an install as the container starts', () => {
  // pnparadise/fetch-mcp-server: a Playwright runtime image, the checkout mounted from the host,
  // `npm install --production && npm start` at every start.
  const pod = (image: string, command: string) =>
    deploymentYaml('mcp-server', image, [`command: ${command}`, 'ports: [{ containerPort: 3001 }]']);

  it("leaves the release open: the image's tag does not fix what npm resolves then", () => {
    const r = release(
      {
        'k8s/mcp-server.yaml': pod(
          'mcr.microsoft.com/playwright:v1.51.1-noble',
          '[sh, -c, "cd /app && npm install --production && npm start"]',
        ),
      },
      'Deployment/mcp-server',
    );
    expect(r.value).toBeUndefined();
    expect(r.reason).toBe(
      'the container runs `npm install --production` as it starts: what it installs is resolved then, from files the image does not fix',
    );
    // Without the install, the tag decides.
    expect(
      release({ 'k8s/mcp-server.yaml': pod('mcr.microsoft.com/playwright:v1.51.1-noble', '[node, server.js]') }, 'Deployment/mcp-server')
        .value,
    ).toBe('exact_version');
  });

  it('in a Compose command string, split as Compose splits it', () => {
    const r = release(
      {
        'compose.yaml':
          'services:\n  mcp:\n    image: node:22-slim\n    command: sh -c "npm install && node /app/mcp-server.js"\n    ports: ["3001:3001"]\n',
      },
      ':mcp',
    );
    expect(r.value).toBeUndefined();
    expect(r.reason).toMatch(/^the container runs `npm install` as it starts/);
  });

  it('uv run after uv sync --frozen: a stale uv.lock is locked anew at start', () => {
    // inmydata/AgentMCP: `RUN uv sync --frozen`, then `CMD ["uv", "run", "python", "server_remote.py"]`.
    const image = (sync: string, cmd: string, env = '') => {
      const d = collectWith(
        inline({
          Dockerfile: `FROM python:3.12-slim\nCOPY --from=ghcr.io/astral-sh/uv:0.8.0 /uv /bin/uv\nCOPY pyproject.toml uv.lock ./\nRUN ${sync}\nCOPY . .\n${env}CMD ${cmd}\n`,
          'pyproject.toml': '[project]\nname = "srv"\nversion = "0.1.0"\ndependencies = ["fastmcp==2.12.4"]\n',
          'uv.lock': 'version = 1\n[[package]]\nname = "fastmcp"\nversion = "2.12.4"\n',
        }),
      ).deployments[0]!;
      return [fact(d, 'supply_chain.lockfile_enforced'), fact(d, 'supply_chain.deployed_release')];
    };
    expect(image('uv sync --frozen', '["uv", "run", "python", "server.py"]')).toEqual([false, undefined]);
    // Held: uv run --frozen, UV_FROZEN in the image, or a build that checked the lock with --locked.
    expect(image('uv sync --frozen', '["uv", "run", "--frozen", "python", "server.py"]')).toEqual([true, 'locked']);
    expect(image('uv sync --frozen', '["uv", "run", "python", "server.py"]', 'ENV UV_FROZEN=1\n')).toEqual([true, 'locked']);
    expect(image('uv sync --locked', '["uv", "run", "python", "server.py"]')).toEqual([true, 'locked']);
    // A build that already floats stays floating (deslicer/mcp-for-splunk's `uv add` after `uv sync --frozen`).
    expect(image('uv sync --frozen && uv add watchdog', '["uv", "run", "python", "server.py"]')).toEqual([false, 'floating']);
  });

  it('of packages by name: the newest release at each start, from no lockfile, their scripts run', () => {
    // ajoslin103/MCP-Servers: `sh -c "npm install -g mcp-server-git && mcp-server-git"` on node:18.
    const run = (command: string) => {
      const d = collectWith(inline({ 'compose.yaml': `services:\n  git-server:\n    image: node:18\n    command: sh -c "${command}"\n` }))
        .deployments[0]!;
      return ['deployed_release', 'lockfile_enforced', 'install_scripts_disabled'].map((k) => fact(d, `supply_chain.${k}`));
    };
    expect(run('npm install -g mcp-server-git && mcp-server-git')).toEqual(['floating', false, false]);
    expect(run('npm install -g --ignore-scripts @acme/mcp@^1.2 && acme-mcp')).toEqual(['floating', false, true]);
    // At an exact version, as before; a package manager alone is tooling and decides nothing.
    expect(run('npm install -g @acme/mcp@1.2.3 && acme-mcp')[0]).toBe('exact_version');
    expect(run('npm install -g pnpm && pnpm start')[0]).toBeUndefined();
  });
});
