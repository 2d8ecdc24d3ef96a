// @crdgen/runtime cache: reflector, indexed store, shared informer, listers and label selectors (client-go tools/cache).
export {
  DeletedFinalStateUnknown,
  isDeletedFinalStateUnknown,
  unwrapDeleted,
  type KeyFunc,
  metaNamespaceKeyFunc,
  objectKey,
  splitMetaNamespaceKey,
} from "./keys.js";
export { type IndexFunc, type Indexers, Indexer, NamespaceIndex, metaNamespaceIndexFunc } from "./indexer.js";
export {
  type LabelSelector,
  type LabelRequirement,
  type LabelSelectorOperator,
  type LabelSelectorInput,
  type LabelSelectorSpec,
  parseLabelSelector,
  labelSelectorFromSet,
  labelSelectorFromSpec,
  toLabelSelector,
} from "./labels.js";
export {
  type ListerWatcher,
  WatchErrorEvent,
  isResourceVersionTooOld,
  isResourceVersionTooLarge,
  isRetriableWatchError,
  isStreamInterrupted,
} from "./listerwatcher.js";
export { type CacheClock, type SleepFunc, type ReflectorBackoffOptions, systemCacheClock, sleepOn } from "./timing.js";
export { type DeltaSink, type CacheNotification, IndexerSink } from "./sink.js";
export { type CacheLogger, consoleCacheLogger, type ReflectorOptions, Reflector } from "./reflector.js";
export {
  type ResourceEventHandler,
  type ResourceEventHandlerRegistration,
  type SharedIndexInformerOptions,
  SharedIndexInformer,
  dropManagedFields,
} from "./informer.js";
export { type NamespaceLister, Lister, ClusterLister } from "./lister.js";
export { SharedInformerFactory } from "./informer-factory.js";
export * from "./resource-lister-watcher.js";
