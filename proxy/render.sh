#!/bin/sh
# Renders the Signet reference proxy configuration outside a container (the process-stack
# tests, bench:proxy): runs the image's docker-entrypoint.d steps in order, as the image's
# /docker-entrypoint.sh does (*.envsh sourced, *.sh run), so both get byte-for-byte the
# same rules. The steps, one concern each:
#   31-signet-defaults.envsh        paths, upstream, listener, logs; the log and fail helpers
#   32-signet-auth-mode.envsh       SIGNET_AUTH_MODE; static key (SIGNET_API_KEY) or key store (SIGNET_KEY_STORE)
#   32-signet-oauth.envsh           OAuth: SIGNET_OAUTH_ISSUER, SIGNET_OAUTH_RESOURCE, the token verifier
#   33-signet-key-cache.envsh       key decisions in an njs shared dict (njs 0.8+)
#   34-signet-tls.envsh             HTTPS from SIGNET_TLS_DIR
#   35-signet-cors.envsh            SIGNET_ALLOWED_ORIGINS
#   36-signet-client-address.envsh  SIGNET_PROXY_TRUSTED_PROXIES, SIGNET_PROXY_REAL_IP_HEADER
#   37-signet-refused-keys.envsh    SIGNET_PROXY_AUTH_FAILURES_PER_MINUTE / _BURST
#   38-signet-connections.envsh     SIGNET_PROXY_WORKER_CONNECTIONS, SIGNET_PROXY_CONNECTIONS_PER_CLIENT
#   39-signet-upstream-auth.envsh   SIGNET_PROXY_SECRET_FILE: the proxy's credential towards Signet
#   40-signet-render.sh             the templates into SIGNET_PROXY_CONF_DIR
# (50-signet-watch-upstream.sh, the compose DNS watcher, runs in the container only.)
# Every variable is documented in docs/configuration.md.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
export SIGNET_PROXY_HOME="${SIGNET_PROXY_HOME:-$here}"
for step in "$here"/docker-entrypoint.d/3*-signet-*.envsh "$here"/docker-entrypoint.d/40-signet-render.sh; do
  case "$step" in
    *.envsh) . "$step" ;;
    *.sh) sh "$step" ;;
  esac
done
