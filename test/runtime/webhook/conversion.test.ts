// conversionWebhookFor: ConversionReview v1 through the hub, with the hub fields a spoke cannot hold kept in the
// `<group>/conversion-data` annotation so a round trip loses nothing, and metadata kept as the API server requires.
import { test } from "node:test";
import assert from "node:assert/strict";
import { newLogger, type KubernetesObject } from "@crdgen/runtime";
import {
  BadRequest,
  conversionDataAnnotation,
  conversionWebhookFor,
  type ConversionReview,
  type HubAndSpokes,
  type SpokeConversion,
} from "@crdgen/runtime/webhook";
import { lostFields } from "#runtime/webhook/conversion.js";
import { conversionReview, widget, widgets, type Widget, type WidgetV1alpha1 } from "./reviews.js";

const context = () => ({ signal: new AbortController().signal, log: newLogger({ write: () => undefined }) });
const annotation = conversionDataAnnotation("webhook.example.com");

/** v1alpha1 has size and image (`mysql:<version>`); v1's engine has no place there. */
const v1alpha1: SpokeConversion<Widget, WidgetV1alpha1> = {
  toHub: (obj) => ({
    apiVersion: "",
    kind: "",
    metadata: obj.metadata,
    spec: {
      ...(obj.spec.size !== undefined ? { replicas: obj.spec.size } : {}),
      ...(obj.spec.image !== undefined ? { version: obj.spec.image.replace(/^mysql:/, "") } : {}),
    },
  }),
  fromHub: (hub) => ({
    apiVersion: "",
    kind: "",
    metadata: hub.metadata,
    spec: {
      ...(hub.spec.replicas !== undefined ? { size: hub.spec.replicas } : {}),
      ...(hub.spec.version !== undefined ? { image: `mysql:${hub.spec.version}` } : {}),
    },
  }),
};

/** A second spoke holding only replicas (as `count`). */
interface WidgetV1beta1 extends KubernetesObject {
  spec: { count?: number };
}
const v1beta1: SpokeConversion<Widget, WidgetV1beta1> = {
  toHub: (obj) => ({ apiVersion: "", kind: "", metadata: obj.metadata, spec: { replicas: obj.spec.count } }),
  fromHub: (hub) => ({ apiVersion: "", kind: "", metadata: hub.metadata, spec: { count: hub.spec.replicas } }),
};

const hubAndSpokes: HubAndSpokes<Widget> = { hub: "v1", spokes: { v1alpha1, v1beta1 } };
const webhook = conversionWebhookFor(widgets, hubAndSpokes);

async function convert(desired: string, objects: unknown[]): Promise<ConversionReview["response"]> {
  const review = conversionReview(desired, objects);
  const answer = (await webhook.handle(review, context())) as ConversionReview;
  assert.equal(answer.apiVersion, "apiextensions.k8s.io/v1");
  assert.equal(answer.kind, "ConversionReview");
  assert.equal(answer.response?.uid, review.request!.uid);
  return answer.response;
}

test("served at /convert for the hub version", () => {
  assert.equal(webhook.path, "/convert");
  assert.equal(webhook.type, "conversion");
  assert.equal(webhook.resource.version, "v1");
  assert.equal(annotation, "webhook.example.com/conversion-data");
});

test("hub → spoke keeps what the spoke cannot hold in the annotation; spoke → hub restores it and drops it", async () => {
  const hub = widget("w1", { replicas: 3, version: "8.0.36", engine: "percona" }, { labels: { app: "db" } });
  const down = await convert("webhook.example.com/v1alpha1", [hub]);
  assert.equal(down?.result.status, "Success");
  const spoke = down.convertedObjects[0] as WidgetV1alpha1;
  assert.equal(spoke.apiVersion, "webhook.example.com/v1alpha1");
  assert.equal(spoke.kind, "Widget");
  assert.deepEqual(spoke.spec, { size: 3, image: "mysql:8.0.36" });
  assert.deepEqual(JSON.parse(spoke.metadata!.annotations![annotation]!), { spec: { engine: "percona" } });
  assert.deepEqual(spoke.metadata!.labels, { app: "db" });

  const up = await convert("webhook.example.com/v1", [spoke]);
  assert.deepEqual(up!.convertedObjects[0], hub, "the round trip gives back the hub object exactly");
});

