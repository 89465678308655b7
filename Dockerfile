# syntax=docker/dockerfile:1
# Carrier Eligibility Decision Service: compiled JavaScript on Node 24 (the production runtime), non-root, no
# TypeScript tooling at run time.
#
# Base: Node 24 on Debian 13 "trixie" (glibc 2.41). On Node 24 the uws engine loads @btc-vision/uwebsockets.js,
# whose Linux binaries need glibc >= 2.38, so Debian 12 (2.36) and Alpine (musl) cannot carry it; src/http/
# uws-binary.ts picks the republish per Node. Pinned by version tag here; the release pipeline pins it by digest
# as well (NODE_IMAGE=node:24.x.y-trixie-slim@sha256:<digest>), see docs/deployment.md.
ARG NODE_IMAGE=node:24.21.0-trixie-slim

# ---- build: full dependency tree, compile TypeScript to dist/ ----
FROM ${NODE_IMAGE} AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY scripts/build-assets.mjs ./scripts/
COPY src ./src
COPY console ./console
RUN npm run build

# ---- runtime: production dependencies only, compiled code, non-root ----
FROM ${NODE_IMAGE} AS runtime
ENV NODE_ENV=production \
    PORT=8080 \
    HOST=0.0.0.0
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund \
 && npm cache clean --force \
 && groupadd --system --gid 10001 app \
 && useradd --system --uid 10001 --gid 10001 --no-create-home --shell /usr/sbin/nologin app
COPY --from=build /app/dist ./dist
COPY bin ./bin
# Fail the image build, not the first pod, when the native uWS binary does not load on this base (the import
# itself throws the one-line refusal naming HTTP_ENGINE=node).
RUN node --input-type=module -e "const m = await import('/app/dist/src/http/uws.js'); m.assertNativeUws(); console.log('uWebSockets.js native binary loads on Node ' + process.version)"
# Numeric user so Kubernetes' runAsNonRoot can verify it; the code and node_modules stay root-owned (read-only).
USER 10001:10001
EXPOSE 8080
HEALTHCHECK --interval=10s --timeout=3s --start-period=20s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 8080) + '/v1/health').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# Node is PID 1 and handles SIGTERM itself (src/main.ts drains HTTP and batch work, then exits).
# The operator CLI in the image: `node bin/carrier-eligibility.js …` (runs dist/src/cli/main.js).
CMD ["node", "dist/src/main.js"]
