#!/bin/sh
# Renders the Signet reference proxy configuration from templates/ into a directory,
# refusing to produce a configuration that could let an unauthenticated request through.
# The container runs it from /docker-entrypoint.d; the tests run the same script against
# Debian's nginx, so both stacks get byte-for-byte the same rules.
#
# Environment (defaults are the container's):
#   SIGNET_API_KEY            static mode: the one bearer key (sgnk_...)
#   SIGNET_KEY_STORE          store mode (no SIGNET_API_KEY): /keys/keys.json, written by `signet keys`
#   SIGNET_PROXY_NJS_DIR      where signet_auth.js is; SIGNET_PROXY_NJS_MODULE the njs .so to load
#   SIGNET_PROXY_NJS_SHARED_DICT  auto: keep key decisions in a shared dict when this njs has them
#                             (0.8+; checked with nginx -t), on, off
#   SIGNET_UPSTREAM           signet:3000
#   SIGNET_PROXY_WATCH_UPSTREAM  1 (compose): reload nginx when the upstream name's addresses change
#   SIGNET_PROXY_LISTEN       8080 (address:port or port)
#   SIGNET_PROXY_MAX_BODY     1m   (keep equal to the server's SIGNET_MAX_BODY_BYTES)
#   SIGNET_PROXY_TRUSTED_PROXIES  unset: the peer is the client. Else the front proxies (CIDRs)
#                             whose X-Forwarded-For or PROXY protocol header names the client
#   SIGNET_PROXY_REAL_IP_HEADER   X-Forwarded-For, or proxy_protocol (the listener then expects
#                             the PROXY protocol on every connection)
#   SIGNET_PROXY_AUTH_FAILURES_PER_MINUTE  60 and SIGNET_PROXY_AUTH_FAILURES_BURST 20: refused
#                             keys per client address (a burst, then so many a minute), then 429
#   SIGNET_TLS_DIR            /etc/signet/tls: if tls.crt and tls.key are there, serve HTTPS
#   SIGNET_ALLOWED_ORIGINS    browser origins allowed to call /mcp (CORS), the same list the server reads
#   SIGNET_PROXY_CONF_DIR     /tmp/nginx (rendered files), SIGNET_PROXY_RUNTIME_DIR (pid, temp)
#   SIGNET_PROXY_ACCESS_LOG   /dev/stdout, SIGNET_PROXY_ERROR_LOG /dev/stderr
#   SIGNET_PROXY_WORKER_USER  unset (nginx started as root outside a container: the store's owner)
set -eu

here=$(cd "$(dirname "$0")" && pwd)
TEMPLATES=${SIGNET_PROXY_TEMPLATES:-$here/templates}
export SIGNET_PROXY_CONF_DIR="${SIGNET_PROXY_CONF_DIR:-/tmp/nginx}"
export SIGNET_PROXY_RUNTIME_DIR="${SIGNET_PROXY_RUNTIME_DIR:-$SIGNET_PROXY_CONF_DIR}"
export SIGNET_UPSTREAM="${SIGNET_UPSTREAM:-signet:3000}"
export SIGNET_PROXY_LISTEN="${SIGNET_PROXY_LISTEN:-8080}"
export SIGNET_PROXY_MAX_BODY="${SIGNET_PROXY_MAX_BODY:-1m}"
export SIGNET_PROXY_ACCESS_LOG="${SIGNET_PROXY_ACCESS_LOG:-/dev/stdout}"
export SIGNET_PROXY_ERROR_LOG="${SIGNET_PROXY_ERROR_LOG:-/dev/stderr}"
# Only for nginx started as root outside the container (workers must read the 0600 key
# store as its owner); the container runs everything as uid 101 and needs no user directive.
export SIGNET_PROXY_USER_DIRECTIVE="${SIGNET_PROXY_WORKER_USER:+user $SIGNET_PROXY_WORKER_USER;}"
export SIGNET_PROXY_LOG_EXTRA=''
TLS_DIR=${SIGNET_TLS_DIR:-/etc/signet/tls}

