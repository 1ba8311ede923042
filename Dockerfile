# The Animal Store as a container: the release (npm run release) on Node.js 24, as a non-root user.
#   docker build -t animal-store .
#   docker run -p 3000:3000 -v animal-store-data:/app/data animal-store
# Settings are the service's environment variables (docker run -e ...): docs/operators.md lists
# each under "Running the service" (the container's own under "In production: the release and the
# container"), and `docker run --rm animal-store node server.js --help` prints them.
#
# Build arguments (all optional):
#   NODE_IMAGE           the base image of both stages (default: the official node:24-bookworm-slim).
#                        Another one needs Node.js 24 (or 22.12+, 26) as `node` on PATH, npm, /bin/sh
#                        with mkdir and chown, and a user `node`; .ci/container builds one from
#                        Debian's packages and the npm registry where no image registry is reachable:
#                        docker build --build-arg NODE_IMAGE=localhost/my-node:24 -t animal-store .
#   npm_config_registry  the npm registry the build stage installs from (default: npm's own).
ARG NODE_IMAGE=node:24-bookworm-slim

# Build stage: every dependency, then the self-contained release.
FROM ${NODE_IMAGE} AS build
ARG npm_config_registry
WORKDIR /src
COPY package.json package-lock.json ./
COPY packages/client/package.json packages/client/
COPY scripts/check-node.cjs scripts/prepare.mjs scripts/
# Without the sources yet there is nothing to build: skip prepare, it runs with the release below.
RUN npm ci --no-audit --no-fund --ignore-scripts
COPY . .
RUN npm run release

# Run stage: the release alone (its own node_modules: better-sqlite3).
FROM ${NODE_IMAGE}
ENV NODE_ENV=production \
    MALLOC_ARENA_MAX=2 \
    PORT=3000 \
    DATABASE_PATH=/app/data/animal-store.db
WORKDIR /app
COPY --from=build --chown=node:node /src/release/ ./
RUN mkdir -p /app/data /app/.compile-cache && chown node:node /app/data /app/.compile-cache
USER node
# Node.js's compile cache (server.js enables it), filled here: the first start of a container
# reuses what was compiled of the bundle instead of parsing it again. Node.js keeps the cache per
# set of V8 flags (--heap-growing-percent changes it), so it is filled with the CMD's flags.
ENV NODE_COMPILE_CACHE=/app/.compile-cache
RUN node --max-semi-space-size=4 --heap-growing-percent=50 server.js --help > /dev/null
VOLUME ["/app/data"]
EXPOSE 3000
# Ready only when the store answers (GET /readyz); plain node, nothing else in the image needed.
HEALTHCHECK --interval=10s --timeout=3s --start-period=15s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 3000) + '/readyz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# Exec form: node is PID 1 and receives SIGTERM itself (graceful stop, SHUTDOWN_TIMEOUT_MS).
STOPSIGNAL SIGTERM
CMD ["node", "--max-semi-space-size=4", "--heap-growing-percent=50", "server.js"]
