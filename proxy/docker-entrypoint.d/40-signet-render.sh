#!/bin/sh
# Runs before nginx: render /tmp/nginx from the templates, or stop the container.
exec /etc/signet-proxy/render.sh
