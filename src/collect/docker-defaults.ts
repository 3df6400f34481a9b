// Reasons a container fact stays open when the files leave it to something they do not hold:
// the Docker daemon's own settings, or an image built elsewhere.

/** dockerd can set no-new-privileges for every container (daemon.json; CIS Docker Benchmark 2.14). */
export const DAEMON_NNP =
  'no no-new-privileges option: the Docker daemon\'s default decides (dockerd --no-new-privileges, or "no-new-privileges": true in daemon.json, sets it for every container), and that is not in the files';

/** Between nodes the CNI may encrypt every packet (Cilium or Calico WireGuard, IPsec): a cluster setting. */
export const CNI_HOP =
  "plain HTTP to a pod that may run on another node: whether the CNI encrypts traffic between nodes (WireGuard, IPsec) is the cluster's setting, not in the files";

/** What an image built elsewhere holds (files, ENV lines) is not in the files that run it. */
export const imageMayHoldSecrets = (image: string) =>
  `no secret reaches the container from the files, but ${image} is not built from files here: whether the image itself holds one (docker history, its filesystem) is not in them`;
