# Signet MCP server. Default: MCP on stdio (docker run -i --rm signet-mcp); any `signet` command
# as arguments (docker run --rm signet-mcp verify …).
# HTTP: SIGNET_TRANSPORT=http (the compose stack puts it behind the reference proxy).
ARG NODE_IMAGE=node:24-trixie-slim

FROM ${NODE_IMAGE} AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY scripts ./scripts
COPY packages ./packages
COPY src ./src
# The bundle (dist/bundle) carries every runtime dependency: the image needs no node_modules.
# Its software bill of materials (CycloneDX, runtime dependencies from the lockfile) ships
# in the image as /app/sbom.cdx.json.
RUN npm run build \
 && npm sbom --sbom-format cyclonedx --omit dev --package-lock-only > sbom.cdx.json

FROM ${NODE_IMAGE}
# tini as PID 1: signals reach node, zombies are reaped.
RUN apt-get update -qq \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends tini >/dev/null \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /app
# The V8 heap sized for the 256 MiB the Kubernetes manifests give the container: under load
# V8 otherwise grows its heap by the host's memory, not the container's (measured in
# test/integration/abuse.soak.test.ts, which runs the server with these options).
ENV NODE_ENV=production \
    NODE_OPTIONS="--max-old-space-size=128 --max-semi-space-size=8" \
    SIGNET_DATA_DIR=/data \
    NODE_COMPILE_CACHE=/app/.compile-cache
COPY --from=build /app/dist/bundle ./dist/bundle
# The verification page (GET /verify): its HTML, CSS and browser script.
COPY --from=build /app/dist/verify-page/page.html /app/dist/verify-page/page.css /app/dist/verify-page/verify.js ./dist/verify-page/
COPY --from=build /app/sbom.cdx.json ./sbom.cdx.json
# package.json: its "type": "module" makes node load the bundle's .js files as ESM.
COPY package.json LICENSE ./
COPY doctrine ./doctrine
# /data: the signing key (a volume). /keys: the API key store, shared with the proxy, whose
# uid owns it. The compile cache is filled at build time so cold start does not pay for it.
RUN mkdir -p /data /keys /app/.compile-cache \
 && node dist/bundle/signet.js doctrine check doctrine >/dev/null \
 && echo '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"build","version":"1"}}}' \
    | SIGNET_DATA_DIR=/tmp/warm SIGNET_LOG_LEVEL=silent node dist/bundle/signet.js serve >/dev/null \
 && rm -rf /tmp/warm \
 && chmod -R a+rX /app/.compile-cache
# The stack's accounts (docs/operations.md, "Accounts and user namespaces"): a uid and gid of
# their own per service, in 65520-65533, which no distribution, adduser or systemd hands to a
# host account, and below 65536, so a user namespace of 65536 ids (Kubernetes hostUsers:
# false, Docker userns-remap) maps them. signet 65520, the proxy (and its key store) 65521,
# Redis 65522, the token verifier 65523.
RUN groupadd --gid 65520 signet \
 && useradd --uid 65520 --gid 65520 --no-create-home --home-dir /nonexistent --shell /usr/sbin/nologin signet \
 && chown 65520:65520 /data && chmod 0700 /data \
 && chown 65521:65521 /keys && chmod 0700 /keys
# Every program execute-only for all but root (0711): a process whose program it cannot read
# is not dumpable (Linux), so no account but root opens its /proc/<pid>/root, environ, fd or
# mem, or traces it, not even one with the container's own uid (pen test 4, H1).
RUN for f in /usr/local/bin/* /usr/bin/* /usr/sbin/*; do \
      if [ -f "$f" ] && [ ! -L "$f" ] && head -c 4 "$f" | grep -q '^.ELF'; then chmod go-r "$f"; fi; \
    done \
 && [ "$(stat -c %a /usr/local/bin/node /usr/bin/tini)" = "$(printf '711\n711')" ]
USER 65520:65520
VOLUME ["/data"]
EXPOSE 3000
# Only meaningful in HTTP mode; on stdio there is no socket to probe, so it reports healthy.
# With SIGNET_TLS_CERT_FILE the listener speaks HTTPS; a probe of its own loopback checks
# liveness, not the certificate (as kubelet's HTTPS probes do).
HEALTHCHECK --interval=10s --timeout=3s --start-period=5s --retries=3 \
  CMD ["node", "-e", "if(process.env.SIGNET_TRANSPORT!=='http')process.exit(0);const s=!!process.env.SIGNET_TLS_CERT_FILE;require(s?'node:https':'node:http').get({host:'127.0.0.1',port:process.env.SIGNET_HTTP_PORT||3000,path:'/healthz',rejectUnauthorized:false},r=>process.exit(r.statusCode===200?0:1)).on('error',()=>process.exit(1))"]
ENTRYPOINT ["/usr/bin/tini", "--", "node", "/app/dist/bundle/signet.js"]
CMD ["serve"]
# What the image is (OCI image-spec annotations, as labels), last so that the values change only
# this layer. The release build passes version, commit and repository (docs/deployment.md#the-image);
# the version's default is package.json's (a test keeps the two equal).
ARG SIGNET_VERSION=0.1.0
ARG SIGNET_REVISION=""
ARG SIGNET_SOURCE=""
LABEL org.opencontainers.image.title="signet-mcp" \
      org.opencontainers.image.description="MCP tool server that answers from a versioned doctrine and signs every output with Ed25519" \
      org.opencontainers.image.version="${SIGNET_VERSION}" \
      org.opencontainers.image.revision="${SIGNET_REVISION}" \
      org.opencontainers.image.source="${SIGNET_SOURCE}" \
      org.opencontainers.image.licenses="Apache-2.0"
