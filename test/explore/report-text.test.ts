// The text report's controller blocks stay proportional to the operator: watches handled alike show their handlers
// once (many of them one line and their places), a worker's requeues and enqueues are one line per method (and per set
// of places), events are named once.
import { test } from "node:test";
import assert from "node:assert/strict";
import { textReport, type Controller, type ExploreResult, type Handler, type Source } from "@crdgen/explore";

const loc = (file: string, line: number) => ({ file, line });
const enqueueHandler = (events: string[], line: number): Handler => ({
  events,
  fn: { name: "func literal in New", loc: loc("ctrl.go", line) },
  producers: [
    {
      method: "Add",
      text: "c.queue.Add",
      loc: loc("ctrl.go", 90),
      via: [{ name: "(*C).enqueue", loc: loc("ctrl.go", 88) }],
    },
  ],
});
const watch = (kind: string, registeredAt: number, handlers: Handler[]): Source => ({
  kind,
  via: "cache.NewSharedIndexInformer",
  loc: loc("informers.go", registeredAt - 100),
  registeredAt: loc("ctrl.go", registeredAt),
  handlers,
});

function blockOf(controller: Controller): string[] {
  const result: ExploreResult = {
    roots: ["."],
    files: { go: 2, ts: 0 },
    controllers: [controller],
    unlinked: [],
    warnings: [],
  };
  const lines = textReport(result).split("\n");
  const start = lines.indexOf(`controller ${controller.name}`);
  return lines.slice(start, lines.indexOf("", start));
}

const worker = {
  loop: { name: "(*C).run", loc: loc("ctrl.go", 120) },
  get: loc("ctrl.go", 125),
  process: { name: "(*C).sync", loc: loc("ctrl.go", 140) },
  then: [],
  done: [loc("ctrl.go", 127)],
  forget: [loc("ctrl.go", 130)],
};

test("watches handled alike name the first; requeues and enqueues are one line per method and places", () => {
  const shared: Handler[] = [enqueueHandler(["add"], 20), enqueueHandler(["update"], 21)];
  const block = blockOf({
    name: "ctrl.C",
    queue: {
      ref: "c.queue",
      type: "workqueue.NewTypedRateLimitingQueue",
      rateLimiter: "default",
      loc: loc("ctrl.go", 10),
    },
    sources: [
      watch("Secret", 200, shared),
      // The same handler functions: nothing of them repeated.
      watch("ConfigMap", 201, shared),
      // Closures of their own that do the same: named by place, on the watch's line.
      watch("Service", 202, [enqueueHandler(["add"], 30), enqueueHandler(["update"], 31)]),
      // One handler line only: shown, there is nothing to save.
      watch("Pod", 203, [
        { events: ["delete", "delete"], fn: { name: "(*C).onPod", loc: loc("ctrl.go", 40) }, producers: [] },
      ]),
    ],
    workers: [
      {
        ...worker,
        requeues: [
          { method: "AddAfter", loc: loc("ctrl.go", 150) },
          { method: "AddRateLimited", loc: loc("ctrl.go", 128) },
          { method: "AddAfter", loc: loc("helpers.go", 7) },
          { method: "AddAfter", loc: loc("helpers.go", 9) },
        ],
        enqueues: [
          { method: "AddAfter", text: "c.queue.AddAfter", loc: loc("helpers.go", 7), queue: loc("other.go", 5) },
          { method: "AddAfter", text: "c.queue.AddAfter", loc: loc("helpers.go", 7), queue: loc("third.go", 6) },
          { method: "AddAfter", text: "c.queue.AddAfter", loc: loc("helpers.go", 9), queue: loc("other.go", 5) },
          { method: "AddAfter", text: "c.queue.AddAfter", loc: loc("helpers.go", 9), queue: loc("third.go", 6) },
          { method: "Add", text: "c.queue.Add", loc: loc("helpers.go", 12), queue: loc("other.go", 5) },
        ],
      },
    ],
  });
  const via = "  via (*C).enqueue ctrl.go:88";
  assert.deepEqual(block, [
    "controller ctrl.C",
    "  queue      c.queue  ctrl.go:10",
    "    type       workqueue.NewTypedRateLimitingQueue",
    "    limiter    default",
    "  watches    Secret via cache.NewSharedIndexInformer  informers.go:100 (handlers added at ctrl.go:200)",
    "    add,update       func literal in New  ctrl.go:20, func literal in New ctrl.go:21",
    `      c.queue.Add  ctrl.go:90${via}`,
    "  watches    ConfigMap via cache.NewSharedIndexInformer  informers.go:101 (handlers added at ctrl.go:201; handled as Secret)",
    "  watches    Service via cache.NewSharedIndexInformer  informers.go:102" +
      " (handlers added at ctrl.go:202; handled as Secret, by ctrl.go:30, :31)",
    "  watches    Pod via cache.NewSharedIndexInformer  informers.go:103 (handlers added at ctrl.go:203)",
    "    delete           (*C).onPod  ctrl.go:40",
    "  worker     (*C).run  ctrl.go:120",
    "    get        Get  ctrl.go:125",
    "    process    (*C).sync  ctrl.go:140",
    "    done       ctrl.go:127; forget :130",
    "    requeue    AddAfter  ctrl.go:150, helpers.go:7, :9",
    "    requeue    AddRateLimited  ctrl.go:128",
    "    enqueue    c.queue.AddAfter  helpers.go:7, :9  → queues other.go:5, third.go:6",
    "    enqueue    c.queue.Add  helpers.go:12  → queue other.go:5",
  ]);
});

