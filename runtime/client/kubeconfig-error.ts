// A kubeconfig that cannot be used: none found, a file that cannot be read, a context or cluster that is not there.
// The user's to fix, so an operator's main() prints its message alone (one line) and exits 1, without a stack.
export class KubeconfigError extends Error {
  override readonly name = "KubeconfigError";
}
