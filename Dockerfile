# syntax=docker/dockerfile:1
# The sluice image: the local platform and the worker daemon (one image; compose's `command:` gives
# the arguments: `platform --host 0.0.0.0 ...` or `worker`). Node 24 is an LTS release (supported to
# April 2028). Stages: `build` compiles dist/ with every dependency; `deps` installs the production
# dependencies alone (better-sqlite3 is built there, with the compilers that stay in that stage);
# the runtime stage copies both and runs as the unprivileged `node` user under tini.
ARG NODE_IMAGE=node:24-bookworm-slim

FROM ${NODE_IMAGE} AS build
RUN apt-get update && apt-get install -y --no-install-recommends python3 make g++ \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY package.json package-lock.json ./
# The package has no install script: the contributors' tools (.tools/, `npm run setup`) stay out of images.
RUN npm ci --no-audit --no-fund
COPY . .
RUN npm run build

FROM ${NODE_IMAGE} AS deps
RUN apt-get update && apt-get install -y --no-install-recommends python3 make g++ \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force

FROM ${NODE_IMAGE} AS runtime
RUN apt-get update && apt-get install -y --no-install-recommends tini \
 && rm -rf /var/lib/apt/lists/*
ENV NODE_ENV=production \
    SLUICE_LOG_PRETTY=0 \
    SLUICE_DATA_DIR=/data \
    SLUICE_CACHE_DIR=/home/node/.cache/sluice
WORKDIR /app
COPY --from=deps /app/node_modules ./node_modules
COPY --from=build /src/package.json ./package.json
COPY --from=build /src/bin ./bin
COPY --from=build /src/dist ./dist
RUN ln -s /app/bin/sluice.cjs /usr/local/bin/sluice \
 && mkdir -p /data/platform /data/results /home/node/.cache/sluice && chown -R node:node /data /home/node/.cache
USER node
EXPOSE 8080 8288
# The platform answers /healthz on 8080, the daemon /healthz on 8288: either one up is healthy
# (compose may narrow it per service). tini reaps the platform's pod process groups and forwards signals.
HEALTHCHECK --interval=10s --timeout=5s --start-period=30s --retries=5 \
  CMD ["node", "-e", "Promise.any([8080,8288].map(p=>fetch('http://127.0.0.1:'+p+'/healthz').then(r=>{if(!r.ok)throw r}))).then(()=>process.exit(0),()=>process.exit(1))"]
ENTRYPOINT ["/usr/bin/tini", "--", "sluice"]
CMD ["--help"]
