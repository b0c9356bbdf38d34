# syntax=docker/dockerfile:1
# The service image: the compiled dist/ and production dependencies only (no TypeScript, tsx,
# test tools, embedded database, fixtures or development key), run as the unprivileged `node`
# user. One image for every role: docker-compose.yml runs it as migrate, api and worker.

ARG NODE_IMAGE=node:24-trixie-slim

# --- build: every dependency, src/ compiled to dist/ -----------------------------------------
FROM ${NODE_IMAGE} AS build
WORKDIR /app
COPY package.json package-lock.json ./
COPY packages/contract/package.json packages/contract/
COPY packages/client/package.json packages/client/
# --ignore-scripts: `prepare` would build before the sources are here; the build runs below.
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY scripts/build.mjs scripts/build-package.mjs scripts/dts-extensions.mjs scripts/source-stamp.mjs scripts/
COPY packages/contract packages/contract
COPY packages/client packages/client
COPY src src
COPY workers workers
COPY machines machines
RUN npm run build && rm dist/.tsbuildinfo

# --- production dependencies -------------------------------------------------------------------
FROM ${NODE_IMAGE} AS deps
WORKDIR /app
COPY package.json package-lock.json ./
COPY packages/contract/package.json packages/contract/
COPY packages/client/package.json packages/client/
# PGlite only serves a single-process start without DATABASE_URL, which this image never does
# (the service says to set DATABASE_URL if it is missing). The workspace links under
# node_modules/@fulfil stay: the built service imports @fulfil/contract and @fulfil/client by
# name, and the runtime stage brings their dist/.
# The Postgres driver gets its patch (patches/, docs/RELIABILITY.md "Postgres restarts") from
# package.json's postinstall, run on its own: the service refuses to start without it, and the
# other install scripts (`prepare` builds, which needs the dev dependencies) are not wanted here.
COPY patches patches/
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund \
  && npm run postinstall \
  && rm -rf node_modules/@electric-sql patches \
  && npm cache clean --force

# --- runtime -------------------------------------------------------------------------------------
FROM ${NODE_IMAGE}
# HOST: listen on every interface of the container (outside production fulfil binds 127.0.0.1).
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    NODE_OPTIONS=--enable-source-maps
WORKDIR /app
# Owned by root and read-only to the `node` user that runs the service.
COPY --from=deps /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY --from=build /app/packages/contract/package.json ./packages/contract/
COPY --from=build /app/packages/contract/dist ./packages/contract/dist
COPY --from=build /app/packages/client/package.json ./packages/client/
COPY --from=build /app/packages/client/dist ./packages/client/dist
COPY package.json ./
COPY bin ./bin
COPY drizzle ./drizzle
USER node
# 8080: HTTP API (--role api); 9464: GET /livez of a worker when METRICS_PORT=9464.
EXPOSE 8080 9464
ENTRYPOINT ["node", "bin/fulfil.mjs"]
CMD ["start"]