test("a field the spoke can hold comes from the spoke, even when the annotation remembers another value", async () => {
  const hub = widget("w1", { replicas: 3, version: "8.0.36", engine: "percona" });
  const spoke = (await convert("webhook.example.com/v1alpha1", [hub]))!.convertedObjects[0] as WidgetV1alpha1;
  spoke.spec.size = 5; // a client edits the v1alpha1 object
  const up = (await convert("webhook.example.com/v1", [spoke]))!.convertedObjects[0] as Widget;
  assert.deepEqual(up.spec, { replicas: 5, version: "8.0.36", engine: "percona" });
});

test("an object that fits the spoke gets no annotation", async () => {
  const spoke = (await convert("webhook.example.com/v1alpha1", [widget("w1", { replicas: 2, version: "8.0" })]))!
    .convertedObjects[0] as WidgetV1alpha1;
  assert.equal(spoke.metadata?.annotations, undefined);
});

test("spoke → spoke goes through the hub, carrying the fields neither spoke holds", async () => {
  const hub = widget("w1", { replicas: 2, version: "8.0.36", engine: "percona" });
  const alpha = (await convert("webhook.example.com/v1alpha1", [hub]))!.convertedObjects[0];
  const beta = (await convert("webhook.example.com/v1beta1", [alpha]))!.convertedObjects[0] as WidgetV1beta1;
  assert.equal(beta.apiVersion, "webhook.example.com/v1beta1");
  assert.deepEqual(beta.spec, { count: 2 });
  assert.deepEqual(JSON.parse(beta.metadata!.annotations![annotation]!), {
    spec: { version: "8.0.36", engine: "percona" },
  });
  const back = (await convert("webhook.example.com/v1", [beta]))!.convertedObjects[0];
  assert.deepEqual(back, hub);
});

test("metadata comes from the object converted (only labels and annotations may change); status converts too", async () => {
  const spokeWithStatus: SpokeConversion<Widget, WidgetV1alpha1> = {
    ...v1alpha1,
    fromHub: (hub) => ({
      apiVersion: "x",
      kind: "Y",
      metadata: { name: "renamed", labels: { converted: "yes" } },
      spec: { size: hub.spec.replicas },
      status: (hub as Widget & { status?: unknown }).status,
    }),
  };
  const hook = conversionWebhookFor(widgets, { hub: "v1", spokes: { v1alpha1: spokeWithStatus } });
  const hub = { ...widget("w1", { replicas: 1 }), status: { ready: 1 } };
  const answer = (await hook.handle(
    conversionReview("webhook.example.com/v1alpha1", [hub]),
    context(),
  )) as ConversionReview;
  const out = answer.response!.convertedObjects[0] as WidgetV1alpha1 & { status?: unknown };
  assert.equal(out.metadata?.name, "w1");
  assert.equal(out.metadata.uid, hub.metadata!.uid);
  assert.deepEqual(out.metadata.labels, { converted: "yes" });
  assert.equal(out.apiVersion, "webhook.example.com/v1alpha1");
  assert.equal(out.kind, "Widget");
  assert.deepEqual(out.status, { ready: 1 });
});

test("every object of a review is converted; one already in the desired version fails, as controller-runtime's", async () => {
  const a = widget("a", { replicas: 1 });
  const b = widget("b", { replicas: 2 });
  const response = await convert("webhook.example.com/v1alpha1", [a, b]);
  assert.deepEqual(
    response!.convertedObjects.map((o) => (o as WidgetV1alpha1).spec.size),
    [1, 2],
  );
  const same = await convert("webhook.example.com/v1", [a]);
  assert.deepEqual(same?.result, {
    status: "Failure",
    message: "Widget default/a: conversion is not allowed between the same version",
  });
  assert.deepEqual(same.convertedObjects, []);
});

