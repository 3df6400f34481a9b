#!/bin/sh
# Started before nginx, keeps running beside it (see watch-upstream.sh).
if [ "${SIGNET_PROXY_WATCH_UPSTREAM:-0}" = 1 ]; then
  /etc/signet-proxy/watch-upstream.sh &
fi
exit 0
