#!/bin/sh
# Renders the Signet reference proxy configuration outside a container (the process-stack
# tests, bench:proxy): runs the image's docker-entrypoint.d steps in order, as the image's
# /docker-entrypoint.sh does (*.envsh sourced, *.sh run), so both get byte-for-byte the same
# rules. The steps, one concern and one number each:
#   31-signet-defaults.envsh        the contract (contract.sh), paths, upstream, listener, logs, helpers
#   32-signet-auth.envsh            SIGNET_PROXY_AUTH_CHECK or SIGNET_API_KEY; SIGNET_AUTH_MODE and the OAuth URLs
#   33-signet-tls.envsh             HTTPS from SIGNET_TLS_DIR
#   34-signet-cors.envsh            SIGNET_ALLOWED_ORIGINS, SIGNET_ALLOW_LOOPBACK_ORIGINS
#   35-signet-client-address.envsh  SIGNET_PROXY_TRUSTED_PROXIES, SIGNET_PROXY_REAL_IP_HEADER, the IPv6 bucket
#   36-signet-limits.envsh          refused credentials, requests per principal, connections
#   37-signet-upstream.envsh        HTTPS to Signet and the auth check; SIGNET_PROXY_SECRET_FILE
#   40-signet-render.envsh          the one rendering pass, into SIGNET_PROXY_CONF_DIR
# (50-signet-watch-upstream.sh, the compose DNS watcher, runs in the container only.)
# Every variable is documented in docs/configuration.md.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
export SIGNET_PROXY_HOME="${SIGNET_PROXY_HOME:-$here}"
for step in "$here"/docker-entrypoint.d/[34]*-signet-*.envsh; do
  # shellcheck source=/dev/null
  . "$step"
done