fail() {
  echo "signet-proxy: refusing to start: $*" >&2
  exit 1
}

# ---- authentication mode. Keys are never printed. ------------------------------------------
# static: SIGNET_API_KEY is the one accepted key (exact, case-sensitive header match).
# store:  no SIGNET_API_KEY: every active key of the hashed store (njs reads it per request).
key=${SIGNET_API_KEY:-}
export SIGNET_KEY_STORE="${SIGNET_KEY_STORE:-/keys/keys.json}"
export SIGNET_PROXY_NJS_DIR="${SIGNET_PROXY_NJS_DIR:-$here/njs}"
export SIGNET_PROXY_NJS_MODULE="${SIGNET_PROXY_NJS_MODULE:-modules/ngx_http_js_module.so}"
if [ -n "$key" ]; then
  mode=static
  case "$key" in
    sgnk_*) ;;
    *) fail "SIGNET_API_KEY is not a Signet key: it must be sgnk_ followed by letters and digits (make one with 'signet keys new')." ;;
  esac
  body=${key#sgnk_}
  if printf '%s' "$body" | grep -q '[^0-9A-Za-z]'; then
    fail "SIGNET_API_KEY may contain only letters and digits after sgnk_ (make one with 'signet keys new')."
  fi
  [ "${#body}" -ge 32 ] || fail "SIGNET_API_KEY is too short: at least 32 letters and digits after sgnk_ (make one with 'signet keys new')."
else
  mode=store
  [ -r "$SIGNET_KEY_STORE" ] || fail "no API key: set SIGNET_API_KEY (make one with 'signet keys new'), or create keys in the store $SIGNET_KEY_STORE with 'signet keys create --name NAME' (the compose stack's keys service does this on first start)."
  [ -r "$SIGNET_PROXY_NJS_DIR/signet_auth.js" ] || fail "key-store mode needs $SIGNET_PROXY_NJS_DIR/signet_auth.js"
fi
export SIGNET_API_KEY="$key"

# ---- optional TLS ------------------------------------------------------------------------
if [ -f "$TLS_DIR/tls.crt" ] && [ -f "$TLS_DIR/tls.key" ]; then
  SIGNET_PROXY_LISTEN="$SIGNET_PROXY_LISTEN ssl"
  SIGNET_PROXY_TLS="    ssl_certificate $TLS_DIR/tls.crt;
    ssl_certificate_key $TLS_DIR/tls.key;
    ssl_protocols TLSv1.2 TLSv1.3;
    ssl_prefer_server_ciphers off;
    ssl_session_cache shared:signet_tls:1m;
    ssl_session_timeout 1h;"
  SIGNET_PROXY_HSTS='add_header Strict-Transport-Security "max-age=31536000" always;'
  echo "signet-proxy: TLS on (certificate from $TLS_DIR)" >&2
elif [ -f "$TLS_DIR/tls.crt" ] || [ -f "$TLS_DIR/tls.key" ]; then
  fail "TLS needs both $TLS_DIR/tls.crt and $TLS_DIR/tls.key"
else
  SIGNET_PROXY_TLS=''
  SIGNET_PROXY_HSTS=''
fi
export SIGNET_PROXY_LISTEN SIGNET_PROXY_TLS SIGNET_PROXY_HSTS

# ---- browsers (CORS): the origins the server also accepts ----------------------------------
# SIGNET_ALLOWED_ORIGINS: comma-separated exact origins, lower case as browsers send them
# (scheme://host[:port], no path, never "*"). Loopback origins are allowed without it.
SIGNET_PROXY_CORS_ORIGINS=''
for origin in $(printf '%s' "${SIGNET_ALLOWED_ORIGINS:-}" | tr ',' ' '); do
  if ! printf '%s' "$origin" | grep -Eq '^https?://([a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*|\[[0-9a-f:]+\])(:[0-9]{1,5})?$'; then
    fail "SIGNET_ALLOWED_ORIGINS: \"$origin\" is not an origin: scheme://host[:port] in lower case, no path and no wildcard (e.g. https://app.example.com)."
  fi
  SIGNET_PROXY_CORS_ORIGINS="$SIGNET_PROXY_CORS_ORIGINS        \"$origin\" \$http_origin;
"
done
export SIGNET_PROXY_CORS_ORIGINS

# ---- client address: trusted front proxies (nginx realip) -----------------------------------
# Only a peer in SIGNET_PROXY_TRUSTED_PROXIES may name the client (X-Forwarded-For read right
# to left past the trusted hops, or the PROXY protocol header); anyone else is the client.
trusted=$(printf '%s' "${SIGNET_PROXY_TRUSTED_PROXIES:-}" | tr ',' ' ')
real_ip_header=${SIGNET_PROXY_REAL_IP_HEADER:-X-Forwarded-For}
case "$real_ip_header" in
  X-Forwarded-For|proxy_protocol) ;;
  *) fail "SIGNET_PROXY_REAL_IP_HEADER must be X-Forwarded-For or proxy_protocol, not '$real_ip_header'." ;;
