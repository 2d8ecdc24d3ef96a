// @crdgen/runtime/cache: reflector, indexed store, shared informer and factory, listers, label selectors (client-go tools/cache).
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
// The reflector's sorting of watch errors stays internal; isResourceVersionTooOld (410 Gone: list again) serves any
// caller that lists from a resourceVersion or a continue token.
export { type ListerWatcher, type ObjectType, type ShardFilter, isResourceVersionTooOld } from "./listerwatcher.js";
export type { ReflectorBackoffOptions } from "./reflector.js";
// What a Reflector writes to (client-go's Store as the reflector sees it). The informer's own sink, IndexerSink, is
// internal: its tests import #runtime/cache/sink.js.
export type { DeltaSink } from "./sink.js";
export { type ReflectorOptions, Reflector } from "./reflector.js";
export { type ListPageFunc, type ListPagerOptions, type PagedList, ListPager } from "./list-pager.js";
export {
  type ResourceEventHandler,
  type ResourceEventHandlerRegistration,
  type SharedIndexInformerOptions,
  SharedIndexInformer,
  dropManagedFields,
} from "./informer.js";
export { type NamespaceLister, Lister, ClusterLister } from "./lister.js";
export { SharedInformerFactory, type GenericInformer } from "./informer-factory.js";
export { type InformerOptions, type InformerScope, informerKey, listerWatcherFor } from "./resource-lister-watcher.js";
