#!/bin/sh
# Reloads nginx (gracefully: no connection is dropped) when the addresses behind the
# upstream name change, so scaled, replaced and restarted replicas are found. nginx resolves
# the name of an upstream server once per (re)load; keeping the upstream block (rather than
# resolving per request through a variable) keeps keep-alive connections to the replicas.
set -u
host=${SIGNET_UPSTREAM%:*}
interval=${SIGNET_PROXY_WATCH_SECONDS:-2}
conf=${SIGNET_PROXY_CONF_DIR:-/tmp/nginx}/nginx.conf
addresses() { getent ahostsv4 "$host" 2>/dev/null | awk '{ print $1 }' | sort -u | tr '\n' ' '; }
last=$(addresses)
while sleep "$interval"; do
  now=$(addresses)
  # No address at all (every replica down at once): keep the last good configuration.
  if [ -n "$now" ] && [ "$now" != "$last" ]; then
    echo "signet-proxy: $host is now [ $now]; reloading nginx" >&2
    nginx -c "$conf" -s reload && last=$now
  fi
done
