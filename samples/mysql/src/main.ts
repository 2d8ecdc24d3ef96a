// User-owned: crdgen created this file once and never overwrites it. Starts the operator's controllers.
import { loadKubeClient, runControllers } from "@crdgen/runtime";
import { newMySQLClusterController } from "../generated/example.com/v1/mysqlcluster.controller.js";
import * as mySQLClusterHooks from "./mysqlcluster.hooks.js";

// The current kubeconfig context (or KUBE_CONTEXT), else the in-cluster service account.
const kube = await loadKubeClient(process.env["KUBE_CONTEXT"] ? { context: process.env["KUBE_CONTEXT"] } : {});

// SIGINT/SIGTERM stop the controllers gracefully: informers stop, in-flight reconciles finish, then the process exits.
await runControllers([
  newMySQLClusterController(kube, mySQLClusterHooks),
  // +crdgen:scaffold:controllers
]);
