#!/bin/sh
# Signet proxy start-up, step 10: write the configuration from the templates and what steps
# 1-9 exported, into SIGNET_PROXY_CONF_DIR (0700, files 0600: it may hold the static key).
set -eu
ME=40-signet-render.sh

mode=$SIGNET_PROXY_MODE
vars='${SIGNET_API_KEY} ${SIGNET_UPSTREAM} ${SIGNET_UPSTREAM_SCHEME} ${SIGNET_VERIFIER_SCHEME} ${SIGNET_VERIFIER_TLS} ${SIGNET_PROXY_LISTEN} ${SIGNET_PROXY_MAX_BODY} ${SIGNET_PROXY_TLS}
      ${SIGNET_PROXY_CONF_DIR} ${SIGNET_PROXY_RUNTIME_DIR} ${SIGNET_PROXY_ACCESS_LOG} ${SIGNET_PROXY_ERROR_LOG}
      ${SIGNET_PROXY_LOAD_MODULES} ${SIGNET_PROXY_LOG_EXTRA} ${SIGNET_PROXY_KEY_ID_HEADER} ${SIGNET_PROXY_AUTH}
      ${SIGNET_PROXY_HTTP_EXTRA} ${SIGNET_KEY_STORE} ${SIGNET_PROXY_NJS_DIR} ${SIGNET_PROXY_USER_DIRECTIVE}
      ${SIGNET_PROXY_CORS_ORIGINS} ${SIGNET_PROXY_CORS_LOOPBACK} ${SIGNET_PROXY_HSTS}
      ${SIGNET_PROXY_REAL_IP} ${SIGNET_PROXY_AUTH_FAILURES_PER_MINUTE} ${SIGNET_PROXY_AUTH_FAILURES_BURST}
      ${SIGNET_PROXY_KEY_CACHE} ${SIGNET_PROXY_WORKER_CONNECTIONS} ${SIGNET_PROXY_WORKER_RLIMIT_NOFILE}
      ${SIGNET_PROXY_CONNECTIONS_PER_CLIENT} ${SIGNET_PROXY_OAUTH_HTTP} ${SIGNET_PROXY_TOKEN_CHECK} ${SIGNET_PROXY_401_MESSAGE}
      ${SIGNET_OAUTH_RESOURCE_PATH} ${SIGNET_OAUTH_METADATA_JSON} ${SIGNET_OAUTH_METADATA_URL} ${SIGNET_OAUTH_ISSUER}'
templates=$SIGNET_PROXY_TEMPLATES
# Workers (which may run as another user than the master) use the runtime dir; only the
# master reads the configuration, which holds the key.
mkdir -p "$SIGNET_PROXY_RUNTIME_DIR"
umask 077
mkdir -p "$SIGNET_PROXY_CONF_DIR"
SIGNET_PROXY_AUTH=$(envsubst "$vars" < "$templates/auth-$mode.conf.template")
SIGNET_PROXY_HTTP_EXTRA=''
if [ "${mode%+oauth}" = store ]; then SIGNET_PROXY_HTTP_EXTRA=$(envsubst "$vars" < "$templates/auth-store-http.conf.template"); fi
export SIGNET_PROXY_AUTH SIGNET_PROXY_HTTP_EXTRA
for name in nginx.conf signet.conf errors.conf proxy-headers.conf headers.conf cors-http.conf; do
  envsubst "$vars" < "$templates/$name.template" > "$SIGNET_PROXY_CONF_DIR/$name"
done
envsubst "$vars" < "$templates/$SIGNET_PROXY_DISCOVERY.conf.template" > "$SIGNET_PROXY_CONF_DIR/discovery.conf"
[ -n "${NGINX_ENTRYPOINT_QUIET_LOGS:-}" ] ||
  echo "signet-proxy: $ME: configuration rendered into $SIGNET_PROXY_CONF_DIR ($mode mode, upstream $SIGNET_UPSTREAM_SCHEME://$SIGNET_UPSTREAM)" >&2
