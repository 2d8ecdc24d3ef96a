// The conversion webhook for one multi-version resource (kubebuilder's hub and spokes): the storage version is the
// hub, each other version a spoke with toHub and fromHub, and any pair converts through the hub. Fields a spoke
// cannot hold survive a round trip in an annotation the runtime manages around the user's functions.
import type { V1ObjectMeta } from "@kubernetes/client-node";
import type { KubernetesObject, ResourceDescriptor, Status } from "../client/types.js";
import { ownField, setOwn } from "../json/own-property.js";
import { sameJson } from "../json/same-json.js";
import { isPanic } from "../panic/panic.js";
import { BadRequest, conversionPath, type WebhookRegistration } from "./registration.js";

/** apiextensions.k8s.io/v1 ConversionReview. */
export interface ConversionReview {
  apiVersion: "apiextensions.k8s.io/v1";
  kind: "ConversionReview";
  request?: { uid: string; desiredAPIVersion: string; objects: unknown[] };
  response?: { uid: string; convertedObjects: unknown[]; result: Status };
}

/** One spoke version's two functions (what `<kind>.conversion.ts` implements). Both may be async. */
export interface SpokeConversion<Hub extends KubernetesObject, Spoke extends KubernetesObject> {
  toHub(obj: Spoke): Hub | Promise<Hub>;
  fromHub(hub: Hub): Spoke | Promise<Spoke>;
}

export interface HubAndSpokes<Hub extends KubernetesObject> {
  /** The hub version: the CRD's storage version. */
  hub: string;
  /** Every other served version. */
  // Method bivariance lets each spoke keep its own object type.
  spokes: Record<string, SpokeConversion<Hub, KubernetesObject>>;
}

/**
 * The annotation holding, on a spoke object, the hub fields that spoke cannot hold: `<group>/conversion-data`
 * (as Cluster API's `cluster.x-k8s.io/conversion-data`). Its value is a JSON object with only those fields.
 */
export function conversionDataAnnotation(group: string): string {
  return `${group}/conversion-data`;
}

/**
 * The registration serving ConversionReview v1 at `/convert` for `resource` (group, kind; its version is ignored).
 *
 * Around the user's functions the runtime: copies metadata from the object it converts (the API server refuses a
 * conversion that changes anything in metadata but labels and annotations; labels and annotations the function sets
 * are kept); sets apiVersion and kind; and keeps what a spoke cannot hold. Converting hub → spoke, it runs the spoke's
 * fromHub then toHub on the result, and every hub field that did not come back unchanged (arrays compared whole) is
 * written into the `conversionDataAnnotation(group)` annotation of the spoke. Converting spoke → hub, it removes the
 * annotation before toHub and writes those fields back into the hub afterwards. So hub → spoke → hub loses nothing,
 * while a field the spoke can hold is always taken from the spoke. (A hub field that toHub invents but the hub lacked
 * is not removed.)
 */
export function conversionWebhookFor<Hub extends KubernetesObject>(
  resource: Pick<ResourceDescriptor, "group" | "kind"> & Partial<ResourceDescriptor>,
  conversion: HubAndSpokes<Hub>,
): WebhookRegistration {
  const descriptor: ResourceDescriptor = {
    plural: resource.plural ?? `${resource.kind.toLowerCase()}s`,
    namespaced: resource.namespaced ?? true,
    group: resource.group,
    kind: resource.kind,
    version: conversion.hub,
  };
  if (conversion.hub in conversion.spokes)
    throw new Error(`conversionWebhookFor ${resource.kind}: ${conversion.hub} is the hub and cannot be a spoke too`);
  const converter = new HubConverter(descriptor, conversion);
  return {
    path: conversionPath,
    type: "conversion",
    resource: descriptor,
    operations: [],
    handle: async (review, context) => {
      const request = conversionRequestOf(review);
      try {
        const converted: unknown[] = [];
        for (const obj of request.objects) converted.push(await converter.convert(obj, request.desiredAPIVersion));
        return conversionReply(review, converted, { status: "Success" });
      } catch (error) {
        if (!isPanic(error)) return failedConversion(review, error instanceof Error ? error.message : String(error));
        context.onPanic?.(error);
        // As controller-runtime: the panic's value goes to the log (onPanic), not to the API server.
        return failedConversion(review, "internal error occurred during conversion");
      }
    },
  };
}