esac
SIGNET_PROXY_REAL_IP=''
for cidr in $trusted; do
  case "$cidr" in
    *[!0-9A-Fa-f.:/]* | '' | */*/*) fail "SIGNET_PROXY_TRUSTED_PROXIES: '$cidr' is not an address or CIDR (e.g. 10.0.0.0/8, fd00::/8)." ;;
  esac
  SIGNET_PROXY_REAL_IP="$SIGNET_PROXY_REAL_IP    set_real_ip_from $cidr;
"
done
if [ -n "$SIGNET_PROXY_REAL_IP" ]; then
  SIGNET_PROXY_REAL_IP="    # Client address: only these front proxies may name it (SIGNET_PROXY_TRUSTED_PROXIES).
$SIGNET_PROXY_REAL_IP    real_ip_header $real_ip_header;
    real_ip_recursive on;"
  echo "signet-proxy: client addresses from $real_ip_header of trusted front proxies: $trusted" >&2
elif [ "$real_ip_header" = proxy_protocol ]; then
  fail "SIGNET_PROXY_REAL_IP_HEADER=proxy_protocol needs SIGNET_PROXY_TRUSTED_PROXIES (the load balancer's addresses)."
fi
[ "$real_ip_header" = proxy_protocol ] && SIGNET_PROXY_LISTEN="$SIGNET_PROXY_LISTEN proxy_protocol"
export SIGNET_PROXY_LISTEN SIGNET_PROXY_REAL_IP

# ---- refused keys: a cheap limit per client address -----------------------------------------
export SIGNET_PROXY_AUTH_FAILURES_PER_MINUTE="${SIGNET_PROXY_AUTH_FAILURES_PER_MINUTE:-60}"
export SIGNET_PROXY_AUTH_FAILURES_BURST="${SIGNET_PROXY_AUTH_FAILURES_BURST:-20}"
whole() {
  case "$2" in
    '' | *[!0-9]* | 0*) fail "$1 must be a whole number of at least 1." ;;
  esac
}
whole SIGNET_PROXY_AUTH_FAILURES_PER_MINUTE "$SIGNET_PROXY_AUTH_FAILURES_PER_MINUTE"
whole SIGNET_PROXY_AUTH_FAILURES_BURST "$SIGNET_PROXY_AUTH_FAILURES_BURST"

# ---- key decisions in nginx shared memory (njs 0.8+, js_shared_dict_zone): njs/signet_auth.js
njs_has_shared_dict() {
  probe=$(mktemp -d)
  printf 'load_module %s;\npid %s/nginx.pid;\nevents {}\nhttp { js_shared_dict_zone zone=signet_probe:64k; }\n' \
    "$SIGNET_PROXY_NJS_MODULE" "$probe" > "$probe/nginx.conf"
  ok=1
  nginx -q -t -e /dev/null -c "$probe/nginx.conf" > /dev/null 2>&1 || ok=0
  rm -rf "$probe"
  [ "$ok" = 1 ]
}
export SIGNET_PROXY_KEY_CACHE=''
if [ "$mode" = store ]; then
  case "${SIGNET_PROXY_NJS_SHARED_DICT:-auto}" in
    on) use_dict=1 ;;
    off) use_dict=0 ;;
    auto) if njs_has_shared_dict; then use_dict=1; else use_dict=0; fi ;;
    *) fail "SIGNET_PROXY_NJS_SHARED_DICT must be auto, on or off" ;;
  esac
  [ "$use_dict" = 1 ] && SIGNET_PROXY_KEY_CACHE='js_shared_dict_zone zone=signet_keys:1m timeout=60s evict;'
fi

# ---- the key check of each mode ------------------------------------------------------------
if [ "$mode" = store ]; then
  export SIGNET_PROXY_LOAD_MODULES="load_module $SIGNET_PROXY_NJS_MODULE;"
  export SIGNET_PROXY_KEY_ID_HEADER='$signet_key_id'
  export SIGNET_PROXY_LOG_EXTRA=',"auth":"$signet_auth_state","key_id":"$signet_key_id"'
  auth_template=auth-store.conf.template
else
  export SIGNET_PROXY_LOAD_MODULES=''
  export SIGNET_PROXY_KEY_ID_HEADER='""'
  auth_template=auth-static.conf.template
fi

# ---- render --------------------------------------------------------------------------------
vars='${SIGNET_API_KEY} ${SIGNET_UPSTREAM} ${SIGNET_PROXY_LISTEN} ${SIGNET_PROXY_MAX_BODY} ${SIGNET_PROXY_TLS}
      ${SIGNET_PROXY_CONF_DIR} ${SIGNET_PROXY_RUNTIME_DIR} ${SIGNET_PROXY_ACCESS_LOG} ${SIGNET_PROXY_ERROR_LOG}
      ${SIGNET_PROXY_LOAD_MODULES} ${SIGNET_PROXY_LOG_EXTRA} ${SIGNET_PROXY_KEY_ID_HEADER} ${SIGNET_PROXY_AUTH}
      ${SIGNET_PROXY_HTTP_EXTRA} ${SIGNET_KEY_STORE} ${SIGNET_PROXY_NJS_DIR} ${SIGNET_PROXY_USER_DIRECTIVE}
      ${SIGNET_PROXY_CORS_ORIGINS} ${SIGNET_PROXY_HSTS}
      ${SIGNET_PROXY_REAL_IP} ${SIGNET_PROXY_AUTH_FAILURES_PER_MINUTE} ${SIGNET_PROXY_AUTH_FAILURES_BURST}
      ${SIGNET_PROXY_KEY_CACHE}'
# Workers (which may run as another user than the master) use the runtime dir; only the
# master reads the configuration, which holds the key.
mkdir -p "$SIGNET_PROXY_RUNTIME_DIR"
umask 077
mkdir -p "$SIGNET_PROXY_CONF_DIR"
SIGNET_PROXY_AUTH=$(envsubst "$vars" < "$TEMPLATES/$auth_template")
SIGNET_PROXY_HTTP_EXTRA=''
[ "$mode" = store ] && SIGNET_PROXY_HTTP_EXTRA=$(envsubst "$vars" < "$TEMPLATES/auth-store-http.conf.template")
export SIGNET_PROXY_AUTH SIGNET_PROXY_HTTP_EXTRA
for name in nginx.conf signet.conf errors.conf proxy-headers.conf headers.conf cors-http.conf; do
  envsubst "$vars" < "$TEMPLATES/$name.template" > "$SIGNET_PROXY_CONF_DIR/$name"
done
cache_note=''
[ "$mode" = store ] && { [ -n "$SIGNET_PROXY_KEY_CACHE" ] && cache_note=', key decisions cached in shared memory' || cache_note=', no shared dict in this njs: the store is read per request'; }
echo "signet-proxy: configuration rendered into $SIGNET_PROXY_CONF_DIR ($mode key mode, upstream $SIGNET_UPSTREAM$cache_note)" >&2
