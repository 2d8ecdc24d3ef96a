// @crdgen/runtime/workqueue: dedup, delays and rate limits between informer events and reconcile workers (client-go util/workqueue).
export { type GetResult, type Queue, type QueueOptions, newQueue } from "./queue.js";
export { type DelayingQueue, type DelayingQueueOptions, newDelayingQueue } from "./delaying-queue.js";
export {
  type RateLimiter,
  ItemExponentialFailureRateLimiter,
  ItemFastSlowRateLimiter,
  BucketRateLimiter,
  MaxOfRateLimiter,
  WithMaxWaitRateLimiter,
  defaultControllerRateLimiter,
} from "./rate-limiters.js";
export { type RateLimitingQueue, type RateLimitingQueueOptions, newRateLimitingQueue } from "./rate-limiting-queue.js";
export {
  type AddOpts,
  type PriorityQueue,
  type PriorityQueueOptions,
  LOW_PRIORITY,
  newPriorityQueue,
} from "./priority-queue.js";
