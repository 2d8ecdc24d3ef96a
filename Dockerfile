# The sample MySQL operator (samples/mysql) as an image. From the repository root:
#   docker build -t mysql-operator:0.1.0 .
# samples/mysql/deploy/07-deployment.yaml runs this image as uid 1000 with a read-only root filesystem.

# Build: every dependency (TypeScript included), then `npm run build` (tsc -b) into dist/ and runtime/dist/.
# Node 24 is an LTS line (maintained to April 2028) inside every package's `engines` (>=20); the tests run on 20.
# Tags, not digests: a rebuild picks up the line's security fixes.
FROM node:24-trixie AS build
WORKDIR /src
COPY package.json package-lock.json ./
COPY runtime/package.json runtime/
COPY explore/package.json explore/
# No install scripts: the one dependency that has one (tree-sitter-go's native build) is unused, explore loads its wasm.
RUN npm ci --ignore-scripts
COPY . .
RUN npm run build

# Runtime: only @crdgen/runtime's production dependencies, the compiled runtime and the compiled operator (the
# sample's src/ and generated/; its tools/ are the demo and deploy tooling, not the operator).
FROM node:24-trixie-slim
ENV NODE_ENV=production
WORKDIR /app
COPY package.json package-lock.json ./
COPY runtime/package.json runtime/
COPY explore/package.json explore/
RUN npm ci --omit=dev --workspace=@crdgen/runtime --include-workspace-root=false --ignore-scripts && npm cache clean --force
COPY --from=build /src/runtime/dist runtime/dist
COPY --from=build /src/dist/samples/mysql/src dist/samples/mysql/src
COPY --from=build /src/dist/samples/mysql/generated dist/samples/mysql/generated
# Numeric, so the kubelet can verify runAsNonRoot (the image's "node" user is uid 1000).
USER 1000:1000
# /metrics over HTTPS and /healthz + /readyz (see --metrics-bind-address, --health-probe-bind-address).
EXPOSE 8443 8081
# The operator handles SIGTERM itself (graceful shutdown, Lease release), so node can run as PID 1.
ENTRYPOINT ["node", "dist/samples/mysql/src/main.js"]
