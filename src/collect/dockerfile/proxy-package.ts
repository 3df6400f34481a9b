// A reverse proxy a Dockerfile installs from the distribution's packages.

/** The distributions' package managers and their install verbs. */
const PACKAGE_INSTALL: Record<string, string[]> = {
  'apt-get': ['install'],
  apt: ['install'],
  apk: ['add'],
  dnf: ['install'],
  microdnf: ['install'],
  yum: ['install'],
  zypper: ['install', 'in'],
};
/** Packages that are a reverse proxy, by the product the proxy collectors read. */
const PROXY_PACKAGES: Record<string, string> = {
  nginx: 'nginx',
  'nginx-full': 'nginx',
  'nginx-light': 'nginx',
  'nginx-extras': 'nginx',
  'nginx-core': 'nginx',
  openresty: 'nginx',
  haproxy: 'haproxy',
  caddy: 'caddy',
  traefik: 'traefik',
  envoy: 'envoy',
};

/** `microdnf install -y nginx curl` → nginx: the proxy a package install puts in the image, if any. */
export function proxyPackage(w: string[]): string | null {
  const [cmd, verb, ...rest] = w;
  if (!cmd || !verb || !PACKAGE_INSTALL[cmd]?.includes(verb)) return null;
  for (const word of rest) {
    if (word.startsWith('-')) continue;
    // `nginx=1.26.*`, `nginx-1.26.3`, `nginx~1.26`: the package, whatever version it pins.
    const name = word.replace(/[=~<>].*$/, '').toLowerCase();
    if (PROXY_PACKAGES[name]) return PROXY_PACKAGES[name];
  }
  return null;
}
