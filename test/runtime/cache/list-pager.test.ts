// Port of kubernetes/client-go tools/pager/pager_test.go, TestListPager_List: a collection read page by page.
import { test } from "node:test";
import assert from "node:assert/strict";
import { ListPager, type ListPageFunc, isResourceVersionTooOld } from "@crdgen/runtime/cache";
import type { KubernetesList, ListOptions } from "@crdgen/runtime/client";
import type { Obj } from "../support/cache-fakes.js";

const item = (i: number): Obj => ({ metadata: { name: String(i) } });

/** The wanted result: count items named "0".."count-1" at rv. */
const want = (count: number, rv: string) => ({ items: Array.from({ length: count }, (_, i) => item(i)), rv });

function expiredError(): Error {
  return Object.assign(new Error("this list has expired"), { status: 410, reason: "Expired" });
}

/** The Go test's testPager: serves `remaining` items in pages and checks the limit and continue token it is sent. */
class TestPager {
  private index = 0;
  private last = 0;
  private continuing = false;
  private done = false;
  readonly violations: string[] = [];
  constructor(
    private readonly rv: string,
    private remaining: number,
    private expectPage: number,
  ) {}

  readonly pagedList: ListPageFunc<Obj> = (options: ListOptions) => {
    if (this.done) {
      this.violations.push("did not expect additional call to paged list");
      return Promise.reject(new Error("unexpected list call"));
    }
    const expectedContinue = `${this.rv}:${this.last}`;
    if ((options.limit ?? 0) !== this.expectPage || (this.continuing && options.continue !== expectedContinue)) {
      this.violations.push(
        `expected limit ${this.expectPage} and continue ${expectedContinue}, got ${JSON.stringify(options)}`,
      );
      return Promise.reject(new Error("invariant violated"));
    }
    const items: Obj[] = [];
    const total = options.limit || this.remaining;
    for (let i = 0; i < total && this.remaining > 0; i++) {
      items.push(item(this.index));
      this.remaining--;
      this.index++;
    }
    this.last = this.index;
    // On the wire the token is "continue" (client-node's type calls it _continue).
    const metadata: Record<string, string> = { resourceVersion: this.rv };
    if (this.remaining > 0) {
      metadata["continue"] = `${this.rv}:${this.last}`;
      this.continuing = true;
    } else {
      this.done = true;
    }
    return Promise.resolve({ items, metadata } as KubernetesList<Obj>);
  };

  readonly expiresOnSecondPage: ListPageFunc<Obj> = (options) => {
    if (this.continuing) {
      this.done = true;
      return Promise.reject(expiredError());
    }
    return this.pagedList(options);
  };

  readonly expiresOnSecondPageThenFullList: ListPageFunc<Obj> = (options) => {
    if (this.continuing) {
      this.reset();
      this.expectPage = 0;
      return Promise.reject(expiredError());
    }
    return this.pagedList(options);
  };

  private reset(): void {
    this.continuing = false;
    this.remaining += this.index;
    this.index = 0;
    this.last = 0;
    this.done = false;
  }
}

type PageFnName = "pagedList" | "expiresOnSecondPage" | "expiresOnSecondPageThenFullList";
const cases: Array<{
  name: string;
  remaining: number;
  pageFn: PageFnName;
  fullListIfExpired?: boolean;
  want?: { items: Obj[]; rv: string };
  isExpired?: boolean;
}> = [
  { name: "empty page", remaining: 0, pageFn: "pagedList", want: want(0, "rv:20") },
  { name: "one page", remaining: 9, pageFn: "pagedList", want: want(9, "rv:20") },
  { name: "one full page", remaining: 10, pageFn: "pagedList", want: want(10, "rv:20") },
  { name: "two pages", remaining: 11, pageFn: "pagedList", want: want(11, "rv:20") },
  { name: "three pages", remaining: 21, pageFn: "pagedList", want: want(21, "rv:20") },
  { name: "expires on second page", remaining: 21, pageFn: "expiresOnSecondPage", isExpired: true },
  {
    name: "expires on second page and then lists",
    remaining: 21,
    pageFn: "expiresOnSecondPageThenFullList",
    fullListIfExpired: true,
    want: want(21, "rv:20"),
  },
];

for (const tc of cases) {
  test(`client-go TestListPager_List: ${tc.name}`, async () => {
    const source = new TestPager("rv:20", tc.remaining, 10);
    const pager = new ListPager<Obj>(source[tc.pageFn], {
      pageSize: 10,
      fullListIfExpired: tc.fullListIfExpired ?? false,
    });
    const got = await pager.list({}).then(
      (r) => ({ ok: true as const, r }),
      (err: unknown) => ({ ok: false as const, err }),
    );
    assert.deepEqual(source.violations, []);
    if (tc.want === undefined) {
      if (got.ok) assert.fail("wantErr: ListPager.list() succeeded");
      assert.equal(isResourceVersionTooOld(got.err), tc.isExpired === true, "isExpired");
      return;
    }
    assert.ok(got.ok, `ListPager.list() error: ${got.ok ? "" : String(got.err)}`);
    assert.deepEqual(got.r.items, tc.want.items);
    assert.equal(got.r.resourceVersion, tc.want.rv);
  });
}

test("ListPager defaults to client-go's pager.New: 500 per page and a full list when a continue token expires", () => {
  const pager = new ListPager<Obj>(() => Promise.resolve({ items: [] }));
  assert.equal(pager.pageSize, 500);
  assert.equal(pager.fullListIfExpired, true);
});
