// Parses multi-document YAML and keeps the apiextensions.k8s.io/v1 CustomResourceDefinitions.
import { createHash } from "node:crypto";
import jsYaml from "js-yaml";
import { parseAllDocuments } from "yaml";
import { InputError, scalarText } from "../input-error.js";
import type { InputText } from "./read-inputs.js";
import { dropUnusedAnchors, expansionLimit, maxAliases, measureExpansion } from "./yaml-expansion.js";

export interface LoadedCrd {
  file: string;
  documentIndex: number;
  /** sha256 of the whole input file, written into every generated file's header. */
  fileSha256: string;
  crd: Record<string, unknown>;
}

export interface SkippedDocument {
  file: string;
  documentIndex: number;
  apiVersion: string;
  kind: string;
}

export interface ParsedInputs {
  crds: LoadedCrd[];
  skipped: SkippedDocument[];
}

const crdApiVersion = "apiextensions.k8s.io/v1";

export function parseCrds(inputs: InputText[]): ParsedInputs {
  const crds: LoadedCrd[] = [];
  const skipped: SkippedDocument[] = [];
  for (const input of inputs) {
    const fileSha256 = createHash("sha256").update(input.text).digest("hex");
    const documents = fastLoad(input.text) ?? carefulLoad(input.file, input.text);
    let found = 0;
    documents.forEach((value, documentIndex) => {
      if (value === null || value === undefined) return; // an empty document between two "---" separators
      if (typeof value !== "object" || Array.isArray(value)) {
        throw new InputError(
          { file: input.file, documentIndex },
          "a document must be a Kubernetes object (a YAML mapping)",
        );
      }
      const object = value as Record<string, unknown>;
      const apiVersion = scalarText(object["apiVersion"]);
      const kind = scalarText(object["kind"]);
      if (
        kind === "CustomResourceDefinition" &&
        apiVersion.startsWith("apiextensions.k8s.io/") &&
        apiVersion !== crdApiVersion
      ) {
        throw new InputError(
          { file: input.file, documentIndex, schemaPath: "/apiVersion" },
          `${apiVersion} CustomResourceDefinitions are not supported (removed in Kubernetes 1.22); convert it to ${crdApiVersion}`,
        );
      }
      if (kind !== "CustomResourceDefinition" || apiVersion !== crdApiVersion) {
        skipped.push({ file: input.file, documentIndex, apiVersion, kind });
        return;
      }
      found++;
      crds.push({ file: input.file, documentIndex, fileSha256, crd: object });
    });
    if (documents.length === 0 || documents.every((d) => d === null || d === undefined)) {
      // No document at all (or only comments and separators): the first document is the empty one.
      throw new InputError({ file: input.file, documentIndex: 0 }, "the file is empty: it holds no YAML document");
    }
    if (found === 0) {
      throw new InputError(
        { file: input.file },
        `no ${crdApiVersion} CustomResourceDefinition in the file (found: ${describeKinds(skipped, input.file)})`,
      );
    }
  }
  return { crds, skipped };
}

/**
 * js-yaml (about ten times faster than the yaml package on big CRDs) for the common case: no error, and no anchor (so
 * no alias: js-yaml would share an aliased object, which a walk of the schema expands, and repeat an aliased string
 * unbounded; the careful path counts and bounds both). Anything else, and every error, goes through carefulLoad, which
 * reports the line and column. CORE_SCHEMA keeps YAML 1.2 scalars (no 1.1 timestamps or merge keys), as the yaml
 * package does.
 */
function fastLoad(text: string): unknown[] | undefined {
  const seen = { anchor: false };
  let documents: unknown[];
  try {
    documents = jsYaml.loadAll(text, undefined, {
      schema: jsYaml.CORE_SCHEMA,
      // Called as each node closes: an anchor is still set on the state for the node that carries it. An anchor is
      // written with "&": a text without one has none, and is read without a call per node (most CRDs).
      ...(text.includes("&")
        ? {
            listener: (event: jsYaml.EventType, state: jsYaml.State) => {
              if (event === "close" && (state as { anchor?: string | null }).anchor != null) seen.anchor = true;
            },
          }
        : {}),
    });
  } catch {
    return undefined;
  }
  return seen.anchor ? undefined : documents;
}

/** The yaml package: every document, or an InputError naming the file, document, line and column of the first problem. */
function carefulLoad(file: string, text: string): unknown[] {
  let documents: ReturnType<typeof parseAllDocuments>;
  try {
    documents = parseAllDocuments(text, { version: "1.2", uniqueKeys: true });
  } catch (error) {
    if (error instanceof RangeError) throw tooDeep(file);
    throw error;
  }
  if (!Array.isArray(documents))
    throw new InputError({ file, documentIndex: 0 }, "the file is empty: it holds no YAML document");
  const limit = expansionLimit(text.length);
  let expanded = 0;
  return documents.map((doc, documentIndex) => {
    const error = doc.errors[0];
    // The yaml package reports its own stack overflow on absurdly deep nesting as a parse error.
    if (error && /Maximum call stack size exceeded/.test(error.message)) throw tooDeep(file, documentIndex);
    if (error) {
      const position = error.linePos?.[0] ? { line: error.linePos[0].line, column: error.linePos[0].col } : {};
      // The yaml package ends its first message line with " at line L, column C:"; the location is already said.
      const message = (error.message.split("\n")[0] ?? "").replace(/ at line \d+, column \d+:?$/, "");
      throw new InputError({ file, documentIndex, ...position }, `invalid YAML: ${message}`);
    }
    // Aliases are counted and the expanded size bounded before toJS expands anything.
    const expansion = measureExpansion(doc.contents, limit - expanded, limit);
    if ("problem" in expansion) throw new InputError({ file, documentIndex }, expansion.problem);
    expanded += expansion.size;
    dropUnusedAnchors(expansion.unused);
    try {
      // The yaml package's own alias count stays as a backstop, set above ours: it counts the anchor itself, and
      // multiplies counts along nested aliases, so it would stop some documents the measurement above lets through.
      return doc.contents === null ? null : (doc.toJS({ maxAliasCount: 10 * maxAliases }) as unknown);
    } catch (error) {
      if (error instanceof RangeError) throw tooDeep(file, documentIndex);
      // The yaml package's alias errors (an unknown anchor, too many aliases): the message alone, on one line.
      if (error instanceof ReferenceError)
        throw new InputError({ file, documentIndex }, `invalid YAML: ${error.message.split("\n")[0]}`);
      throw error;
    }
  });
}

function tooDeep(file: string, documentIndex?: number): InputError {
  return new InputError(
    { file, documentIndex },
    "the YAML nests too deep to read (hundreds of levels of mappings and sequences, where a CRD schema needs a few dozen)",
  );
}

function describeKinds(skipped: SkippedDocument[], file: string): string {
  const kinds = skipped
    .filter((s) => s.file === file)
    .map((s) => `${s.kind || "no kind"} in document ${s.documentIndex + 1}`);
  return kinds.length ? kinds.join(", ") : "nothing";
}
