// @crdgen/runtime/wait: waiting on time the runtime's way (apimachinery's wait package): a jittered exponential
// backoff and a poll-until loop, both on an injected Clock.
export { Backoff, type BackoffSettings } from "./backoff.js";
export { PollTimeoutError, pollUntil, type PollOptions } from "./poll-until.js";
