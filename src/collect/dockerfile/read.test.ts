// biome-ignore-all lint/suspicious/noTemplateCurlyInString: Dockerfile ${VAR} references, not JavaScript templates
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { lineOf } from '../../../test/helpers/collect.js';
import { ROOT } from '../../../test/helpers/paths.js';
import { readDockerfile } from './read.js';

describe('Dockerfiles, read with dockerfile-ast', () => {
  it("reads Signet's Dockerfile: ARG-named base by tag, a non-root USER, HEALTHCHECK, npm ci --ignore-scripts, npm sbom", () => {
    const df = readDockerfile('Dockerfile', readFileSync(join(ROOT, 'Dockerfile'), 'utf8'));
    expect(df.base).toEqual({
      image: 'node:24-trixie-slim',
      at: { file: 'Dockerfile', line: lineOf('Dockerfile', /^FROM \$\{NODE_IMAGE\}$/) },
      digest: false,
    });
    expect(df.externalBases.map((b) => b.image)).toEqual(['node:24-trixie-slim', 'node:24-trixie-slim']);
    expect(df.user).toEqual({
      value: expect.not.stringMatching(/^(0|root)(:|$)/),
      written: expect.any(String),
      at: { file: 'Dockerfile', line: lineOf('Dockerfile', /^USER /) },
    });
    expect(df.healthcheck?.disabled).toBe(false);
    expect(df.installs).toEqual([
      {
        at: { file: 'Dockerfile', line: lineOf('Dockerfile', /^RUN npm ci/) },
        tool: 'npm',
        text: 'npm ci --ignore-scripts --no-audit --no-fund',
        locked: true,
        scriptsDisabled: true,
        copiedBefore: ['package.json', 'package-lock.json'],
      },
    ]);
    expect(df.sbom).toEqual({ file: 'Dockerfile', line: lineOf('Dockerfile', /^RUN npm run build/) });
    expect(df.auditSignatures).toBeNull();
    expect(df.secretsInImage).toEqual([]);
  });

  it('follows stages, digests, root users, secrets in ENV/ARG and unlocked installs', () => {
    const df = readDockerfile(
      'x/Dockerfile',
      [
        `FROM python:3.12-slim@sha256:${'b'.repeat(64)} AS deps`,
        'ARG PYPI_TOKEN=pypi-AgEIcHlwaS5vcmc',
        'RUN pip install -r requirements.txt && npm install -g some-tool',
        'USER app',
        'FROM deps',
        'ENV OPENAI_API_KEY=sk-live-123 LOG_LEVEL=info',
        // tavily-ai/tavily-mcp: a placeholder the run replaces is no secret in the image.
        'ENV TAVILY_API_KEY=your-api-key-here',
        'USER 0:0',
        'HEALTHCHECK NONE',
        'CMD ["python", "-m", "my_mcp_server"]',
      ].join('\n'),
    );
    expect(df.base?.digest).toBe(true);
    expect(df.user).toEqual({ value: '0:0', written: '0:0', at: { file: 'x/Dockerfile', line: 8 } });
    expect(df.healthcheck?.disabled).toBe(true);
    expect(df.secretsInImage.map((s) => s.name)).toEqual(['PYPI_TOKEN', 'OPENAI_API_KEY']);
    // A stage the final one only copies files from keeps its ENV and ARG to itself.
    const builder = readDockerfile(
      'Dockerfile',
      'FROM python:3.12-slim AS build\nENV PYPI_TOKEN=pypi-AgEIcHlwaS5vcmc\nRUN pip wheel -w /w .\nFROM python:3.12-slim\nCOPY --from=build /w /w\n',
    );
    expect(builder.secretsInImage).toEqual([]);
    // A target that names no stage: said, and the last stage read (oraios/serena's `target: production`).
    expect(readDockerfile('Dockerfile', 'FROM python:3.11-slim AS base\n', new Map(), 'production').missingTarget).toBe('production');
    expect(readDockerfile('Dockerfile', 'FROM python:3.11-slim AS base\n', new Map(), 'base').missingTarget).toBeNull();
    expect(df.installs.map((i) => [i.tool, i.locked])).toEqual([
      ['pip', false],
      ['npm', false],
    ]);
    expect(df.entrypoint).toEqual(['python', '-m', 'my_mcp_server']);
  });

  it('takes ENTRYPOINT and CMD from the final image only, as Docker inherits them', () => {
    // A builder stage's command is not what the final image runs.
    const split = readDockerfile(
      'Dockerfile',
      [
        'FROM node:24 AS build',
        'CMD ["npm", "run", "serve", "--", "--transport", "sse"]',
        'FROM node:24-slim',
        'CMD ["node", "server.js"]',
      ].join('\n'),
    );
    expect(split.entrypoint).toEqual(['node', 'server.js']);
    expect(split.commandAt?.line).toBe(4);
    // A stage built on another inherits both; its own ENTRYPOINT clears the inherited CMD.
    const inherit = readDockerfile(
      'Dockerfile',
      ['FROM python:3.12 AS base', 'ENTRYPOINT ["mcp-server"]', 'CMD ["--transport", "sse"]', 'FROM base'].join('\n'),
    );
    expect(inherit.entrypoint).toEqual(['mcp-server', '--transport', 'sse']);
    expect(inherit.entrypointOnly).toEqual(['mcp-server']);
    const reset = readDockerfile(
      'Dockerfile',
      ['FROM python:3.12 AS base', 'CMD ["--transport", "sse"]', 'FROM base', 'ENTRYPOINT ["mcp-server"]'].join('\n'),
    );
    expect(reset.entrypoint).toEqual(['mcp-server']);
    // A CMD set before the ENTRYPOINT in the same stage stays.
    const kept = readDockerfile('Dockerfile', ['FROM python:3.12', 'CMD ["--port", "8000"]', 'ENTRYPOINT ["mcp-server"]'].join('\n'));
    expect(kept.entrypoint).toEqual(['mcp-server', '--port', '8000']);
    expect(kept.commandAt?.line).toBe(3);
  });

  it("substitutes a stage's ARG and ENV values as the builder does, and a build's args over the defaults", () => {
    // microsoft/playwright-mcp's Dockerfile: `ARG USERNAME=node` in the final stage, then `USER ${USERNAME}`.
    const text = [
      'ARG BASE_USER=root',
      'FROM node:22-bookworm-slim AS base',
      'ENV APP_HOME=/app',
      'FROM base',
      'ARG USERNAME=node',
      'ARG BASE_USER',
      'USER ${USERNAME}',
    ].join('\n');
    expect(readDockerfile('Dockerfile', text).user).toMatchObject({ value: 'node', written: '${USERNAME}' });
    // A build arg replaces the default; one whose value comes from outside the files leaves it unknown.
    expect(readDockerfile('Dockerfile', text, new Map([['USERNAME', 'root']])).user?.value).toBe('root');
    expect(readDockerfile('Dockerfile', text, new Map([['USERNAME', null]])).user?.value).toBe('${USERNAME}');
    // A global ARG reaches a stage only where the stage declares it again; ENV wins over an ARG of the same name.
    const global = readDockerfile('Dockerfile', text.replace('USER ${USERNAME}', 'USER ${BASE_USER}'));
    expect(global.user?.value).toBe('root');
    const undeclared = readDockerfile('Dockerfile', text.replace('ARG BASE_USER\n', '').replace('USER ${USERNAME}', 'USER ${BASE_USER}'));
    expect(undeclared.user?.value).toBe('${BASE_USER}');
    const env = readDockerfile('Dockerfile', text.replace('USER ${USERNAME}', 'ENV USERNAME=app\nUSER $USERNAME'));
    expect(env.user?.value).toBe('app');
    // ENV is inherited from the stage an image is built on.
    expect(readDockerfile('Dockerfile', text.replace('USER ${USERNAME}', 'USER ${APP_HOME}')).user?.value).toBe('/app');
  });

  it('an install of named packages at exact versions is exact; a tag, range, manifest or requirements file is not', () => {
    const steps = (run: string) => readDockerfile('Dockerfile', `FROM node:24\nARG VERSION=latest\nRUN ${run}\n`).installs;
    expect(steps('npm install -g mongodb-mcp-server@1.2.3').map((i) => [i.text, i.exact])).toEqual([
      ['npm install -g mongodb-mcp-server@1.2.3', true],
    ]);
    expect(steps('npm i -g @scope/a@1.0.0 b@2.1.0-rc.1')[0]!.exact).toBe(true);
    // The shell expands the stage's ARG: mongodb-js/mongodb-mcp-server's `@${VERSION}` with VERSION=latest.
    expect(steps('npm install -g mongodb-mcp-server@${VERSION}').map((i) => [i.text, i.exact])).toEqual([
      ['npm install -g mongodb-mcp-server@latest', false],
    ]);
    for (const loose of ['npm install', 'npm install -g a@^1.2.0', 'npm install -g a@1.2.3 b', 'npm install ./pkg'])
      expect(steps(loose)[0]!.exact, loose).toBe(false);
    // A folder installed globally is linked, its dependencies not installed: no install step. A tarball
    // is installed, its dependencies resolved (vfarcic/dot-ai's `npm install -g /tmp/vfarcic-dot-ai-*.tgz`).
    expect(steps('npm install -g ./pkg')).toEqual([]);
    expect(steps('npm install -g /tmp/vfarcic-dot-ai-1.0.0.tgz')[0]!.exact).toBe(false);
    expect(steps('pip install --no-cache-dir mcp-server-fetch==2025.4.7')[0]!.exact).toBe(true);
    expect(steps('python -m pip install "fastmcp[cli]==2.3.4" -i https://pypi.example/simple')[0]!.exact).toBe(true);
    for (const loose of ['pip install -r requirements.txt', 'pip install fastmcp>=2', 'pip install fastmcp', 'pip install -e .'])
      expect(steps(loose)[0]!.exact, loose).toBe(false);
  });

  it("reads Yarn Berry's `workspaces focus` as an install that yarn.lock does not hold", () => {
    // nuggylib/osrs-mcp's final stage: `yarn workspaces focus --production`, with no flag that freezes yarn.lock.
    const [step] = readDockerfile('Dockerfile', 'FROM node:22\nRUN corepack enable && yarn workspaces focus --production\n').installs;
    expect(step).toMatchObject({ tool: 'yarn', text: 'yarn workspaces focus --production', locked: false, followsLockfile: true });
    expect(readDockerfile('Dockerfile', 'FROM node:22\nRUN yarn workspaces foreach -A run build\n').installs).toEqual([]);
    // meloncafe/chromadb-remote-mcp: YARN_ENABLE_SCRIPTS=false on the command, or in the stage's ENV.
    const scripts = (df: string) => readDockerfile('Dockerfile', df).installs[0]!.scriptsDisabled;
    expect(scripts('FROM node:22\nRUN YARN_ENABLE_SCRIPTS=false yarn install --immutable\n')).toBe(true);
    expect(scripts('FROM node:22\nENV YARN_ENABLE_SCRIPTS=false\nRUN yarn workspaces focus --production\n')).toBe(true);
    expect(scripts('FROM node:22\nRUN yarn install --immutable\n')).toBe(false);
  });

  it('notes code downloaded from a branch or a latest link, not data nor a pinned release', () => {
    // ethpandaops/xatu-mcp's builder stage, whose .so the runtime stage copies.
    const fetched = (run: string) =>
      readDockerfile(
        'Dockerfile',
        `FROM debian:bookworm-slim AS builder\nRUN ${run}\nFROM debian:bookworm-slim\nCOPY --from=builder /assets /assets\n`,
      ).fetchedFromBranch;
    expect(
      fetched(
        'curl -L -o /assets/libllama_go.so https://media.githubusercontent.com/media/kelindar/search/main/dist/linux-x64-avx/libllama_go.so',
      ),
    ).toEqual({
      at: { file: 'Dockerfile', line: 2 },
      text: 'curl -L -o /assets/libllama_go.so https://media.githubusercontent.com/media/kelindar/search/main/dist/linux-x64-avx/libllama_go.so',
    });
    expect(
      fetched('wget -O /usr/local/bin/sfw https://github.com/SocketDev/firewall-release/releases/latest/download/sfw-linux-x86_64'),
    ).not.toBeNull();
    // A model is data; a release by its version is fixed.
    expect(fetched('curl -L -o /assets/m.gguf https://huggingface.co/x/y/resolve/main/all-MiniLM-L6-v2-Q8_0.gguf')).toBeNull();
    expect(fetched('curl -L -o /usr/local/bin/tool https://github.com/o/tool/releases/download/v1.2.3/tool-linux')).toBeNull();
    expect(
      readDockerfile('Dockerfile', 'FROM debian:bookworm-slim\nADD https://raw.githubusercontent.com/o/r/main/run.sh /usr/local/bin/run\n')
        .fetchedFromBranch,
    ).toMatchObject({ text: 'ADD https://raw.githubusercontent.com/o/r/main/run.sh' });
    // In a stage the final image does not need, it never runs.
    expect(
      readDockerfile(
        'Dockerfile',
        'FROM debian:bookworm-slim AS tools\nRUN curl -o /x.so https://e.com/o/main/x.so\nFROM debian:bookworm-slim\n',
      ).fetchedFromBranch,
    ).toBeNull();
  });

  it("counts the steps of the stages the final image needs, not a test stage's", () => {
    const df = readDockerfile(
      'Dockerfile',
      [
        'FROM node:24 AS deps',
        'RUN npm ci --ignore-scripts',
        'FROM node:24 AS test',
        'RUN npm install && npm test',
        'FROM node:24 AS sbom',
        'RUN npm sbom --sbom-format cyclonedx > /sbom.json',
        'FROM node:24-slim',
        'COPY --from=deps /node_modules /app/node_modules',
        'RUN --mount=type=bind,from=sbom,source=/sbom.json,target=/tmp/sbom.json cp /tmp/sbom.json /app/',
      ].join('\n'),
    );
    expect(df.installs.map((i) => i.text)).toEqual(['npm ci --ignore-scripts']);
    // A stage mounted into a RUN is built too.
    expect(df.sbom?.line).toBe(6);
  });

  it('stops at the target stage a build names', () => {
    const text = [
      'FROM node:24 AS prod',
      'RUN npm ci --ignore-scripts',
      'USER node',
      'FROM prod AS dev',
      'RUN npm install -g nodemon',
      'USER root',
    ].join('\n');
    expect(readDockerfile('Dockerfile', text).user?.value).toBe('root');
    const prod = readDockerfile('Dockerfile', text, new Map(), 'prod');
    expect(prod.user?.value).toBe('node');
    expect(prod.installs.map((i) => i.text)).toEqual(['npm ci --ignore-scripts']);
  });

  it('reads a BuildKit here-document as the script it is, or as the data a command reads', () => {
    const df = readDockerfile(
      'Dockerfile',
      [
        'FROM node:24',
        'RUN <<EOF',
        'set -e',
        'npm install -g some-mcp-server',
        'EOF',
        'RUN <<-"EOT" bash',
        '\tnpm ci --ignore-scripts',
        '\tEOT',
        'RUN cat <<CONF > /etc/npmrc',
        'npm install -g not-a-command',
        'CONF',
        'USER node',
      ].join('\n'),
    );
    expect(df.installs.map((i) => [i.text, i.locked])).toEqual([
      ['npm install -g some-mcp-server', false],
      ['npm ci --ignore-scripts', true],
    ]);
    expect(df.user?.at.line).toBe(12);
  });

  it('keeps reading a RUN past a comment line inside its continuation, as Docker drops that line', () => {
    // microsoft/playwright-mcp's base stage.
    const df = readDockerfile(
      'Dockerfile',
      [
        'FROM node:22',
        'RUN npm ci --omit=dev && \\',
        '  # Install system dependencies for playwright',
        '  npm install -g some-mcp-server',
      ].join('\n'),
    );
    expect(df.installs.map((i) => i.text)).toEqual(['npm ci --omit=dev', 'npm install -g some-mcp-server']);
  });

  it('reads the installs inside if/then/else and loops as the commands they are', () => {
    // agentic-community/mcp-gateway-registry's docker/Dockerfile.mcp-server.
    const df = readDockerfile(
      'Dockerfile',
      [
        'FROM python:3.12-slim',
        'RUN . .venv/bin/activate && \\',
        '    if [ -f pyproject.toml ]; then \\',
        '        uv pip install --requirement pyproject.toml; \\',
        '    else uv sync --locked; fi',
        'RUN for p in a b; do pip install mcp-server-$p==1.0; done',
      ].join('\n'),
    );
    expect(df.installs.map((i) => i.text)).toEqual([
      'uv pip install --requirement pyproject.toml',
      'uv sync --locked',
      'pip install mcp-server-$p==1.0',
    ]);
  });
});