function conversionRequestOf(review: unknown): NonNullable<ConversionReview["request"]> {
  const request = reviewEnvelope(review).request;
  if (!isObject(request)) throw new BadRequest("conversion request is nil");
  const { uid = "", desiredAPIVersion = "", objects = [] } = request;
  if (typeof uid !== "string" || typeof desiredAPIVersion !== "string" || !Array.isArray(objects))
    throw new BadRequest("the ConversionReview's uid, desiredAPIVersion or objects has the wrong type");
  return { uid, desiredAPIVersion, objects: objects as unknown[] };
}

function reviewEnvelope(review: unknown): Partial<Record<keyof ConversionReview, unknown>> {
  if (!isObject(review)) throw new BadRequest("the body is not a ConversionReview");
  const { kind = "ConversionReview", apiVersion = "" } = review;
  if (kind !== "ConversionReview" || typeof apiVersion !== "string" || !reviewVersions.has(apiVersion))
    throw new BadRequest(`${JSON.stringify(kind)} ${JSON.stringify(apiVersion)} is not a ConversionReview`);
  return review;
}

const reviewVersions = new Set(["", "apiextensions.k8s.io/v1", "apiextensions.k8s.io/v1beta1"]);

/** The answer to `review` with `message` as its Failure and no objects, in the review's apiVersion. */
export function failedConversion(review: unknown, message: string): ConversionReview {
  return conversionReply(review, [], { status: "Failure", message });
}

function conversionReply(review: unknown, convertedObjects: unknown[], result: Status): ConversionReview {
  const r = review as { apiVersion?: unknown; request?: { uid?: unknown } } | null;
  const apiVersion = typeof r?.apiVersion === "string" && r.apiVersion ? r.apiVersion : "apiextensions.k8s.io/v1";
  const uid = typeof r?.request?.uid === "string" ? r.request.uid : "";
  return {
    apiVersion: apiVersion as ConversionReview["apiVersion"],
    kind: "ConversionReview",
    response: { uid, convertedObjects, result },
  };
}

/** The group and kind a ConversionReview converts (from its first object), to pick among registrations at /convert. */
export function conversionReviewGroupKind(review: unknown): { group: string; kind: string } | undefined {
  const objects = (review as Partial<ConversionReview> | null)?.request?.objects;
  const first = (Array.isArray(objects) ? objects[0] : undefined) as KubernetesObject | undefined;
  if (!first || typeof first.apiVersion !== "string" || typeof first.kind !== "string") return undefined;
  return { group: splitApiVersion(first.apiVersion).group, kind: first.kind };
}

function splitApiVersion(apiVersion: string): { group: string; version: string } {
  const slash = apiVersion.lastIndexOf("/");
  return slash < 0
    ? { group: "", version: apiVersion }
    : { group: apiVersion.slice(0, slash), version: apiVersion.slice(slash + 1) };
}

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === "object" && v !== null && !Array.isArray(v);

/** Sets or (value undefined) removes one annotation, dropping an emptied annotations map. */
function setAnnotation(metadata: V1ObjectMeta, key: string, value: string | undefined): void {
  const rest = Object.entries(metadata.annotations ?? {}).filter(([k]) => k !== key);
  if (value !== undefined) rest.push([key, value]);
  if (rest.length > 0) metadata.annotations = Object.fromEntries(rest);
  else delete metadata.annotations;
}

class HubConverter<Hub extends KubernetesObject> {
  private readonly annotation: string;
  constructor(
    private readonly resource: ResourceDescriptor,
    private readonly conversion: HubAndSpokes<Hub>,
  ) {
    this.annotation = conversionDataAnnotation(resource.group);
  }

