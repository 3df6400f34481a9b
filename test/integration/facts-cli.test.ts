// `signet facts collect` as a process: reading from disk (walks, bounds, links), exit codes,
// kubectl kustomize as a pre-step, and `nginx -T` output from the real nginx.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cleanEnv } from '../helpers/clean-env.js';
import { CLI, ROOT } from '../helpers/paths.js';
import { tempDir } from '../helpers/tmp-doctrine.js';

function collect(args: string[], cwd = ROOT) {
  const r = spawnSync(process.execPath, [CLI, 'facts', 'collect', ...args], {
    cwd,
    env: cleanEnv(),
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

describe('signet facts collect', () => {
  it("collects Signet's compose stack with its OAuth overlay, byte for byte the same twice", () => {
    const args = [
      '--compose',
      'docker-compose.yml,deploy/compose.oauth.yml',
      'docker-compose.yml',
      'deploy',
      'Dockerfile',
      'proxy',
      'package.json',
      'package-lock.json',
    ];
    const a = collect(args);
    expect(a.err).toBe('');
    expect(a.code).toBe(0);
    const out = JSON.parse(a.out);
    expect(out.format).toBe('signet-facts/1');
    expect(out.deployments.map((d: { name: string }) => d.name)).toEqual(
      expect.arrayContaining([
        'compose:docker-compose.yml:signet',
        'kubernetes:deploy/kubernetes/overlays/dev-oauth/kustomization.yaml:Deployment/signet',
      ]),
    );
    expect(collect(args).out).toBe(a.out);
  });

  it('walks a directory within bounds: links out of the root and oversized files are skipped, with the reason', () => {
    const dir = tempDir('signet-facts-');
    writeFileSync(join(dir, 'compose.yaml'), 'services:\n  mcp:\n    image: acme/mcp:1.0.0\n    ports: ["127.0.0.1:3000:3000"]\n');
    mkdirSync(join(dir, 'node_modules'));
    writeFileSync(join(dir, 'node_modules', 'compose.yaml'), 'services:\n  other:\n    image: x\n');
    symlinkSync('/etc/hostname', join(dir, 'outside.conf'));
    writeFileSync(join(dir, 'big.yaml'), 'x'.repeat(3 * 1024 * 1024));
    const r = collect([dir], dir);
    expect(r.code).toBe(0);
    const out = JSON.parse(r.out);
    expect(out.files.map((f: { path: string }) => f.path)).toEqual(['compose.yaml']);
    expect(out.skipped).toEqual([
      { path: 'big.yaml', reason: 'larger than 2097152 bytes: not read' },
      { path: 'outside.conf', reason: 'a symbolic link out of the root: not followed' },
    ]);
    expect(out.deployments[0].facts.exposure).toMatchObject({ endpoint_address_class: 'loopback', reachable_from_internet: false });
  });

  it('a link to a file the walk reads at its own path is read once, with a note', () => {
    // microsoft/azure-devops-mcp: .vscode/mcp.json is a link to ../mcp.json.
    const dir = tempDir('signet-facts-link-');
    writeFileSync(
      join(dir, 'mcp.json'),
      JSON.stringify({ servers: { ado: { type: 'stdio', command: 'npx', args: ['-y', '@azure-devops/mcp'] } } }),
    );
    mkdirSync(join(dir, '.vscode'));
    symlinkSync('../mcp.json', join(dir, '.vscode', 'mcp.json'));
    const out = JSON.parse(collect([dir], dir).out);
    expect(out.files.map((f: { path: string }) => f.path)).toEqual(['mcp.json']);
    expect(out.deployments.map((d: { name: string }) => d.name)).toEqual(['client:mcp.json:ado']);
    expect(out.notes).toContainEqual({ file: '.vscode/mcp.json', what: 'a symbolic link to mcp.json, read at its own path' });
  });

  it('hostile trees: symbolic link loops, a FIFO, /dev/zero, thousands of files; a skip or a clear error, never a hang', () => {
    const dir = tempDir('signet-facts-hostile-');
    writeFileSync(join(dir, 'compose.yaml'), 'services:\n  mcp:\n    image: acme/mcp:1.0.0\n');
    symlinkSync('loop-b.yaml', join(dir, 'loop-a.yaml'));
    symlinkSync('loop-a.yaml', join(dir, 'loop-b.yaml'));
    mkdirSync(join(dir, 'sub'));
    symlinkSync('..', join(dir, 'sub', 'up'));
    symlinkSync('/dev/zero', join(dir, 'zero.conf'));
    execFileSync('mkfifo', [join(dir, 'fifo.yaml')]);
    const walked = collect([dir], dir);
    expect(walked.code, walked.err).toBe(0);
    const out = JSON.parse(walked.out);
    expect(out.files.map((f: { path: string }) => f.path)).toEqual(['compose.yaml']);
    expect(out.skipped).toEqual(
      expect.arrayContaining([
        { path: 'loop-a.yaml', reason: 'a symbolic link to nothing' },
        { path: 'zero.conf', reason: 'a symbolic link out of the root: not followed' },
      ]),
    );
    // Named on the command line: a FIFO and a device are refused as what they are, never read.
    const named = collect([join(dir, 'fifo.yaml'), join(dir, 'compose.yaml')], dir);
    expect(named.code, named.err).toBe(0);
    expect(JSON.parse(named.out).skipped).toEqual([{ path: 'fifo.yaml', reason: 'not a regular file' }]);
    expect(collect(['/dev/zero'], '/dev').code).toBe(0);
    expect(JSON.parse(collect(['/dev/zero'], '/dev').out).skipped).toEqual([{ path: 'zero', reason: 'not a regular file' }]);
    // More files than the bound: exit 2 before reading them.
    const many = tempDir('signet-facts-many-');
    for (let i = 0; i <= 2000; i++) writeFileSync(join(many, `s${i}.conf`), '');
    const r = collect([many], many);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/more than 2000 files: name fewer paths/);
  });

  it('exit 2 with a message for a missing path, a path outside the root and a bad --env', () => {
    expect(collect(['no-such-file'])).toMatchObject({ code: 2, err: 'signet: no-such-file: no such file or directory\n' });
    expect(collect(['/etc/hostname']).err).toMatch(/is outside the root/);
    expect(collect(['--env', 'NOEQUALS', 'docker-compose.yml'])).toMatchObject({
      code: 2,
      err: 'signet: --env NOEQUALS: expected KEY=VALUE\n',
    });
    expect(collect([]).code).toBe(2);
  });

  it('--kustomize renders with kubectl where it can, and says so; where it cannot, says why and reads the resources', () => {
    const r = JSON.parse(collect(['--kustomize', 'deploy/kubernetes/base', 'deploy/kubernetes/overlays/dev', 'Dockerfile', 'proxy']).out);
    const notes = r.notes.map((n: { file: string; what: string }) => `${n.file}: ${n.what}`);
    expect(notes).toContain('deploy/kubernetes/base: rendered with kubectl kustomize');
    // The dev overlay needs generated secrets the dev recipe writes: kubectl refuses, the resources are read.
    expect(notes.some((n: string) => n.startsWith('deploy/kubernetes/overlays/dev: not rendered (loading KV pairs: file sources:'))).toBe(
      true,
    );
    expect(r.deployments.map((d: { name: string }) => d.name)).toEqual([
      'kubernetes:deploy/kubernetes/base/kustomization.yaml:Deployment/signet',
      'kubernetes:deploy/kubernetes/overlays/dev/kustomization.yaml:Deployment/signet',
    ]);
  });

  it("reads the real nginx's `nginx -T` output", () => {
    const dir = tempDir('signet-nginx-t-');
    writeFileSync(
      join(dir, 'nginx.conf'),
      `pid ${dir}/nginx.pid;\nerror_log stderr;\nevents {}\nhttp {\n  include ${dir}/conf.d/*.conf;\n}\n`,
    );
    mkdirSync(join(dir, 'conf.d'));
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'ec',
        '-pkeyopt',
        'ec_paramgen_curve:P-256',
        '-nodes',
        '-keyout',
        join(dir, 'k.pem'),
        '-out',
        join(dir, 'c.pem'),
        '-days',
        '1',
        '-subj',
        '/CN=mcp',
      ],
      { stdio: 'ignore' },
    );
    writeFileSync(
      join(dir, 'conf.d', 'mcp.conf'),
      `upstream mcp { server 127.0.0.1:8000; }\nserver {\n  listen 8443 ssl;\n  ssl_certificate ${dir}/c.pem;\n  ssl_certificate_key ${dir}/k.pem;\n  ssl_protocols TLSv1.3;\n  location /mcp {\n    proxy_pass http://mcp;\n  }\n}\n`,
    );
    const dump = spawnSync('nginx', ['-T', '-p', dir, '-c', join(dir, 'nginx.conf')], { encoding: 'utf8' });
    expect(dump.status, dump.stderr).toBe(0);
    writeFileSync(join(dir, 'nginx-T.txt'), dump.stdout);
    writeFileSync(
      join(dir, 'compose.yaml'),
      'services:\n  mcp:\n    image: acme/mcp:1.0.0\n  web:\n    image: nginx:1.27\n    ports: ["443:8443"]\n    volumes: ["./nginx-T.txt:/dump"]\n',
    );
    const out = JSON.parse(collect(['compose.yaml', 'nginx-T.txt'], dir).out);
    const d = out.deployments[0];
    expect(d.facts.tls).toMatchObject({ enabled: true, min_version: '1.3' });
    expect(d.sources['tls.min_version'][0].file).toBe('nginx-T.txt');
    expect(execFileSync('sed', ['-n', `${d.sources['tls.min_version'][0].line}p`, join(dir, 'nginx-T.txt')], { encoding: 'utf8' })).toMatch(
      /ssl_protocols TLSv1\.3;/,
    );
  });
});

