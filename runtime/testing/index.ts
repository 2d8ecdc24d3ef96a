// @crdgen/runtime/testing: fakes for unit tests of reconcile hooks and runtime parts (no API server, no real time).
export { FakeCluster, FakeResourceClient, type FakeResourceOptions, newFakeResourceClient } from "./fake-cluster.js";
export { fakeChildObjects } from "./fake-children.js";
export { newTestContext, type TestContextOptions } from "./test-context.js";
export { admissionReview, admit, type AdmissionReviewOptions } from "./admission-review.js";
export { type Clock, FakeClock } from "../clock/clock.js";
/** The cache's store: `new Indexer<Kind>()` backs a generated lister in a hook test. */
export { Indexer } from "../cache/indexer.js";
