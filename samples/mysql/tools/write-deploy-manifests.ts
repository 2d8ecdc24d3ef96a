// `npm run deploy:manifests`: writes samples/mysql/deploy/ with the runtime's deploy command, as a crdgen init
// project's `npm run manifests` does; `-- --check` only lists what would change and exits 1 if anything would.
// Generated files that are no longer produced are removed.
import { runDeployCommand } from "@crdgen/runtime/deploy";
import { sampleDeploy } from "./deploy-manifests.js";

process.exitCode = await runDeployCommand(["manifests", ...process.argv.slice(2)], sampleDeploy);
