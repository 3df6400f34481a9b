// The container a Compose service runs: replicas, user, capabilities, mounts, namespaces, limits,
// health check and published ports.
import { posix } from 'node:path';
import { userIsRoot } from '../build-facts.js';
import { checksNothing, checksOnlyWhen, DAEMON_NNP, failsAlways } from '../docker-defaults.js';
import { takenBranches } from '../dockerfile/taken-branches.js';
import { isHostPath, worstHostPaths } from '../host-paths.js';
import { tlsVerification } from '../server-args.js';
import type { At, FactSheet } from '../sheet.js';
import { expandVariables } from '../shell.js';
import { Unresolved } from './interpolate.js';
import { isObj, type Obj } from './load.js';
import { containerEnv, healthcheckOf, publishedPorts, type Svc, str, volumesOf, volumesOfSpec } from './service.js';

export function replicas(sheet: FactSheet, srv: Svc): void {
  const spec = srv.s.spec;
  const deploy = isObj(spec['deploy']) ? spec['deploy'] : {};
  const n = Number(deploy['replicas'] ?? spec['scale'] ?? 1);
  const where =
    deploy['replicas'] !== undefined ? srv.s.at('deploy', 'replicas') : spec['scale'] !== undefined ? srv.s.at('scale') : srv.s.at();
  if (Number.isInteger(n) && n >= 1)
    sheet.set(
      'deployment.replicas',
      n,
      where,
      (deploy['replicas'] ?? spec['scale'])
        ? 'replicas set in the service'
        : 'Compose starts one container per service unless scaled (a --scale on the command line is not in the files)',
    );
}

/**
 * A `user:` whose value is the operator's: `user: ${UID:-}` (apiwat-chantawibul/mcp-anon, whose
 * launchers `export UID`) runs as whoever starts it, root included, whatever the image's USER says.
 */
export function userFromOperator(srv: Svc): string | null {
  const u = srv.s.spec['user'];
  // `${UID:-}` resolves to nothing while UID is unset: the image's USER, until the operator exports it.
  const vars = u instanceof Unresolved ? u.variables : u === '' ? srv.s.varsAt('user') : [];
  if (!vars.length) return null;
  return `user: is set from ${vars.join(', ')}, which the files leave to the operator's environment: who runs the server is not in them`;
}

