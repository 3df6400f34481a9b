// biome-ignore-all lint/suspicious/noTemplateCurlyInString: shell ${VAR} references in health checks, not JavaScript templates
// A health check that can never fail says nothing of the server's health.
import { describe, expect, it } from 'vitest';
import { checksNothing, checksOnlyWhen, failsAlways } from '../../../src/collect/docker-defaults.js';
import { collectWith, fact, inline } from '../../helpers/collect.js';

describe('a health check that checks nothing', () => {
  it('is true, exit 0, an echo, or an interpreter told only to exit', () => {
    for (const t of [
      'CMD true',
      'CMD-SHELL exit 0',
      '["CMD", "/bin/true"]',
      '["CMD-SHELL", "echo ok"]',
      '["CMD", "python", "-c", "import sys; sys.exit(0)"]',
      '--interval=30s --timeout=3s \\\n    CMD python -c "import sys; sys.exit(0)"',
      'CMD node -e "process.exit(0)"',
      // nsmaassel/HelloMCP's mcp-sdk-dotnet/Dockerfile.
      'CMD echo "MCP SDK Server health check - running" || exit 1',
      // Dezocode/mcp-system's docker-compose.dev.yml.
      '["CMD", "python3", "-c", "print(\'Health OK\')"]',
      'CMD node -e "console.log(\'ok\')"',
      // PagerDuty/pagerduty-mcp-server's Dockerfile.
      'CMD python -c "import pagerduty_mcp" || exit 1',
      // datanexum/databridge-mcp's Dockerfile.mcp: importing, then printing, still calls nothing that can fail.
      'CMD python -c "import fastmcp; print(\'ok\')"',
      // basicmachines-co/basic-memory's Dockerfile and docker-compose.yml: a version answers without the server.
      'CMD basic-memory --version',
      '["CMD", "basic-memory", "--version"]',
    ])
      expect(checksNothing(t), t).toBe(true);
    for (const t of [
      '["CMD", "curl", "-f", "http://localhost:8000/health"]',
      'CMD python -c "import urllib.request; urllib.request.urlopen(\'http://localhost:8000/health\')"',
      '["CMD-SHELL", "echo ok | nc localhost 8000"]',
      'CMD python /usr/local/bin/healthcheck.py',
      'CMD pgrep -f server.py',
      'CMD curl -f http://localhost:8080/health || exit 1',
      "CMD python -c \"print(__import__('urllib.request').request.urlopen('http://localhost:8000/health').status)\"",
    ])
      expect(checksNothing(t), t).toBe(false);
  });

  it('gives no health check in a Compose service or a Dockerfile', () => {
    // barvhaim/virustotal-mcp-server: the same check in docker-compose.yml and its Dockerfile.
    const files = (compose: string, dockerfileCheck = '') => ({
      'compose.yaml': `services:\n  virustotal-mcp:\n    build: .\n    ports: ["8000:8000"]\n${compose}`,
      Dockerfile: `FROM python:3.13-slim\nRUN pip install mcp==1.20.0\nUSER 1000\n${dockerfileCheck}CMD ["python", "mcp_server.py"]\n`,
    });
    const service = collectWith(inline(files('    healthcheck:\n      test: ["CMD", "python", "-c", "import sys; sys.exit(0)"]\n')))
      .deployments[0]!;
    expect(fact(service, 'container.healthcheck')).toBe(false);
    expect(service.sources['container.healthcheck']![0]).toMatchObject({
      line: 6,
      why: 'the healthcheck can never fail: it checks nothing of the server',
    });
    const image = collectWith(inline(files('', 'HEALTHCHECK --interval=30s CMD python -c "import sys; sys.exit(0)"\n'))).deployments[0]!;
    expect(fact(image, 'container.healthcheck')).toBe(false);
    const real = collectWith(inline(files('', 'HEALTHCHECK CMD curl -f http://localhost:8000/health\n'))).deployments[0]!;
    expect(fact(real, 'container.healthcheck')).toBe(true);
  });
});

