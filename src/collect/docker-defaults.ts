// Reasons a container fact stays open when the files leave it to something they do not hold:
// the Docker daemon's own settings, or an image built elsewhere.

/** dockerd can set no-new-privileges for every container (daemon.json; CIS Docker Benchmark 2.14). */
export const DAEMON_NNP =
  'no no-new-privileges option: the Docker daemon\'s default decides (dockerd --no-new-privileges, or "no-new-privileges": true in daemon.json, sets it for every container), and that is not in the files';

/** Between nodes the CNI may encrypt every packet (Cilium or Calico WireGuard, IPsec): a cluster setting. */
export const CNI_HOP =
  "plain HTTP to a pod that may run on another node: whether the CNI encrypts traffic between nodes (WireGuard, IPsec) is the cluster's setting, not in the files";

/** On the host's network nothing is published: the server's own listen address decides (doctrine 1.3). */
export const HOST_NETWORK = (how: string) =>
  `${how}: nothing is published and every port the server opens is a host port; its own listen address decides (loopback only, or every interface) on the host's interfaces, and which of those are public is the host's, not in the files`;

/** What an image built elsewhere holds (files, ENV lines) is not in the files that run it. */
export const imageMayHoldSecrets = (image: string) =>
  `no secret reaches the container from the files, but ${image} is not built from files here: whether the image itself holds one (docker history, its filesystem) is not in them`;

/**
 * HTTP Basic at a proxy (doctrine 1.3's http_basic): a user name and password per client, or
 * static_bearer when one user serves every client; the number of users is in the password list.
 */
export function basicAuthMethod(
  sheet: {
    set(path: string, value: unknown, at: { file: string; line: number }, why: string): void;
    undecided(path: string, why: string): void;
  },
  at: { file: string; line: number },
  users: number | null,
  what: string,
): void {
  if (users === null)
    sheet.undecided(
      'authentication.method',
      `${what}: its password file is not among the files; a user per client is http_basic, one user for every client static_bearer`,
    );
  else if (users === 1) sheet.set('authentication.method', 'static_bearer', at, `${what} lists one user: every client shares its password`);
  else sheet.set('authentication.method', 'http_basic', at, `${what} lists ${users} users, each with a password`);
}

/**
 * A health check that can never fail, so it says nothing of the server's health
 * (barvhaim/virustotal-mcp-server's `python -c "import sys; sys.exit(0)"`): `true`, `exit 0`,
 * an `echo`, or an interpreter told only to exit 0 or print a text. `test` is the check as written, a Compose
 * list or a Dockerfile's HEALTHCHECK line.
 */
export function checksNothing(test: string): boolean {
  return nothingChecked(plainTest(test));
}

/** A health check as the shell reads it: continued lines joined, quotes and the CMD prefix dropped. */
function plainTest(test: string): string {
  return (
    test
      .replace(/\\\s*\n/g, ' ')
      .replace(/[[\]"',]/g, ' ')
      .replace(/^\s*(HEALTHCHECK\s+)?(--\S+\s+)*(CMD-SHELL|CMD)\b\s*/i, '')
      .replace(/\s+/g, ' ')
      .trim()
      // `… || exit 1` after a command that cannot fail changes nothing (nsmaassel/HelloMCP's echo).
      .replace(/\s*\|\|\s*exit( 1)?$/, '')
  );
}

function nothingChecked(t: string): boolean {
  return (
    /^(\/bin\/|\/usr\/bin\/)?(true|:)$/.test(t) ||
    /^exit 0$/.test(t) ||
    /^(\/bin\/)?echo\b[^;&|]*$/.test(t) ||
    /^(sh|bash) -c (true|exit 0|echo\b[^;&|]*)$/.test(t) ||
    /^python[\d.]* -c (import sys; ?)?(sys\.)?exit\(0?\)$/.test(t) ||
    // Printing a text calls nothing that can fail (Dezocode/mcp-system's `print('Health OK')`).
    /^python[\d.]* -c print\([^()]*\)$/.test(t) ||
    // Importing a package the image installed (PagerDuty/pagerduty-mcp-server's `import pagerduty_mcp`)
    // succeeds whether the server runs or not, and printing after it too (datanexum/databridge-mcp's
    // `import fastmcp; print('ok')`).
    /^python[\d.]* -c import [\w.]+( ?, ?[\w.]+)*(; ?print\([^()]*\))?;?$/.test(t) ||
    /^node -e (process\.exit\(0?\)|console\.log\([^()]*\))$/.test(t) ||
    // A program asked for its version or help answers whether the server runs or not
    // (basicmachines-co/basic-memory's `basic-memory --version`).
    /^[\w./-]+ (--version|-V|version|--help|-h)$/.test(t) ||
    // A file's presence (pgEdge/pgedge-postgres-mcp's `test -f /app/pgedge-postgres-mcp`) holds whether the server runs or not.
    /^(test|\[) -[efxrsd] \S+( \])?$/.test(t)
  );
}

/**
 * A health check that checks the server on one branch of an `if` and runs a command that cannot
 * fail on the other (davidf9999/gx-mcp-server's `if [ "$MCP_MODE" = "http" ]; then python -c …;
 * else echo "STDIO mode - no healthcheck needed"; fi`): the condition, as written, or null.
 */
export function checksOnlyWhen(test: string): string | null {
  // `[ "${TRANSPORT_MODE:-stdio}" = "stdio" ] || curl -f …` (topoteretes/cognee's cognee-mcp): healthy
  // without a look while the test holds.
  const or = /(?:^|CMD(?:-SHELL)?\s+|["'])(\[ [^\]]+ \]|test [^|;&]+?)\s*\|\|\s*(.+)$/.exec(test.replace(/\\\s*\n/g, ' ').trim());
  const rest = or ? plainTest(or[2]!) : '';
  // `[ -f /tmp/ready ] || exit 1` checks the test itself.
  if (or && !/^(exit\b|false$)/.test(rest) && !nothingChecked(rest)) return `${or[1]!.replace(/\\"/g, '"').trim()} fails`;
  const m = /^if (.+?); then (.+?);? else (.+?);? fi$/.exec(plainTest(test).replace(/;\s*;/g, ';'));
  if (!m) return null;
  const [, condition, yes, no] = m;
  return nothingChecked(yes!.trim()) !== nothingChecked(no!.trim()) ? condition!.trim() : null;
}

/**
 * A health check in exec form that writes shell syntax as arguments (atla-digital/mcp-workflow's
 * `["CMD", "wget", "--spider", "http://localhost:3001/mcp", "||", "exit", "1"]`): no shell runs, so
 * curl or wget takes `||`, `exit` and `1` for more URLs to fetch and fails whatever the server does.
 * `test` is a Compose list or a Dockerfile's HEALTHCHECK line; the operator found, or null.
 */
export function failsAlways(test: unknown): string | null {
  let words: unknown = test;
  if (typeof test === 'string') {
    const json = /\bCMD\s*(\[[\s\S]*\])\s*$/.exec(test);
    try {
      words = json ? JSON.parse(json[1]!) : null;
    } catch {
      words = null;
    }
    if (Array.isArray(words)) words = ['CMD', ...words];
  }
  if (!Array.isArray(words) || words[0] !== 'CMD') return null;
  const args = words.slice(1).map(String);
  if (!/^(curl|wget)$/.test(args[0]?.split('/').pop() ?? '')) return null;
  return args.find((w) => ['||', '&&', '|', ';'].includes(w)) ?? null;
}
