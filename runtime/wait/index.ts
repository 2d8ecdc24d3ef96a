// @crdgen/runtime/wait: waiting on time the runtime's way (apimachinery's wait package): a jittered exponential
// backoff on an injected Clock.
export { Backoff, type BackoffSettings } from "./backoff.js";
