# syntax=docker/dockerfile:1
# svc-gateway container image (docs/scaling.md "Container image"): built in one stage (the CLI bundle and the
# operator console, by npm ci's prepare step and scripts/build-if-stale.mjs), run in another with the production
# dependencies only, as a non-root user, with a HEALTHCHECK on /healthz.

FROM node:22-bookworm-slim AS build
WORKDIR /src
# The sources come first: npm ci's prepare step builds the CLI bundle (dist/cli) and the console (dist/ui).
COPY . .
RUN npm ci --no-audit --no-fund \
    && node scripts/build-if-stale.mjs \
    && npm prune --omit=dev --no-audit --no-fund

FROM node:22-bookworm-slim AS runtime
ENV NODE_ENV=production \
    SVC_HOST=0.0.0.0 \
    SVC_PORT=8788 \
    SVC_HOME=/var/lib/svc
RUN groupadd --system svc && useradd --system --gid svc --home-dir /var/lib/svc --shell /usr/sbin/nologin svc \
    && mkdir -p /var/lib/svc && chown svc:svc /var/lib/svc && chmod 700 /var/lib/svc
WORKDIR /app
COPY --from=build --chown=root:root /src/package.json ./package.json
COPY --from=build --chown=root:root /src/node_modules ./node_modules
COPY --from=build --chown=root:root /src/bin ./bin
COPY --from=build --chown=root:root /src/dist/cli ./dist/cli
COPY --from=build --chown=root:root /src/dist/ui ./dist/ui
COPY --from=build --chown=root:root /src/services/models/catalog.bundled.json ./services/models/catalog.bundled.json
USER svc
VOLUME ["/var/lib/svc"]
# 8788: HTTP and WebSocket; 34431: the runner listener other instances reach (SVC_RUNNER_PORT).
EXPOSE 8788 34431
HEALTHCHECK --interval=10s --timeout=3s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.SVC_PORT || 8788) + '/healthz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
ENTRYPOINT ["node", "/app/bin/svc-gateway.mjs"]
CMD ["serve"]
