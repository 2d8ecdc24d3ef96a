// Reads a (non-watch) response body: gunzipped when the server sent it gzip-encoded, within the client's byte limit,
// whole as text or, for a LIST, element by element.
import { constants } from "node:buffer";
import type http from "node:http";
import { Transform, pipeline } from "node:stream";
import { createGunzip } from "node:zlib";
import { TransportError } from "./api-error.js";
import { metaStringProblem } from "./decode-json.js";
import { ListDecoder } from "./list-decoder.js";

export interface BodyReading {
  method: string;
  path: string;
  /** The client's maxResponseBytes: bounds the body as received and, when gzip-encoded, once decoded. */
  maxBytes: number;
  /** Called for every chunk that arrives (the idle timer restarts). */
  onData(): void;
}

interface Limit {
  bytes: number;
  /** What sets it, for the error message. */
  source: string;
}

/** The body as one string. Bounded also by the longest string the JavaScript engine can make. */
export async function readText(res: http.IncomingMessage, r: BodyReading): Promise<string> {
  const limit: Limit =
    r.maxBytes <= constants.MAX_STRING_LENGTH
      ? { bytes: r.maxBytes, source: "maxResponseBytes" }
      : { bytes: constants.MAX_STRING_LENGTH, source: "the longest string JavaScript can hold" };
  const chunks: Buffer[] = [];
  for await (const chunk of bodyOf(res, r, limit)) chunks.push(chunk);
  return Buffer.concat(chunks).toString("utf-8");
}

/** A LIST body, each element of items decoded as soon as it is complete and passed through listItem. */
export async function readList(
  res: http.IncomingMessage,
  r: BodyReading,
  listItem: (item: unknown) => unknown,
): Promise<unknown> {
  let index = 0;
  const decoder = new ListDecoder((item) => {
    const problem = metaStringProblem(item, `items[${index++}].`);
    if (problem !== undefined) throw new TransportError(r.method, r.path, problem, { code: "MalformedResponse" });
    return listItem(item);
  });
  let list: unknown;
  try {
    for await (const chunk of bodyOf(res, r, { bytes: r.maxBytes, source: "maxResponseBytes" })) decoder.push(chunk);
    list = decoder.end();
  } catch (cause) {
    if (!(cause instanceof SyntaxError)) throw cause;
    throw new TransportError(r.method, r.path, `response body is not a JSON list: ${cause.message}`, {
      cause,
      code: "MalformedResponse",
    });
  }
  const problem = metaStringProblem({ metadata: (list as { metadata?: unknown }).metadata });
  if (problem !== undefined) throw new TransportError(r.method, r.path, problem, { code: "MalformedResponse" });
  return list;
}

/**
 * The body's chunks, decompressed when gzip-encoded. Both the bytes received and the bytes decoded are counted, and
 * the chunk that takes either past the limit ends the reading (and the connection) with TransportError
 * ResponseTooLarge: a small gzip body that inflates hugely is stopped once that much has been inflated, since
 * gunzip works only as fast as its output is read.
 */
async function* bodyOf(res: http.IncomingMessage, r: BodyReading, limit: Limit): AsyncGenerator<Buffer> {
  const declared = Number(res.headers["content-length"]);
  if (declared > limit.bytes) {
    res.destroy();
    throw tooLarge(r, `response body of ${declared} bytes (Content-Length)`, limit);
  }
  const gzip = res.headers["content-encoding"] === "gzip";
  const source: AsyncIterable<Buffer> = gzip
    ? pipeline(
        res,
        byteLimit(limit.bytes, () => tooLarge(r, "gzip-encoded response body", limit)),
        createGunzip(),
        () => undefined,
      )
    : res;
  let seen = 0;
  for await (const chunk of source) {
    r.onData();
    seen += chunk.length;
    if (seen > limit.bytes) throw tooLarge(r, gzip ? "response body once gzip-decoded" : "response body", limit);
    yield chunk;
  }
}

function byteLimit(bytes: number, tooLargeError: () => Error): Transform {
  let seen = 0;
  return new Transform({
    transform(chunk: Buffer, _encoding, done) {
      seen += chunk.length;
      if (seen > bytes) done(tooLargeError());
      else done(null, chunk);
    },
  });
}

function tooLarge(r: BodyReading, what: string, limit: Limit): TransportError {
  return new TransportError(r.method, r.path, `${what} is larger than ${limit.bytes} bytes (${limit.source})`, {
    code: "ResponseTooLarge",
  });
}
