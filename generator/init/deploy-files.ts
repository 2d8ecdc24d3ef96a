// What crdgen init adds for deploying (kubebuilder's make manifests / install / deploy / docker-build): the scripts,
// the user-owned src/deploy.ts they run (runtime/deploy's runDeployCommand with the generated registry), a Dockerfile.

/** The operator's name in Kubernetes objects (a DNS label): the npm name without scope, `-` for anything else. */
export function objectName(npmName: string): string {
  const name = npmName
    .replace(/^@[^/]*\//, "")
    .replace(/[^a-z0-9-]+/g, "-")
    .slice(0, 40)
    .replace(/^-+|-+$/g, "");
  return name || "operator";
}

/** package.json scripts; manifests builds first, since src/deploy.ts reads the compiled registry. */
export function deployScripts(npmName: string): Record<string, string> {
  const deploy = "node dist/src/deploy.js";
  return {
    manifests: `npm run build && ${deploy} manifests`,
    "manifests:check": `npm run build && ${deploy} manifests --check`,
    "install:crds": `npm run manifests && ${deploy} install`,
    deploy: `npm run manifests && ${deploy} deploy`,
    "uninstall:crds": `${deploy} uninstall`,
    undeploy: `${deploy} undeploy`,
    "docker-build": `docker build -t \${IMG:-${objectName(npmName)}:0.1.0} .`,
  };
}

export function deployFiles(npmName: string, webhooks: boolean): Map<string, string> {
  const name = objectName(npmName);
  return new Map([
    ["src/deploy.ts", deployScript(name, webhooks)],
    ["Dockerfile", dockerfile],
    [".dockerignore", "node_modules/\ndist/\ndeploy/\n.git/\n"],
  ]);
}

const webhooksNote = `; with the webhooks, their Service, a cert-manager Issuer and Certificate and the
// webhook configurations (deploy/webhooks/: install cert-manager first)`;

function deployScript(name: string, webhooks: boolean): string {
  return `// User-owned: crdgen init created this file and never overwrites it. \`npm run manifests\` runs it to write deploy/:
// the CRDs in crds/, a ServiceAccount, RBAC granting exactly what the generated registry's controllers watch, own and
// finalize (plus their Lease, events and the metrics server's checks), the Deployment of the image below with probes
// and secure metrics, and the metrics Service${webhooks ? webhooksNote : ""}.
// \`npm run install:crds\` and \`npm run deploy\` apply deploy/ to the current kubeconfig context (server-side apply;
// \`-- --kubeconfig <file>\` or \`-- --context <name>\` choose another), \`npm run uninstall:crds\` and
// \`npm run undeploy\` delete it again; IMG=<image> overrides the image.
import { readFileSync } from "node:fs";
import { runDeployCommand } from "@crdgen/runtime/deploy";
import { newControllers } from "./generated/controllers.js";
${webhooks ? 'import { newWebhooks } from "./generated/webhooks.js";\n' : ""}
const { version } = JSON.parse(readFileSync("package.json", "utf8")) as { version: string };

process.exitCode = await runDeployCommand(process.argv.slice(2), {
  name: ${JSON.stringify(name)},
  // Where the operator runs; default "${name}-system".
  // namespace: "${name}-system",
  image: \`${name}:\${version}\`,
  newControllers,
  // Serve some namespaces only: a Role in each instead of a ClusterRole (and --watch-namespaces in the Deployment).
  // watchNamespaces: ["team-a"],
  // What reconcile does that owns / watches cannot say, e.g. reading a user's Secret by GET:
  // rbac: { extraRules: [{ apiGroups: [""], resources: ["secrets"], verbs: ["get"] }] },
${webhooks ? "  webhooks: newWebhooks(),\n" : ""}});
`;
}

/** Multi-stage: compiled with the dev dependencies, run with the production ones only, as user 1000, no shell needed. */
const dockerfile = `# The operator's image: \`npm run docker-build\` (IMG=<image> to name it), then \`npm run deploy\` with the same IMG.
FROM node:20-slim AS build
WORKDIR /app
COPY . .
RUN npm ci && npm run build && npm prune --omit=dev

FROM node:20-slim
WORKDIR /app
ENV NODE_ENV=production
COPY --from=build /app/package.json ./
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
# The base image's user node, by number so the Deployment's runAsNonRoot can check it.
USER 1000:1000
ENTRYPOINT ["node", "dist/src/main.js"]
`;

/** The scaffold README's deploy step. */
export const deployReadme = `
5. Deploy, as kubebuilder's \`make install\` / \`make deploy\`: \`npm run manifests\` writes \`deploy/\` (CRDs,
   ServiceAccount, RBAC derived from what the controllers watch, own and finalize, Deployment, Services; see
   \`src/deploy.ts\`), \`npm run install:crds\` applies the CRDs and \`npm run deploy\` everything, to the current
   kubeconfig context with server-side apply (no kubectl needed); \`npm run undeploy\` and \`npm run uninstall:crds\`
   delete them. \`IMG=<image> npm run docker-build\` builds the
   image from the \`Dockerfile\`; push it where the cluster pulls from, then \`IMG=<image> npm run deploy\`.
`;
