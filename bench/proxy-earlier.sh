#!/usr/bin/env bash
# npm run bench:proxy-earlier [REF]: the proxy's cost under load, this tree beside the edge as it
# was before issue 28 (REF, default 03b78b8^: njs for keys, `signet token-verifier` for tokens),
# in the same session on the same machine. A CPU figure from another day is no baseline: the
# same bench on this machine has measured nginx's static path at 22 µs and at 65 µs per call.
# The earlier tree is checked out in a temporary worktree, installed and built there; then the
# two benches take turns, ROUNDS times (BENCH_ROUNDS, default 2), and the rows of their
# "under load" tables are printed one after the other; then bench/auth-hop-compare.mjs measures
# the auth_request hop alone, the earlier token verifier beside this auth check behind one
# minimal nginx (what differs there is the check, not the shipped configurations or Signet).
# The earlier tree's key store runs in njs:
# nginx's js module must be installed (Debian: libnginx-mod-http-js).
set -euo pipefail
ref=${1:-03b78b8^}
rounds=${BENCH_ROUNDS:-2}
root=$(git rev-parse --show-toplevel)
if ! ls /usr/lib/nginx/modules/ngx_http_js_module.so /usr/share/nginx/modules/ngx_http_js_module.so >/dev/null 2>&1; then
  echo "bench:proxy-earlier: the earlier tree needs nginx's js module (Debian: apt-get install libnginx-mod-http-js)" >&2
  exit 2
fi
work=$(mktemp -d)
trap 'git -C "$root" worktree remove --force "$work/earlier" >/dev/null 2>&1 || true; rm -rf "$work"' EXIT
git -C "$root" worktree add --detach "$work/earlier" "$ref" >/dev/null
(cd "$work/earlier" && npm ci --ignore-scripts --no-audit --no-fund >/dev/null && npm run build >/dev/null)
(cd "$root" && npm run build >/dev/null)
rows() { grep -E '^\| (Signet directly|through the proxy)' || true; }
for r in $(seq 1 "$rounds"); do
  echo "## round $r: earlier ($ref), load average $(cut -d' ' -f1 /proc/loadavg)"
  (cd "$work/earlier" && node bench/proxy-auth.mjs 2>/dev/null | rows)
  echo "## round $r: this tree ($(git -C "$root" rev-parse --short HEAD)), load average $(cut -d' ' -f1 /proc/loadavg)"
  (cd "$root" && node bench/proxy-auth.mjs 2>/dev/null | rows)
done
echo "## the auth_request hop alone: earlier token verifier and this auth check, one nginx"
(cd "$root" && node bench/auth-hop-compare.mjs "$work/earlier/dist")