describe('a Compose health check written as a string that starts with CMD', () => {
  it('runs `CMD` as a shell command: it fails whatever the server does', () => {
    // flyfox666/Mcpo-Docker's docker-compose.example.yml: `test: CMD curl -f http://localhost:8000/docs`.
    const check = (test: string) =>
      collectWith(
        inline({
          'compose.yaml': `services:\n  mcpo:\n    build: .\n    ports: ["8000:8000"]\n    healthcheck:\n      test: ${test}\n`,
          Dockerfile: 'FROM python:3.12-slim\nRUN pip install mcp==1.20.0\nCMD ["python", "server.py"]\n',
        }),
      ).deployments[0]!;
    const d = check('CMD curl -f http://localhost:8000/docs');
    expect(fact(d, 'container.healthcheck')).toBe(false);
    expect(d.sources['container.healthcheck']![0]).toMatchObject({
      line: 6,
      why: 'a string test runs in a shell, which takes `CMD` for a command no image has: the check fails whatever the server does',
    });
    expect(fact(check('curl -f http://localhost:8000/docs'), 'container.healthcheck')).toBe(true);
    // After an `||` the shell runs the rest, which is then the check (ZanzyTHEbar/mcp-memory-libsql-go's folded test).
    const folded = check(
      '>\n        CMD-SHELL\n        curl -fsS http://127.0.0.1:8090/healthz ||\n        pgrep -x mcp-memory-libsql-go >/dev/null',
    );
    expect(fact(folded, 'container.healthcheck')).toBe(true);
    expect(fact(check('CMD-SHELL curl -f http://localhost:8000/docs || exit 0'), 'container.healthcheck')).toBe(false);
    expect(fact(check('["CMD", "curl", "-f", "http://localhost:8000/docs"]'), 'container.healthcheck')).toBe(true);
    // A list whose first word is not NONE, CMD or CMD-SHELL (seanchatmangpt/erlmcp's `["/opt/erlmcp/bin/erlmcp", "ping"]`): no probe runs.
    const list = check('["/opt/erlmcp/bin/erlmcp", "ping"]');
    expect(fact(list, 'container.healthcheck')).toBe(false);
    expect(list.sources['container.healthcheck']![0]!.why).toBe(
      'the test list starts with `/opt/erlmcp/bin/erlmcp`, not CMD or CMD-SHELL: Docker runs no probe for it',
    );
    expect(fact(check('["CMD-SHELL", "curl -f http://localhost:8000/docs || exit 1"]'), 'container.healthcheck')).toBe(true);
  });
});

describe("a stdio server's health check on an HTTP port", () => {
  it('fails whatever the server does: undecided, not a health check', () => {
    // DustHoff/msgraphmcp: the image checks http://localhost:8080/health, which only its HTTP mode serves;
    // the Compose service keeps stdin open for a stdio client.
    const files = (service: string) => ({
      Dockerfile:
        'FROM node:22-slim\nRUN npm install -g @softeria/ms-365-mcp-server@0.20.0\nUSER node\nHEALTHCHECK CMD curl -f http://localhost:8080/health || exit 1\nCMD ["ms-365-mcp-server"]\n',
      'compose.yaml': `services:\n  msgraphmcp:\n    build: .\n${service}`,
    });
    const stdio = collectWith(inline(files('    stdin_open: true\n'))).deployments[0]!;
    expect(fact(stdio, 'transport.kind')).toBe('stdio');
    expect(fact(stdio, 'container.healthcheck')).toBeUndefined();
    expect(stdio.reasons['container.healthcheck']).toMatch(
      /^the health check fetches an HTTP URL of the container \(Dockerfile:4\), and the server speaks stdio here/,
    );
    const http = collectWith(inline(files('    ports: ["8080:8080"]\n'))).deployments[0]!;
    expect(fact(http, 'container.healthcheck')).toBe(true);
  });
});

