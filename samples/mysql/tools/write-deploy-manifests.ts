// `npm run deploy:manifests`: writes samples/mysql/deploy/ with the runtime's deploy command, as a crdgen init
// project's `npm run manifests` does; `-- --check` only lists what would change and exits 1 if anything would.
// Generated files that are no longer produced are removed. deploy-sharded/ is the same with 3 sharded replicas.
import { runDeployCommand } from "@crdgen/runtime/deploy";
import { sampleDeploy, shardedDeploy } from "./deploy-manifests.js";

const args = ["manifests", ...process.argv.slice(2)];
const codes = [await runDeployCommand(args, sampleDeploy), await runDeployCommand(args, shardedDeploy)];
process.exitCode = Math.max(...codes);