test("a kind watched twice is named with its place when another watch is handled as it", () => {
  const shared: Handler[] = [enqueueHandler(["add"], 20), enqueueHandler(["delete"], 22)];
  const block = blockOf({
    name: "ctrl.C",
    queue: { type: "workqueue.New", rateLimiter: "(none)", loc: loc("ctrl.go", 10) },
    sources: [watch("Secret", 200, shared), watch("Secret", 210, shared)],
    workers: [],
  });
  assert.equal(
    block[7],
    "  watches    Secret via cache.NewSharedIndexInformer  informers.go:110 (handlers added at ctrl.go:210; handled as Secret ctrl.go:200)",
  );
});

test("many watches handled alike are one line and their places; a registration's run-time informers are one watch", () => {
  const closures = (line: number): Handler[] => [enqueueHandler(["add"], line), enqueueHandler(["update"], line + 3)];
  const informer = (kind: string, line: number, via = "cache.NewSharedIndexInformer"): Source => ({
    kind,
    via,
    loc: loc("informers.go", line),
    registeredAt: loc("app.go", 325),
    handlers: closures(line - 1000),
  });
  const block = blockOf({
    name: "ctrl.C",
    queue: { type: "workqueue.New", rateLimiter: "(none)", loc: loc("ctrl.go", 10) },
    sources: [
      informer("ServiceAccount", 1200),
      informer("Role", 1210),
      // Chosen at run time (`if enabled { Route() } else { FakeRoute() }`): the same registration, the same closures.
      informer("Route", 1221, "testutils.NewFakeInformerFor"),
      { ...informer("Route", 1220), handlers: closures(221) },
      informer("ConfigMap", 1230),
      informer("ConfigMap", 1240),
      { ...informer("Secret", 1250), registeredAt: loc("app.go", 330) },
    ],
    workers: [],
  });
  assert.deepEqual(block.slice(4), [
    "  watches    ServiceAccount via cache.NewSharedIndexInformer  informers.go:1200 (handlers added at app.go:325)",
    "    add,update       func literal in New  ctrl.go:200, func literal in New ctrl.go:203",
    "      c.queue.Add  ctrl.go:90  via (*C).enqueue ctrl.go:88",
    "  watches    5 watches via cache.NewSharedIndexInformer, handled as ServiceAccount:",
    "      Role informers.go:1210 added at app.go:325 by ctrl.go:210–213; Route :1220 or via testutils.NewFakeInformerFor",
    "      :1221 added at :325 by :221–224; ConfigMap :1230 added at :325 by :230–233; ConfigMap :1240 added at :325 by",
    "      :240–243; Secret :1250 added at :330 by :250–253",
  ]);
});

test("watches handled alike from one registration name it once; places far apart are listed", () => {
  const handlers = (...lines: number[]): Handler[] => lines.map((l, i) => enqueueHandler([["add", "update"][i]!], l));
  const block = blockOf({
    name: "ctrl.C",
    queue: { type: "workqueue.New", rateLimiter: "(none)", loc: loc("ctrl.go", 10) },
    sources: [
      watch("Secret", 200, handlers(20, 21)),
      watch("ConfigMap", 200, handlers(30, 31)),
      watch("Service", 200, handlers(40, 90)),
      {
        ...watch("Pod", 200, handlers(50, 51)),
        handlers: [
          ...handlers(50),
          { ...handlers(0, 51)[1]!, fn: { name: "func literal in New", loc: loc("other.go", 51) } },
        ],
      },
    ],
    workers: [],
  });
  assert.deepEqual(block.slice(7), [
    "  watches    3 kinds via cache.NewSharedIndexInformer, handled as Secret (handlers added at the same place):",
    "      ConfigMap informers.go:100 by ctrl.go:30–31; Service :100 by :40, :90; Pod :100 by :50, other.go:51",
  ]);
});

test("a handler's calls of one text reached through the same helpers are one line with their places", () => {
  const twice = enqueueHandler(["add"], 20);
  twice.producers.push({ ...twice.producers[0]!, loc: loc("ctrl.go", 92) });
  const block = blockOf({
    name: "ctrl.C",
    queue: { type: "workqueue.New", rateLimiter: "(none)", loc: loc("ctrl.go", 10) },
    sources: [watch("Secret", 200, [twice])],
    workers: [],
  });
  assert.deepEqual(block.slice(5), [
    "    add              func literal in New  ctrl.go:20",
    "      c.queue.Add  ctrl.go:90, :92  via (*C).enqueue ctrl.go:88",
  ]);
});

test("watches of kinds known at run time, made in a library, are counted as watches and named by their field", () => {
  const handlers = (line: number): Handler[] => [enqueueHandler(["add"], line), enqueueHandler(["update"], line + 1)];
  const field = (via: string, line: number): Source => ({
    kind: "?",
    via,
    registeredAt: loc("ctrl.go", line),
    handlers: handlers(line),
  });
  const block = blockOf({
    name: "ctrl.C",
    queue: { type: "workqueue.New", rateLimiter: "(none)", loc: loc("ctrl.go", 10) },
    sources: [field("c.pods", 200), field("c.nodes", 210), field("c.nodes", 220), field("c.secrets", 230)],
    workers: [],
  });
  assert.deepEqual(block.slice(7), [
    "  watches    3 watches via c.nodes, handled as ? ctrl.go:200:",
    "      ? added at ctrl.go:210 by ctrl.go:210–211; ? added at :220 by :220–221; ? via c.secrets added at :230 by :230–231",
  ]);
});