  async convert(input: unknown, desiredAPIVersion: string): Promise<KubernetesObject> {
    if (!isObject(input) || typeof input["apiVersion"] !== "string")
      throw new Error("an object to convert has no apiVersion");
    const obj = input as KubernetesObject & Json;
    const from = splitApiVersion(obj.apiVersion!);
    const to = splitApiVersion(desiredAPIVersion);
    const { group, kind } = this.resource;
    const name = `${kind} ${obj.metadata?.namespace ? `${obj.metadata.namespace}/` : ""}${obj.metadata?.name ?? ""}`;
    if (from.group !== group || obj.kind !== kind)
      throw new Error(`${name}: ${obj.apiVersion} ${String(obj.kind)} is not served by ${kind}.${group}'s conversion`);
    if (to.group !== group) throw new Error(`${name}: cannot convert to ${desiredAPIVersion}, another group`);
    // The API server never sends an object already in the desired version; controller-runtime refuses one.
    if (from.version === to.version) throw new Error(`${name}: conversion is not allowed between the same version`);
    try {
      const hub = from.version === this.conversion.hub ? obj : await this.toHub(from.version, obj, name);
      return to.version === this.conversion.hub ? hub : await this.fromHub(to.version, hub, name);
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      // Errors of the user's functions say which object and which conversion failed; a panic stays as it was thrown.
      if (isPanic(error) || message.startsWith(name)) throw error;
      throw new Error(`${name}: converting ${from.version} to ${to.version}: ${message}`, { cause: error });
    }
  }

  private spoke(version: string, name: string) {
    const spoke = this.conversion.spokes[version];
    if (!spoke)
      throw new Error(
        `${name}: no conversion for version ${version} (hub ${this.conversion.hub}, spokes ${Object.keys(this.conversion.spokes).join(", ") || "none"})`,
      );
    return spoke;
  }

  private async toHub(version: string, obj: KubernetesObject, name: string): Promise<KubernetesObject> {
    const spoke = this.spoke(version, name);
    const saved = obj.metadata?.annotations?.[this.annotation];
    const clean = structuredClone(obj);
    if (clean.metadata) setAnnotation(clean.metadata, this.annotation, undefined);
    const hub = this.finish(await spoke.toHub(structuredClone(clean)), clean, this.conversion.hub);
    if (saved !== undefined) {
      let lost: unknown;
      try {
        lost = JSON.parse(saved);
      } catch (error) {
        throw new Error(`${name}: annotation ${this.annotation} is not JSON: ${(error as Error).message}`, {
          cause: error,
        });
      }
      if (isObject(lost)) restore(hub as unknown as Json, lost);
    }
    return hub;
  }

  private async fromHub(version: string, hub: KubernetesObject, name: string): Promise<KubernetesObject> {
    const spoke = this.spoke(version, name);
    const out = this.finish(await spoke.fromHub(structuredClone(hub as Hub)), hub, version);
    const back = (await spoke.toHub(structuredClone(out))) as unknown as Json;
    const { apiVersion: _a, kind: _k, metadata: _m, ...hubFields } = hub as unknown as Json;
    const lost = lostFields(hubFields, back);
    setAnnotation((out.metadata ??= {}), this.annotation, lost && JSON.stringify(lost));
    return out;
  }

  /** apiVersion, kind and metadata as the API server requires (only labels and annotations may change). */
  private finish(result: KubernetesObject, source: KubernetesObject, version: string): KubernetesObject {
    if (typeof result !== "object" || Array.isArray(result))
      throw new Error(`a ${this.resource.kind} conversion function returned no object`);
    const metadata: V1ObjectMeta = structuredClone(source.metadata ?? {});
    const labels = result.metadata?.labels;
    const annotations = result.metadata?.annotations;
    if (labels) metadata.labels = { ...labels };
    if (annotations) metadata.annotations = { ...annotations };
    return { ...result, apiVersion: `${this.resource.group}/${version}`, kind: this.resource.kind, metadata };
  }
}

/** The fields of `hub` whose value `back` lacks or differs in, as a sparse object (undefined when none). */
export function lostFields(hub: Json, back: Json): Json | undefined {
  let out: Json | undefined;
  for (const [key, value] of Object.entries(hub)) {
    if (value === undefined) continue;
    const other = ownField(back, key);
    let lost: unknown;
    if (isObject(value) && isObject(other)) lost = lostFields(value, other);
    else if (!sameJson(value, other)) lost = value;
    if (lost !== undefined) setOwn((out ??= {}), key, lost);
  }
  return out;
}

/** Writes a sparse object's fields into target (objects merged, anything else replaced). */
function restore(target: Json, fields: Json): void {
  for (const [key, value] of Object.entries(fields)) {
    const current = ownField(target, key);
    if (isObject(value) && isObject(current)) restore(current, value);
    else setOwn(target, key, structuredClone(value));
  }
}