/** `projectDir`: the compose project's directory among the files read, which relative sources start from. */
export function containerFacts(sheet: FactSheet, srv: Svc, projectDir: string): void {
  const spec = srv.s.spec;
  const at = (...p: (string | number)[]) => srv.s.at(...p);
  // `user: ${UID:-1000}` is the default the file writes while UID is unset, as Compose resolves it.
  const user = str(spec['user']);
  if (user !== null) {
    const root = userIsRoot(user);
    if (root !== null) sheet.set('container.runs_as_root', root, at('user'), `user: "${user}"`);
  }
  sheet.set(
    'container.read_only_root_fs',
    spec['read_only'] === true,
    at(spec['read_only'] === undefined ? '' : 'read_only'),
    spec['read_only'] === true ? 'read_only: true' : 'no read_only: true (Compose mounts the root filesystem writable)',
  );
  const drop = ((spec['cap_drop'] as unknown[]) ?? []).map(String);
  const add = ((spec['cap_add'] as unknown[]) ?? []).map(String);
  const dropped = drop.some((c) => /^(CAP_)?ALL$/i.test(c)) && add.length === 0;
  sheet.set(
    'container.capabilities_dropped',
    dropped,
    at(spec['cap_drop'] ? 'cap_drop' : ''),
    dropped ? 'cap_drop: [ALL], nothing added back' : add.length ? `cap_add: ${add.join(', ')}` : 'no cap_drop: [ALL]',
  );
  const secOpt = ((spec['security_opt'] as unknown[]) ?? []).map(String);
  const nnp = secOpt.find((o) => /^no-new-privileges([:=](true|false))?$/.test(o));
  if (nnp) sheet.set('container.no_new_privileges', !/false$/.test(nnp), at('security_opt'), `security_opt ${nnp}`);
  else sheet.undecided('container.no_new_privileges', DAEMON_NNP);
  const privileged = spec['privileged'] === true;
  sheet.set('container.privileged', privileged, at(privileged ? 'privileged' : ''), privileged ? 'privileged: true' : 'not privileged');
  const seccomp = secOpt.find((o) => /^seccomp[:=]/.test(o));
  if (privileged) sheet.set('container.seccomp', 'unconfined', at('privileged'), 'privileged: true disables seccomp');
  else if (seccomp) sheet.set('container.seccomp', /unconfined$/.test(seccomp) ? 'unconfined' : 'custom', at('security_opt'), seccomp);
  else sheet.set('container.seccomp', 'runtime_default', at(), 'no seccomp option: Docker applies its default profile');
  const vols = volumesOf(srv);
  const sock = vols.find((v) => /(docker|containerd|podman)\.sock$/.test(v.source));
  // A mount whose source a .env the files do not hold sets (yonaka15/mcp-server-as-http-go's
  // `${DOCKER_SOCKET_PATH:-/dev/null}:…`, its example .env the Docker socket): what it mounts is open.
  const rawVolumes = Array.isArray(spec['volumes']) ? (spec['volumes'] as unknown[]) : [];
  const opaqueOf = (v: unknown) => {
    const u = v instanceof Unresolved ? v : isObj(v) && v['source'] instanceof Unresolved ? v['source'] : null;
    return u?.opaque ? u : null;
  };
  const opaque = rawVolumes.map(opaqueOf).find((u) => u !== null);
  const opaqueWhy = opaque
    ? `a volume set from ${opaque.variables.map((n) => `\${${n}}`).join(', ')}, which a .env the files do not hold may set: what it mounts is not in the files`
    : '';
  // What the other volumes mount is known; the opaque one's default is not what runs.
  const known = opaque ? volumesOfSpec({ volumes: rawVolumes.filter((v) => !opaqueOf(v)) }) : vols;
  // Compose's `use_api_socket: true` mounts the engine's API socket (and the user's registry
  // credentials) into the container: docker/compose-for-agents runs its MCP gateway so.
  if (spec['use_api_socket'] === true)
    sheet.set(
      'container.docker_socket_mounted',
      true,
      at('use_api_socket'),
      "use_api_socket: true mounts the container engine's API socket",
    );
  else if (!sock && opaque) sheet.undecided('container.docker_socket_mounted', opaqueWhy);
  else
    sheet.set(
      'container.docker_socket_mounted',
      !!sock,
      at(sock ? 'volumes' : ''),
      sock ? `${sock.source} is mounted` : 'no container runtime socket among the volumes',
    );
  // Bind mounts (a path, not a volume name): the deployment's own files, or the host's.
  const binds = known.filter((v) => isHostPath(v.source)).map((v) => v.source);
  // A relative source that climbs above the files read (`../../` from a compose file one folder
  // down, WebSurfinMurf/mcp's filesystem-sse) is not the deployment's own: what it holds is not in them.
  const outside = binds.find((b) => /^\.\.?(\/|$)/.test(b) && /^\.\.(\/|$)/.test(posix.normalize(posix.join(projectDir || '.', b))));
  const worst = worstHostPaths(binds);
  const mounts = outside && worst !== 'host_system' ? null : worst;
  // The engine's socket, however mounted, is a host system path (docker/compose-for-agents' gateways).
  if (spec['use_api_socket'] === true)
    sheet.set(
      'container.host_path_mounts',
      'host_system',
      at('use_api_socket'),
      "use_api_socket: true mounts the container engine's API socket from the host",
    );
  else if (opaque && mounts !== 'host_system') sheet.undecided('container.host_path_mounts', opaqueWhy);
  else if (outside && mounts === null)
    sheet.undecided(
      'container.host_path_mounts',
      `${outside} climbs above the files read: what that host directory holds (other projects, their secrets) is not in them`,
    );
  else if (mounts)
    sheet.set(
      'container.host_path_mounts',
      mounts,
      at(binds.length ? 'volumes' : ''),
      binds.length ? `bind mounts: ${binds.join(', ')}` : 'no bind mount',
    );
  else sheet.undecided('container.host_path_mounts', `whether ${binds.join(', ')} belongs to the deployment is not shown`);
  const shared = ['network_mode', 'pid', 'ipc'].filter((k) => spec[k] === 'host');
  sheet.set(
    'container.host_namespaces',
    shared.length > 0,
    at(shared[0] ?? ''),
    shared.length ? shared.map((k) => `${k}: host`).join(', ') : 'no host network, PID or IPC namespace',
  );
  tlsVerification(sheet, isObj(spec['environment']) ? (spec['environment'] as Obj) : {}, (k) => at('environment', k));
  if (spec['userns_mode'] === 'host') sheet.set('container.user_namespace', false, at('userns_mode'), 'userns_mode: host');
  else
    sheet.undecided(
      'container.user_namespace',
      "user namespaces are the Docker daemon's setting (userns-remap, rootless), not in the files",
    );
  const deploy = isObj(spec['deploy']) ? spec['deploy'] : {};
  const limits =
    isObj(deploy['resources']) && isObj((deploy['resources'] as Obj)['limits']) ? ((deploy['resources'] as Obj)['limits'] as Obj) : {};
  const mem = spec['mem_limit'] ?? limits['memory'];
  const cpus = spec['cpus'] ?? limits['cpus'];
  const pids = spec['pids_limit'] ?? limits['pids'];
  const all = mem !== undefined && cpus !== undefined && pids !== undefined;
  sheet.set(
    'container.resource_limits',
    all,
    at(spec['mem_limit'] !== undefined ? 'mem_limit' : 'deploy'),
    all
      ? 'memory, CPU and process limits set'
      : `missing: ${[mem === undefined && 'memory', cpus === undefined && 'cpus', pids === undefined && 'pids_limit'].filter(Boolean).join(', ')}`,
  );
  const hc = spec['healthcheck'];
  if (isObj(hc)) {
    const off = hc['disable'] === true || (Array.isArray(hc['test']) && hc['test'][0] === 'NONE');
    const broken = failsAlways(hc['test']);
    // A string test is a shell line (CMD-SHELL): flyfox666/Mcpo-Docker's `test: CMD curl -f …` runs a
    // command named CMD, which no image has, so the check fails whatever the server does; after an
    // `||` the shell runs the rest (ZanzyTHEbar/mcp-memory-libsql-go's `CMD-SHELL curl … || pgrep -x …`),
    // which is then the check.
    const named = typeof hc['test'] === 'string' && /^\s*CMD(-SHELL)?\s/.test(hc['test']) ? hc['test'].trim().split(/\s+/)[0]! : null;
    const rest = named !== null ? /\|\|([\s\S]*)$/.exec(hc['test'] as string)?.[1]?.trim() : undefined;
    const shellCmd = named !== null && !rest ? named : null;
    // The test as one line, list or string, for the readers of its command.
    const testLine = hc['test'] === undefined ? null : rest ? rest : [hc['test']].flat().map(String).join(' ');
    const onlyWhen = testLine === null ? null : checksOnlyWhen(testLine);
    // A list must start with NONE, CMD or CMD-SHELL: Docker starts no probe for any other first word
    // (seanchatmangpt/erlmcp's `test: ["/opt/erlmcp/bin/erlmcp", "ping"]`; moby's daemon/health.go).
    const noProbe =
      Array.isArray(hc['test']) && hc['test'].length > 0 && !['NONE', 'CMD', 'CMD-SHELL'].includes(String(hc['test'][0]))
        ? String(hc['test'][0])
        : null;
    if (off) sheet.set('container.healthcheck', false, at('healthcheck'), 'healthcheck disabled');
    else if (noProbe)
      sheet.set(
        'container.healthcheck',
        false,
        at('healthcheck', 'test'),
        `the test list starts with \`${noProbe}\`, not CMD or CMD-SHELL: Docker runs no probe for it`,
      );
    else if (shellCmd)
      sheet.set(
        'container.healthcheck',
        false,
        at('healthcheck', 'test'),
        `a string test runs in a shell, which takes \`${shellCmd}\` for a command no image has: the check fails whatever the server does`,
      );
    else if (broken)
      sheet.set(
        'container.healthcheck',
        false,
        at('healthcheck', 'test'),
        `the healthcheck's exec form passes \`${broken}\` as an argument (no shell runs it): the check fails whatever the server does`,
      );
    else if (testLine !== null && checksNothing(testLine))
      sheet.set(
        'container.healthcheck',
        false,
        at('healthcheck', 'test'),
        'the healthcheck can never fail: it checks nothing of the server',
      );
    else if (testLine !== null && onlyWhen)
      sheet.undecided(
        'container.healthcheck',
        `the healthcheck checks the server only when ${onlyWhen}, and passes without a look otherwise: the environment it runs in decides`,
      );
    else if (hc['test'] !== undefined) sheet.set('container.healthcheck', true, at('healthcheck'), 'healthcheck in the service');
  }
  const ports = publishedPorts(srv);
  if (ports.kind === 'unknown')
    sheet.undecided('container.published_ports', `ports: ${ports.text} by default, but a .env the files do not hold may change them`);
  else sheet.set('container.published_ports', ports.kind, ports.at, ports.kind === 'none' ? 'no ports: entry' : `ports: ${ports.text}`);
}

