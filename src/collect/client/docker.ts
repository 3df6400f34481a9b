// A server the client starts with `docker run`: the container's facts from the run flags, and
// from the Dockerfile where a Compose file among the files builds that image.

import { dockerfileFacts } from '../build-facts.js';
import type { Context } from '../context.js';
import { DAEMON_NNP, HOST_NETWORK, imageMayHoldSecrets } from '../docker-defaults.js';
import { isHostPath, volumeParts, worstHostPaths } from '../host-paths.js';
import type { Launch } from '../launch.js';
import { isPlaceholder, SECRET_NAME } from '../secrets.js';
import type { FactSheet } from '../sheet.js';
import { isObj } from './entries.js';
import { PROJECT_CONFIG } from './paths.js';
import { type Read, refersElsewhere } from './read.js';

export function dockerFacts(ctx: Context, sheet: FactSheet, r: Read, l: Launch): void {
  const d = l.docker!;
  // A tag a Compose file among the files builds: docker run starts that build.
  const built = ctx.localBuildOf(d.image);
  const f = (k: string) => d.flags.get(k) ?? [];
  const at = r.e.at('args');
  sheet.set('container.used', true, at, `${l.runner} run ${d.image}`);
  sheet.set('container.orchestrator', 'docker', at, `${l.runner} run`);
  sheet.set('container.image_pinned_by_digest', l.release === 'digest', at, `image ${d.image}`);
  sheet.set('container.read_only_root_fs', f('--read-only').length > 0, at, f('--read-only').length ? '--read-only' : 'no --read-only');
  const dropAll = f('--cap-drop').some((c) => /^(CAP_)?ALL$/i.test(c)) && !f('--cap-add').length;
  sheet.set('container.capabilities_dropped', dropAll, at, dropAll ? '--cap-drop ALL' : 'no --cap-drop ALL');
  const secOpt = f('--security-opt');
  const nnp = secOpt.find((o) => /^no-new-privileges([:=](true|false))?$/.test(o));
  if (nnp) sheet.set('container.no_new_privileges', !/false$/.test(nnp), at, `--security-opt ${nnp}`);
  else sheet.undecided('container.no_new_privileges', DAEMON_NNP);
  const privileged = f('--privileged').length > 0;
  sheet.set('container.privileged', privileged, at, privileged ? '--privileged' : 'not --privileged');
  sheet.set(
    'container.seccomp',
    privileged || secOpt.includes('seccomp=unconfined')
      ? 'unconfined'
      : secOpt.some((o) => o.startsWith('seccomp='))
        ? 'custom'
        : 'runtime_default',
    at,
    'docker run seccomp',
  );
  const vols = [...f('--volume'), ...f('--mount')];
  // `--use-api-socket` (Docker 28.1) mounts the engine's socket, as Compose's use_api_socket does.
  const apiSocket = f('--use-api-socket').some((v) => v !== 'false');
  const sock = apiSocket || vols.some((v) => /(docker|containerd|podman)\.sock/.test(v));
  sheet.set(
    'container.docker_socket_mounted',
    sock,
    at,
    apiSocket ? '--use-api-socket mounts the engine socket' : sock ? 'the Docker socket is mounted' : 'no runtime socket mounted',
  );
  const ports = f('--publish');
  sheet.set(
    'container.published_ports',
    ports.length === 0 ? 'none' : ports.every((p) => /^(127\.|\[::1\]|localhost)/.test(p)) ? 'loopback' : 'all_interfaces',
    at,
    ports.length ? `-p ${ports.join(', ')}` : 'no -p',
  );
  const limits = f('--memory').length > 0 && f('--cpus').length > 0 && f('--pids-limit').length > 0;
  sheet.set(
    'container.resource_limits',
    limits,
    at,
    limits ? '--memory, --cpus and --pids-limit' : 'not every one of --memory, --cpus, --pids-limit',
  );
  const user = f('--user')[0];
  if (user) sheet.set('container.runs_as_root', /^(0|root)(:|$)/.test(user), at, `--user ${user}`);
  else if (!built) sheet.undecided('container.runs_as_root', "no --user: the image's default user decides");
  if (built) {
    // The build's USER (unless --user), its supply chain and health check are the image's.
    dockerfileFacts(sheet, built.df, ctx.inputs, built.contextDir, built.at);
    const release = sheet.get('supply_chain.deployed_release');
    if (release !== undefined) sheet.set('client.stdio_servers_release', release, built.at, `${d.image} is built from ${built.df.path}`);
    else sheet.reopen('client.stdio_servers_release', `${d.image} is built from ${built.df.path}, whose release the build decides`);
  }
  const net = f('--network')[0];
  if (net === 'host') sheet.reopen('container.published_ports', HOST_NETWORK('--network host'));
  if (net === 'none') {
    sheet.set('egress.network_restricted', true, at, '--network none');
    sheet.set('egress.cloud_metadata_credentials_reachable', false, at, '--network none');
  } else if (net === 'host')
    sheet.set('egress.network_restricted', false, at, "--network host: the host's own network, open as the host is");
  else if (net === undefined || net === 'bridge' || net === 'default')
    sheet.set('egress.network_restricted', false, at, "Docker's default network lets the container connect anywhere");
  // A user-defined network (book-api-mcp-bundle_default) may be created --internal: outside the files.
  else
    sheet.undecided(
      'egress.network_restricted',
      `--network ${net}: whether that network is internal is set where it is created, not in the files`,
    );
  const shared = [
    net === 'host' && '--network host',
    f('--pid')[0] === 'host' && '--pid host',
    f('--ipc')[0] === 'host' && '--ipc host',
  ].filter(Boolean);
  sheet.set(
    'container.host_namespaces',
    shared.length > 0,
    at,
    shared.length ? shared.join(', ') : 'no host network, PID or IPC namespace',
  );
  // -v SRC:DST (a path, not a volume name) and --mount type=bind,src=SRC.
  const sources = [
    ...f('--volume')
      .map((v) => volumeParts(v).source)
      .filter(isHostPath),
    ...f('--mount')
      .filter((m) => /(^|,)type=bind(,|$)/.test(m))
      .map((m) => /(?:^|,)(?:source|src)=([^,]+)/.exec(m)?.[1] ?? ''),
  ];
  const mounts = worstHostPaths(sources);
  if (mounts)
    sheet.set(
      'container.host_path_mounts',
      mounts,
      at,
      sources.length ? `host paths mounted: ${sources.join(', ')}` : 'no host path mounted',
    );
  else sheet.undecided('container.host_path_mounts', `whether ${sources.join(', ')} belongs to the deployment is not shown`);
  const envs = [...d.env.entries()];
  const literal = envs.filter(([k, v]) => v !== null && SECRET_NAME.test(k) && !refersElsewhere(v) && !isPlaceholder(v));
  const passed = envs.filter(([k, v]) => v === null && SECRET_NAME.test(k));
  // `-e OBSIDIAN_API_KEY=${input:obsidian-api-key}` (15cm/obsidian-rest-mcp): the client resolves it at start.
  const referenced = envs.find(([k, v]) => v !== null && SECRET_NAME.test(k) && refersElsewhere(v));
  if (literal.length)
    sheet.set('container.secrets_source', 'manifest_plaintext', at, `-e ${literal[0]![0]}=... written in the configuration`);
  else if (passed.length) {
    // `-e NAME` takes the client's value (doctrine 1.3): the entry's `env`, or the user's session.
    const name = passed[0]![0];
    const value = isObj(r.e.spec['env']) ? r.e.spec['env'][name] : undefined;
    const file = r.e.at().file;
    const committed = PROJECT_CONFIG.test(file) && typeof value === 'string' && value.trim() !== '' && !refersElsewhere(value);
    // A placeholder (datalayer/jupyter-mcp-server's `"DOCUMENT_TOKEN": "YOUR_TOKEN"`) is no secret yet:
    // what the user puts in its place, and where, is not in the files.
    if (committed && isPlaceholder(value))
      sheet.undecided('container.secrets_source', `-e ${name}: ${file} holds the placeholder ${value}, which the user replaces`);
    else
      sheet.set(
        'container.secrets_source',
        committed ? 'manifest_plaintext' : 'environment',
        at,
        committed
          ? `-e ${name}: its value is written in ${file}, a project's configuration kept with its files`
          : `-e ${name} takes the client's value: ${value === undefined ? "the user's session" : typeof value === 'string' && refersElsewhere(value) ? `the reference ${value}` : `the entry's env in ${file}, a user's configuration outside any project`}`,
      );
  } else if (referenced)
    sheet.set(
      'container.secrets_source',
      'environment',
      at,
      `-e ${referenced[0]}=${String(referenced[1]).trim()}: the client passes the value it resolves at start`,
    );
  else if (f('--env-file').length)
    sheet.undecided(
      'container.secrets_source',
      `--env-file ${f('--env-file')[0]}: what it holds and whether it is committed is not in the files`,
    );
  else if (!built) sheet.undecided('container.secrets_source', imageMayHoldSecrets(d.image));
  else if (!sheet.has('container.secrets_source'))
    sheet.set(
      'container.secrets_source',
      'none',
      built.at,
      `no secret reaches the container from the entry, and ${built.df.path} writes none into the image`,
    );
  sheet.undecided('container.healthcheck', "a stdio server has no health endpoint; only the image's own HEALTHCHECK could say");
}