describe('a health check that checks the server on one branch only', () => {
  // davidf9999/gx-mcp-server: `ENV MCP_MODE=stdio`, and a HEALTHCHECK that only echoes unless MCP_MODE is http.
  const check = [
    'HEALTHCHECK --interval=10s CMD if [ "$MCP_MODE" = "http" ]; then \\',
    '      python -c "import urllib.request; urllib.request.urlopen(\'http://localhost:8000/mcp/health\')"; \\',
    '    else \\',
    '      echo "STDIO mode - no healthcheck needed"; \\',
    '    fi',
  ].join('\n');

  it('names the condition, and is neither a check nor none', () => {
    expect(checksOnlyWhen(check)).toBe('$MCP_MODE = http');
    expect(checksOnlyWhen('CMD if [ -f /ready ]; then echo ok; else echo no; fi')).toBeNull();
    expect(checksOnlyWhen('CMD curl -f http://localhost:8000/health')).toBeNull();
  });

  it('or a test before `||` that passes without a look while it holds', () => {
    // topoteretes/cognee's cognee-mcp/Dockerfile.
    expect(
      checksOnlyWhen(
        'HEALTHCHECK --interval=30s CMD [ "${TRANSPORT_MODE:-stdio}" = "stdio" ] || curl -f http://localhost:8000/health || exit 1',
      ),
    ).toBe('[ "${TRANSPORT_MODE:-stdio}" = "stdio" ] fails');
    expect(checksOnlyWhen('["CMD-SHELL", "[ \\"$X\\" = \\"stdio\\" ] || curl -f http://localhost:8000/health"]')).toBe(
      '[ "$X" = "stdio" ] fails',
    );
    // A test that fails the check itself is the check.
    expect(checksOnlyWhen('HEALTHCHECK CMD [ -f /tmp/ready ] || exit 1')).toBeNull();
    expect(checksOnlyWhen('HEALTHCHECK CMD curl -f http://localhost:8000/health || exit 1')).toBeNull();
  });

  it('leaves container.healthcheck undecided in the image and in a Compose service', () => {
    const dockerfile = `FROM python:3.12-slim\nRUN pip install mcp==1.20.0\nENV MCP_MODE=stdio\n${check}\nCMD ["python", "server.py"]\n`;
    const image = collectWith(inline({ Dockerfile: dockerfile })).deployments[0]!;
    expect(fact(image, 'container.healthcheck')).toBeUndefined();
    expect(image.reasons['container.healthcheck']).toMatch(/^HEALTHCHECK in Dockerfile checks the server only when \$MCP_MODE = http/);
    const compose = collectWith(
      inline({
        'compose.yaml': [
          'services:',
          '  gx-mcp:',
          '    build: .',
          '    healthcheck:',
          '      test: ["CMD-SHELL", "if [ \\"$$MCP_MODE\\" = http ]; then curl -f http://localhost:8000/health; else true; fi"]',
        ].join('\n'),
        Dockerfile: 'FROM python:3.12-slim\nRUN pip install mcp==1.20.0\nCMD ["python", "server.py"]\n',
      }),
    ).deployments[0]!;
    expect(fact(compose, 'container.healthcheck')).toBeUndefined();
    expect(compose.reasons['container.healthcheck']).toMatch(/^the healthcheck checks the server only when/);
  });

  it("a Compose service whose environment picks the image's branch decides it", () => {
    // zx8086/mcp-server-elasticsearch's docker-compose.monitoring.yml: `MCP_TRANSPORT=sse` for the image
    // whose HEALTHCHECK curls only when MCP_TRANSPORT is sse.
    const dockerfile = `FROM python:3.12-slim\nRUN pip install mcp==1.20.0\nENV MCP_MODE=stdio\n${check}\nCMD ["python", "server.py"]\n`;
    const service = (extra: string) =>
      collectWith(inline({ 'compose.yaml': `services:\n  gx-mcp:\n    build: .\n${extra}`, Dockerfile: dockerfile })).deployments[0]!;
    const http = service('    environment:\n      - MCP_MODE=http\n');
    expect(fact(http, 'container.healthcheck')).toBe(true);
    expect(http.sources['container.healthcheck']![0]).toMatchObject({ file: 'Dockerfile', line: 4 });
    // Nothing set: the image's own ENV picks the branch that only echoes.
    expect(fact(service(''), 'container.healthcheck')).toBe(false);
    // A variable an env_file or the operator may set stays open.
    expect(fact(service('    env_file: [mcp.env]\n'), 'container.healthcheck')).toBeUndefined();
    expect(fact(service('    environment:\n      - MCP_MODE=${MODE}\n'), 'container.healthcheck')).toBeUndefined();
  });
});

