#!/bin/sh
# Signet proxy start-up, step 9 (in the container only): started before nginx, keeps running
# beside it when SIGNET_PROXY_WATCH_UPSTREAM=1 (see watch-upstream.sh).
if [ "${SIGNET_PROXY_WATCH_UPSTREAM:-0}" = 1 ]; then
  /etc/signet-proxy/watch-upstream.sh &
fi
exit 0
