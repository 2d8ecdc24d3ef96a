// Parses multi-document YAML and keeps the apiextensions.k8s.io/v1 CustomResourceDefinitions.
import { createHash } from "node:crypto";
import { parseAllDocuments } from "yaml";
import { InputError } from "./input-error.js";
import type { InputText } from "./read-inputs.js";

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
    const documents = parseAllDocuments(input.text, { version: "1.2", uniqueKeys: true });
    if (!Array.isArray(documents)) throw new InputError({ file: input.file, documentIndex: 0 }, "the file is empty: it holds no YAML document");
    let found = 0;
    documents.forEach((doc, documentIndex) => {
      const error = doc.errors[0];
      if (error) {
        const [line, col] = error.linePos?.[0] ? [error.linePos[0].line, error.linePos[0].col] : [0, 0];
        // The yaml package ends its first message line with " at line L, column C:"; the location is already said.
        const message = (error.message.split("\n")[0] ?? "").replace(/ at line \d+, column \d+:?$/, "");
        throw new InputError({ file: input.file, documentIndex }, `invalid YAML at line ${line}, column ${col}: ${message}`);
      }
      const value: unknown = doc.toJS({ maxAliasCount: 1000 });
      if (value === null || value === undefined) return; // an empty document between two "---" separators
      if (typeof value !== "object" || Array.isArray(value)) {
        throw new InputError({ file: input.file, documentIndex }, "a document must be a Kubernetes object (a YAML mapping)");
      }
      const object = value as Record<string, unknown>;
      const apiVersion = String(object["apiVersion"] ?? "");
      const kind = String(object["kind"] ?? "");
      if (kind === "CustomResourceDefinition" && apiVersion.startsWith("apiextensions.k8s.io/") && apiVersion !== crdApiVersion) {
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
    if (documents.length === 0 || documents.every((d) => d.contents === null)) {
      // No document at all (or only comments and separators): document 0 is the empty one.
      throw new InputError({ file: input.file, documentIndex: 0 }, "the file is empty: it holds no YAML document");
    }
    if (found === 0) {
      throw new InputError({ file: input.file }, `no ${crdApiVersion} CustomResourceDefinition in the file (found: ${describeKinds(skipped, input.file)})`);
    }
  }
  return { crds, skipped };
}

function describeKinds(skipped: SkippedDocument[], file: string): string {
  const kinds = skipped.filter((s) => s.file === file).map((s) => `${s.kind || "no kind"} in document ${s.documentIndex}`);
  return kinds.length ? kinds.join(", ") : "nothing";
}
