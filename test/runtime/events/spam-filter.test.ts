// The spam filter remembers SPAM_CACHE_ENTRIES objects' buckets, forgetting the least recently seen (client-go's LRU).
import { test } from "node:test";
import assert from "node:assert/strict";
import { FakeClock } from "@crdgen/runtime/testing";
import { EventSpamFilter, SPAM_BURST, SPAM_CACHE_ENTRIES } from "#runtime/events/spam-filter.js";

function exhaust(filter: EventSpamFilter, key: string): void {
  for (let i = 0; i < SPAM_BURST; i++) assert.equal(filter.allow(key), true, `event ${i + 1} of the burst`);
  assert.equal(filter.allow(key), false, "past the burst");
}

test("an object's bucket is forgotten once as many other objects were seen after it: full again", () => {
  const filter = new EventSpamFilter(new FakeClock());
  exhaust(filter, "a");
  for (let i = 0; i < SPAM_CACHE_ENTRIES - 1; i++) filter.allow(`other-${i}`);
  assert.equal(filter.allow("a"), false, "still remembered: 4095 others seen since");
  for (let i = 0; i < SPAM_CACHE_ENTRIES; i++) filter.allow(`more-${i}`);
  assert.equal(filter.allow("a"), true, "forgotten: a new bucket");
});

test("seeing an object again makes it the most recent: the least recently seen one goes first", () => {
  const filter = new EventSpamFilter(new FakeClock());
  exhaust(filter, "a");
  exhaust(filter, "b");
  for (let i = 0; i < SPAM_CACHE_ENTRIES - 2; i++) filter.allow(`other-${i}`);
  assert.equal(filter.allow("a"), false, "a seen again: now the most recent");
  filter.allow("new"); // one over: b, the least recently seen, is forgotten
  assert.equal(filter.allow("a"), false, "a kept");
  assert.equal(filter.allow("b"), true, "b forgotten");
});
