// A Dockerfile whose FROM is an image the project itself builds (stonediggity/unified-docker-mcps'
// `FROM mcp-base:latest`, which its Compose service mcp-base builds from Dockerfile.base-node): the
// final image holds both builds, and what the child does not set it takes from that image, as
// Docker does with any base. Read so, USER, ENTRYPOINT and installs of the project's base count.

import type { DockerfileInfo } from './read.js';

/** The child as built on the parent's image: Docker's inheritance, the child's own settings winning. */
export function builtOn(child: DockerfileInfo, parent: DockerfileInfo): DockerfileInfo {
  const ownCommand = child.commandAt !== null;
  const ownEntrypoint = child.entrypointAt !== null;
  // An ENTRYPOINT of the child resets the base's CMD; a CMD alone keeps the base's ENTRYPOINT.
  const entrypointOnly = ownEntrypoint ? child.entrypointOnly : parent.entrypointOnly;
  const cmd = ownCommand ? child.entrypoint.slice(child.entrypointOnly.length) : parent.entrypoint.slice(parent.entrypointOnly.length);
  const env = new Map([...parent.env, ...child.env]);
  const envAt = new Map([...parent.envAt, ...child.envAt]);
  return {
    ...child,
    base: parent.base,
    externalBases: [...parent.externalBases, ...child.externalBases.filter((b) => b.image !== child.base?.image)],
    user: child.user ?? parent.user,
    healthcheck: child.healthcheck ?? parent.healthcheck,
    copiedImages: [...parent.copiedImages, ...child.copiedImages],
    labels: new Map([...parent.labels, ...child.labels]),
    expose: child.expose ?? parent.expose,
    secretsInImage: [...parent.secretsInImage, ...child.secretsInImage],
    installs: [...parent.installs, ...child.installs],
    proxyInstalled: child.proxyInstalled ?? parent.proxyInstalled,
    auditSignatures: child.auditSignatures ?? parent.auditSignatures,
    sbom: child.sbom ?? parent.sbom,
    ignoreScriptsEnv: child.ignoreScriptsEnv ?? parent.ignoreScriptsEnv,
    fetchedFromBranch: child.fetchedFromBranch ?? parent.fetchedFromBranch,
    scriptsRun: child.scriptsRun ?? parent.scriptsRun,
    // The script the image starts: the child's, else the base's where the child keeps what starts it.
    launcher: child.launcher ?? (!ownCommand || (!ownEntrypoint && parent.launcher?.byEntrypoint) ? parent.launcher : null),
    entrypoint: [...entrypointOnly, ...cmd],
    entrypointOnly,
    entrypointAt: ownEntrypoint ? child.entrypointAt : parent.entrypointAt,
    commandAt: ownCommand ? child.commandAt : parent.commandAt,
    scratch: parent.scratch,
    env,
    envAt,
  };
}