describe('a Kubernetes probe that checks nothing', () => {
  // devopsexpertlearning/mcp-search-server's k8s/mcp-deployment.yaml: both probes `node -e "process.exit(0)"`.
  const pod = (liveness: string, readiness: string) =>
    [
      'apiVersion: apps/v1',
      'kind: Deployment',
      'metadata: { name: mcp-search }',
      'spec:',
      '  selector: { matchLabels: { app: mcp } }',
      '  template:',
      '    metadata: { labels: { app: mcp } }',
      '    spec:',
      '      containers:',
      '        - name: mcp',
      '          image: ghcr.io/example/mcp-search:1.0.0',
      `          livenessProbe: ${liveness}`,
      `          readinessProbe: ${readiness}`,
    ].join('\n');
  const noOp = '{ exec: { command: ["node", "-e", "process.exit(0)"] } }';

  it('is no health check; one real probe beside it is', () => {
    const d = collectWith(inline({ 'k8s/deployment.yaml': pod(noOp, noOp) })).deployments[0]!;
    expect(fact(d, 'container.healthcheck')).toBe(false);
    expect(d.sources['container.healthcheck']![0]).toMatchObject({
      line: 12,
      why: 'the livenessProbe and readinessProbe can never fail: their commands check nothing of the server',
    });
    const real = collectWith(inline({ 'k8s/deployment.yaml': pod(noOp, '{ httpGet: { path: /health, port: 8080 } }') })).deployments[0]!;
    expect(fact(real, 'container.healthcheck')).toBe(true);
    expect(real.sources['container.healthcheck']![0]).toMatchObject({ line: 13 });
  });
});

describe('a health check in exec form written as a shell line', () => {
  it('passes the operator to curl or wget as a URL: it fails whatever the server does', () => {
    // atla-digital/mcp-workflow's docker-compose.yaml.
    expect(failsAlways(['CMD', 'wget', '--spider', 'http://localhost:3001/mcp', '||', 'exit', '1'])).toBe('||');
    expect(failsAlways('--interval=30s CMD ["curl", "-f", "http://localhost:8000/health", "||", "exit", "1"]')).toBe('||');
    // A shell runs CMD-SHELL and the shell form; python takes the words as its argv and ignores them.
    expect(failsAlways(['CMD-SHELL', 'curl -f http://localhost:8000/health || exit 1'])).toBeNull();
    expect(failsAlways('CMD curl -f http://localhost:8000/health || exit 1')).toBeNull();
    expect(failsAlways(['CMD', 'python', '-c', 'import urllib.request', '||', 'exit', '1'])).toBeNull();
    const d = collectWith(
      inline({
        'compose.yaml':
          'services:\n  mcp:\n    image: acme/mcp:1.0.0\n    ports: ["3001:3001"]\n    healthcheck:\n      test: ["CMD", "wget", "--spider", "http://localhost:3001/mcp", "||", "exit", "1"]\n',
      }),
    ).deployments[0]!;
    expect(fact(d, 'container.healthcheck')).toBe(false);
  });
});
