// Read access to an informer's cache for controllers: list by label selector, get by name, per namespace (client-go
// listers).
import type { KubernetesObject } from "../client/types.js";
import { type Indexer, NamespaceIndex } from "./indexer.js";
import { objectKey } from "./keys.js";
import { type LabelSelectorInput, toLabelSelector } from "./labels.js";

// Results are the cached objects themselves, shared with every other reader: read-only, never mutate them
// (copy first, e.g. structuredClone, before changing and sending an update).

function select<T extends KubernetesObject>(objs: Iterable<T>, selector: LabelSelectorInput | undefined): T[] {
  const sel = toLabelSelector(selector);
  const out: T[] = [];
  for (const o of objs) if (sel.empty() || sel.matches(o.metadata?.labels)) out.push(o);
  return out;
}

function listNamespace<T extends KubernetesObject>(
  indexer: Indexer<T>,
  namespace: string,
  selector: LabelSelectorInput | undefined,
): T[] {
  // "" = all namespaces (metav1.NamespaceAll), as in client-go ListAllByNamespace.
  if (namespace === "") return select(indexer.list(), selector);
  if (NamespaceIndex in indexer.getIndexers()) return select(indexer.byIndex(NamespaceIndex, namespace), selector);
  return select(
    indexer.list().filter((o) => o.metadata?.namespace === namespace),
    selector,
  );
}

/** Lister for one namespace of a namespaced kind. */
export interface NamespaceLister<T extends KubernetesObject> {
  /** Objects in this namespace matching selector (all when omitted). Read-only. */
  list(selector?: LabelSelectorInput): T[];
  /** The cached object, or undefined. Read-only. */
  get(name: string): T | undefined;
}

/** Lister for a namespaced kind. */
export class Lister<T extends KubernetesObject> {
  constructor(private readonly indexer: Indexer<T>) {}

  /** Objects in every namespace matching selector (a selector string, an equality map, or a parsed selector). */
  list(selector?: LabelSelectorInput): T[] {
    return select(this.indexer.list(), selector);
  }

  /** The cached object namespace/name, or undefined. */
  get(namespace: string, name: string): T | undefined {
    return this.indexer.getByKey(objectKey(namespace, name));
  }

  namespace(namespace: string): NamespaceLister<T> {
    return {
      list: (selector) => listNamespace(this.indexer, namespace, selector),
      get: (name) => this.indexer.getByKey(objectKey(namespace, name)),
    };
  }

  /** Objects whose index indexName contains value (throws for an unknown index). */
  byIndex(indexName: string, value: string): T[] {
    return this.indexer.byIndex(indexName, value);
  }
}

/** Lister for a cluster-scoped kind. */
export class ClusterLister<T extends KubernetesObject> {
  constructor(private readonly indexer: Indexer<T>) {}

  list(selector?: LabelSelectorInput): T[] {
    return select(this.indexer.list(), selector);
  }

  get(name: string): T | undefined {
    return this.indexer.getByKey(name);
  }

  byIndex(indexName: string, value: string): T[] {
    return this.indexer.byIndex(indexName, value);
  }
}