/**
 * The image's HEALTHCHECK where its `if` tests a variable the service sets (zx8086/mcp-server-elasticsearch:
 * `MCP_TRANSPORT=sse` in the service, `if [ "$MCP_TRANSPORT" = "sse" ]; then curl …; else echo …; fi`):
 * the branch that runs is in the files. A variable an `env_file` may set stays open, as does one set nowhere.
 */
export function healthcheckByEnvironment(sheet: FactSheet, srv: Svc): void {
  const hc = srv.df?.healthcheck;
  if (!hc || hc.disabled || srv.s.spec['healthcheck'] !== undefined || sheet.has('container.healthcheck') || !checksOnlyWhen(hc.test))
    return;
  const env = isObj(srv.s.spec['environment']) ? (srv.s.spec['environment'] as Obj) : {};
  const fixed = (name: string): string | undefined => {
    if (name in env) return typeof env[name] === 'string' || typeof env[name] === 'number' ? String(env[name]) : undefined;
    return srv.s.spec['env_file'] === undefined ? srv.df!.env.get(name) : undefined;
  };
  const written = hc.test.replace(/^\s*CMD(-SHELL)?\s+/, '');
  const settled = takenBranches(written, fixed);
  if (settled === written.replace(/\\\r?\n/g, ' ')) return;
  const nothing = checksNothing(settled.trim().replace(/\s*;\s*$/, ''));
  sheet.set(
    'container.healthcheck',
    !nothing,
    hc.at,
    `HEALTHCHECK in ${srv.df!.path} takes the branch the service's environment picks${nothing ? ', which checks nothing of the server' : ', which checks the server'}`,
  );
}

