// crdgen envtest: the local control plane's binaries for a project's tests, as setup-envtest's `use` prepares them.
// Only the commander wiring: the work (and its imports) loads when the command runs.
import type { Command } from "commander";

export function envtestCommand(program: Command): void {
  program
    .command("envtest")
    .description(
      "Prepare etcd, kube-apiserver and kubectl for tests on a local control plane (@crdgen/runtime/envtest) and " +
        "print their folder: KUBEBUILDER_ASSETS when it is set, else crdgen's cache, built from Go modules when " +
        "missing. `export KUBEBUILDER_ASSETS=$(npx crdgen envtest)`",
    )
    .option("-p, --print-only", "build nothing: print the folder if the binaries are there, else exit 1")
    .option(
      "--controllers",
      "also kube-controller-manager, kube-scheduler and kwok, for startControlPlane({ controllers: true })",
    )
    .action(async (opts: { printOnly?: boolean; controllers?: boolean }) => {
      const { controlPlaneBinaries } = await import("./control-plane-binaries.js");
      const folder = await controlPlaneBinaries({
        printOnly: opts.printOnly ?? false,
        controllers: opts.controllers ?? false,
      });
      process.stdout.write(`${folder}\n`);
    });
}