describe('a repository walked: a lone service is the MCP server when the caller names its file, or when the files build it and no manifest it copies says otherwise', () => {
  // Real files a walk meets that describe no MCP server (test/fixtures/collect-walk names their sources).
  const fixture = JSON.parse(readFileSync(join(ROOT, 'test/fixtures/collect-walk/lone-services.json'), 'utf8')) as {
    files: Record<string, string>;
  };
  const repo = tempDir('signet-walk-');
  const write = (path: string, text: string) => {
    mkdirSync(dirname(join(repo, path)), { recursive: true });
    writeFileSync(join(repo, path), text);
  };
  for (const [path, text] of Object.entries(fixture.files)) write(path, text);
  // The repository's own server: one service built from a Dockerfile among the files, no "mcp" in any name:
  // a walk cannot tell it from any other lone service.
  write('weather/compose.yaml', 'services:\n  app:\n    build: .\n    ports: ["127.0.0.1:8080:8080"]\n');
  write('weather/Dockerfile', 'FROM node:24-trixie-slim\nUSER node\nCOPY server.js .\nCMD ["node", "server.js"]\n');
  // getzep/graphiti's root compose file: its REST server, built from a manifest with no MCP SDK
  // (its MCP server has compose files of its own).
  write('rest/compose.yaml', 'services:\n  graph:\n    build: .\n    ports: ["8000:8000"]\n');
  write('rest/Dockerfile', 'FROM node:24-trixie-slim\nCOPY package.json server.js ./\nRUN npm install\nCMD ["node", "server.js"]\n');
  write('rest/package.json', '{"name": "graph-rest", "dependencies": {"express": "5.1.0"}}\n');
  // A cookiecutter project template (IBM/mcp-context-forge's mcp-servers/templates/go): no deployment until generated.
  write('templates/go/{{cookiecutter.project_slug}}/Dockerfile', 'FROM golang:1.25 AS build\nCOPY . .\nRUN go build -o /mcp-server .\n');
  // metatool-ai/metamcp's development container: its compose file runs the app for a developer.
  write('.devcontainer/docker-compose.yml', 'services:\n  app:\n    build: .\n    ports: ["12008:12008"]\n');
  write('.devcontainer/Dockerfile', 'FROM node:20\nRUN npm install -g pnpm\nCMD ["sleep", "infinity"]\n');
  // A loose manifest of a third-party workload, and nothing that builds its image.
  write(
    'k8s/docs.yaml',
    'apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: docs\nspec:\n  selector:\n    matchLabels: {app: docs}\n  template:\n    metadata:\n      labels: {app: docs}\n    spec:\n      containers:\n        - name: docs\n          image: ghcr.io/example/docs-site:1.4\n',
  );
  type Out = {
    files: { path: string }[];
    deployments: { name: string; sources: Record<string, { why: string }[]> }[];
    notes: { file: string; what: string }[];
  };
  const run = (...args: string[]): Out => {
    const r = collect(args, repo);
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    return JSON.parse(r.out) as Out;
  };

  it('walked: a lone service is no deployment, built from the files or not, each with a note saying how to name it', () => {
    // A repository's lone self-built services are mostly something else (rgryta/homelab's qBittorrent,
    // instantdb's Clojure backend): with no sign of MCP, a walk names none.
    const out = run('.');
    expect(out.deployments).toEqual([]);
    const none = (what: string) => out.notes.filter((n) => n.what.startsWith(what)).map((n) => n.file);
    expect(none('no service of this Compose project is recognisably an MCP server').sort()).toEqual([
      'compose.upgrade.yml',
      'docker-compose.phoenix-simple.yml',
      'rest/compose.yaml',
      'weather/compose.yaml',
    ]);
    // A directory of tests is not walked (its deployments are fixtures), and a note says so.
    expect(out.notes).toContainEqual({
      file: 'test',
      what: 'not walked: a directory of tests, whose deployments are fixtures; name it or its files to check them',
    });
    expect(out.files.some((f) => f.path.startsWith('test/'))).toBe(false);
    expect(out.notes).toContainEqual({
      file: '.devcontainer',
      what: 'not walked: a development container (devcontainer.json), a workstation for developing the project and no deployment of it; name it or its files to check them',
    });
    expect(out.files.some((f) => f.path.startsWith('.devcontainer/'))).toBe(false);
    // Named, it is read: its compose file, the lone service of a file named.
    expect(run('.devcontainer/docker-compose.yml').deployments.map((d) => d.name)).toEqual([
      'compose:.devcontainer/docker-compose.yml:app',
    ]);
    expect(out.notes).toContainEqual({
      file: 'templates/go/{{cookiecutter.project_slug}}',
      what: 'not walked: a project template (its name holds {{ … }}), whose files are no deployment until generated',
    });
    // Named, it is walked, directories of tests within it too: its lone service, a squid test proxy, is still no server.
    expect(run('test').notes).toContainEqual({
      file: 'testdata/proxy/compose.yaml',
      what: 'no service of this Compose project is recognisably an MCP server (candidates: proxy); name it with --server',
    });
    expect(out.notes).toContainEqual({
      file: 'compose.upgrade.yml',
      what: 'no service of this Compose project is recognisably an MCP server (candidates: pg-upgrade); name it with --server',
    });
    expect(none('no workload is recognisably an MCP server')).toEqual(['k8s/docs.yaml']);
  });

  it('named: the file the caller points at is read as the deployment of its lone service, as --server would', () => {
    const upgrade = run('compose.upgrade.yml');
    expect(upgrade.deployments.map((d) => d.name)).toEqual(['compose:compose.upgrade.yml:pg-upgrade']);
    expect(upgrade.deployments[0]!.sources['container.used']![0]!.why).toMatch(/the only long-running service .*, in a file named\)$/);
    expect(run('k8s/docs.yaml').deployments.map((d) => d.name)).toEqual(['kubernetes:k8s/docs.yaml:Deployment/docs']);
    // A build whose manifests name no MCP SDK counts only when its file is named, as does the repository's own.
    expect(run('rest/compose.yaml').deployments.map((d) => d.name)).toEqual(['compose:rest/compose.yaml:graph']);
    expect(run('weather/compose.yaml').deployments.map((d) => d.name)).toEqual(['compose:weather/compose.yaml:app']);
    // --server names it in a walk too.
    expect(run('.', '--server', 'phoenix').deployments.map((d) => d.name)).toContain('compose:docker-compose.phoenix-simple.yml:phoenix');
  });
});
