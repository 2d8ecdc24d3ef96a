// Reads a whole collection as a series of LIST pages joined by continue tokens (client-go tools/pager ListPager).
import type { KubernetesList, KubernetesObject, ListOptions } from "../client/types.js";
import { isResourceVersionTooOld } from "./listerwatcher.js";

/** One LIST call (client-go ListPageFunc). */
export type ListPageFunc<T extends KubernetesObject> = (
  options: ListOptions,
  signal?: AbortSignal,
) => Promise<KubernetesList<T>>;

export interface ListPagerOptions {
  /** Items per page when the caller sets no limit; 0 = one unpaginated LIST. Default 500 (defaultPageSize). */
  pageSize?: number;
  /**
   * When a continue token expires (410) on the second page or later, read the collection again in one unpaginated
   * LIST at the resourceVersion first asked for, instead of failing. Default true (client-go's pager.New).
   */
  fullListIfExpired?: boolean;
}

export interface PagedList<T> {
  items: T[];
  resourceVersion: string;
  /** At least one page came with a continue token: the server paginated this list. */
  paginated: boolean;
}

export class ListPager<T extends KubernetesObject> {
  readonly pageSize: number;
  readonly fullListIfExpired: boolean;

  constructor(
    private readonly pageFn: ListPageFunc<T>,
    options: ListPagerOptions = {},
  ) {
    this.pageSize = options.pageSize ?? 500;
    this.fullListIfExpired = options.fullListIfExpired ?? true;
  }

  async list(options: ListOptions = {}, signal?: AbortSignal): Promise<PagedList<T>> {
    const requested = { ...options };
    let page: ListOptions = { ...options };
    if (page.limit === undefined && this.pageSize > 0) page.limit = this.pageSize;
    const items: T[] = [];
    let resourceVersion = "";
    let paginated = false;
    for (;;) {
      signal?.throwIfAborted();
      let list: KubernetesList<T>;
      try {
        list = await this.pageFn(page, signal);
      } catch (err) {
        // Only a token that expired between pages: the first page's resourceVersion itself may be gone.
        if (!isResourceVersionTooOld(err) || !this.fullListIfExpired || page.continue === undefined) throw err;
        const { limit: _limit, continue: _continue, ...full } = requested;
        const whole = await this.pageFn(full, signal);
        // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- a server may send "items": null
        return { items: whole.items ?? [], resourceVersion: whole.metadata?.resourceVersion ?? "", paginated };
      }
      // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- a server may send "items": null
      for (const item of list.items ?? []) items.push(item);
      // On the wire the field is "continue"; client-node's V1ListMeta type calls it "_continue".
      const meta: { continue?: string; _continue?: string; resourceVersion?: string } | undefined = list.metadata;
      resourceVersion = meta?.resourceVersion ?? resourceVersion;
      const token = meta?.continue ?? meta?._continue;
      if (!token) return { items, resourceVersion, paginated };
      // The API server rejects resourceVersion(Match) together with continue: the token pins the snapshot.
      const { resourceVersion: _rv, resourceVersionMatch: _match, ...rest } = page;
      page = { ...rest, continue: token };
      paginated = true;
    }
  }
}
