# The `dar worker` image: the `worker` service of docker-compose.yml builds it.
# Build stage: all dependencies (TypeScript), then the compiled dist/ and production dependencies.
FROM node:20.19.5-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
# No install scripts: `prepare` would build before the sources are here and fetch a Temporal CLI,
# which a worker does not need (it connects to the cluster's server).
RUN npm ci --ignore-scripts
COPY tsconfig.json tsconfig.build.json ./
COPY scripts ./scripts
COPY src ./src
RUN npm run build && npm prune --omit=dev

FROM node:20.19.5-bookworm-slim
ENV NODE_ENV=production \
    TEMPORAL_ADDRESS=temporal:7233
WORKDIR /app
COPY --from=build /app/package.json ./
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY bin ./bin
COPY examples ./examples
# The operator console's pages (`dar ui`).
COPY web ./web
# Tool bodies run shell commands in job workspaces: not as root.
USER node
CMD ["node", "bin/dar.js", "worker"]