test("a failure answers result Failure with a message naming the object, and no objects", async () => {
  const throwing = conversionWebhookFor(widgets, {
    hub: "v1",
    spokes: {
      v1alpha1: {
        ...v1alpha1,
        toHub: () => {
          throw new Error("size must be a number");
        },
      },
    },
  });
  const review = conversionReview("webhook.example.com/v1", [
    { ...widget("w1", {}), apiVersion: "webhook.example.com/v1alpha1" },
  ]);
  const answer = (await throwing.handle(review, context())) as ConversionReview;
  assert.deepEqual(answer.response?.result, {
    status: "Failure",
    message: "Widget default/w1: converting v1alpha1 to v1: size must be a number",
  });
  assert.deepEqual(answer.response.convertedObjects, []);

  const unknown = await convert("webhook.example.com/v2", [widget("w1", {})]);
  assert.equal(unknown?.result.status, "Failure");
  assert.equal(
    unknown.result.message,
    "Widget default/w1: no conversion for version v2 (hub v1, spokes v1alpha1, v1beta1)",
  );
  const otherKind = await convert("webhook.example.com/v1alpha1", [{ ...widget("w1", {}), kind: "Gadget" }]);
  assert.match(otherKind?.result.message ?? "", /is not served by Widget\.webhook\.example\.com's conversion/);
});

test("a conversion function's panic answers Failure `internal error occurred during conversion`, reported to onPanic", async () => {
  // A bug: the image spread as a list (the object sent has none, so the spread throws a TypeError).
  const buggy: SpokeConversion<Widget, WidgetV1alpha1> = {
    ...v1alpha1,
    toHub: (obj) => ({ ...widget("", {}), metadata: obj.metadata, spec: { replicas: [...obj.spec.image!].length } }),
  };
  const panicking = conversionWebhookFor(widgets, { hub: "v1", spokes: { v1alpha1: buggy } });
  const review = conversionReview("webhook.example.com/v1", [
    { ...widget("w1", {}), apiVersion: "webhook.example.com/v1alpha1" },
  ]);
  const panics: unknown[] = [];
  const answer = (await panicking.handle(review, {
    ...context(),
    onPanic: (value: unknown) => panics.push(value),
  })) as ConversionReview;
  assert.equal(answer.response?.result.status, "Failure");
  assert.equal(answer.response.result.message, "internal error occurred during conversion");
  assert.deepEqual(answer.response.convertedObjects, []);
  assert.equal(panics.length, 1);
  assert.ok(panics[0] instanceof TypeError);
});

test("a body without a request is a BadRequest; v1beta1 is answered in v1beta1; the hub cannot be a spoke", async () => {
  await assert.rejects(webhook.handle({ kind: "AdmissionReview" }, context()), BadRequest);
  await assert.rejects(webhook.handle({ kind: "ConversionReview" }, context()), /conversion request is nil/);
  await assert.rejects(webhook.handle({ request: { objects: {} } }, context()), BadRequest);
  const beta = {
    ...conversionReview("webhook.example.com/v1alpha1", [widget("w1", {})]),
    apiVersion: "apiextensions.k8s.io/v1beta1",
  };
  const answer = (await webhook.handle(beta, context())) as ConversionReview;
  assert.equal(answer.apiVersion, "apiextensions.k8s.io/v1beta1");
  assert.equal(answer.response?.uid, beta.request!.uid);
  assert.equal(answer.response.result.status, "Success");
  assert.throws(
    () => conversionWebhookFor(widgets, { hub: "v1", spokes: { v1: v1alpha1 } }),
    /v1 is the hub and cannot be a spoke too/,
  );
});

test("lostFields: the hub fields missing or different after the round trip, as a sparse object; arrays whole", () => {
  assert.equal(lostFields({ spec: { a: 1 } }, { spec: { a: 1 } }), undefined);
  assert.deepEqual(lostFields({ spec: { a: 1, b: { c: 2, d: 3 } } }, { spec: { a: 1, b: { c: 2 } } }), {
    spec: { b: { d: 3 } },
  });
  assert.deepEqual(lostFields({ spec: { list: [1, 2] } }, { spec: { list: [1] } }), { spec: { list: [1, 2] } });
  assert.deepEqual(lostFields({ spec: { a: 1 } }, { spec: { a: 2 } }), { spec: { a: 1 } });
});