/**
 * A health check that fetches `http://localhost:PORT` inside the container, where PORT is a
 * container port the service publishes with nothing in front: clients reach that port in plain
 * HTTP (the check succeeds only if it answers plain HTTP).
 */
export function plainHealthcheck(
  srv: Svc,
  published: { kind: string; text: string },
  front = 'with no proxy in front',
): { at: At; why: string } | null {
  if (published.kind === 'none') return null;
  const targets = new Set(
    published.text
      .split(', ')
      .map((t) => t.split('/')[0]!.split(':').pop()!)
      .filter((p) => /^\d+$/.test(p)),
  );
  const c = healthcheckOf(srv);
  if (c) {
    // The port as the container's environment, or the variable's default, gives it
    // (agigante80/actual-mcp-server's `http://localhost:${MCP_BRIDGE_PORT:-3600}/health`).
    const env = containerEnv(srv);
    const test = expandVariables(c.test, (name) => env.get(name));
    const m = /\bhttp:\/\/(?:localhost|127\.0\.0\.1|\[::1\])(?::(\d+))?(\/(mcp|sse)\b)?/.exec(test);
    // One published port: the health check's port is the one that serves the endpoint; with several,
    // only a check of the MCP endpoint itself says so (fyl080801/comfyui-mcp's `http://localhost:8080/mcp`).
    if (m && targets.has(m[1] ?? '80') && (targets.size === 1 || m[2]))
      return {
        at: c.at,
        why: `the health check fetches http://…:${m[1] ?? '80'} and the service publishes that port (${published.text}) ${front}: clients reach it in plain HTTP`,
      };
  }
  return null;
}
