// Test helper (not a test): HTTP/1.1 requests written byte for byte on a TLS socket, so a test controls exactly which
// framing headers go out (none, Content-Length: 0, chunked) and can stream a body that never ends.
import { connect, type TLSSocket } from "node:tls";

export interface RawReply {
  status: number;
  headers: Record<string, string>;
  body: string;
}

export interface RawRequest {
  method?: string;
  path: string;
  /** Sent as given, each as `name: value`; nothing is added but Host and Connection: close. */
  headers?: Record<string, string>;
  /** Written after the header block as is (a chunked body must carry its own framing). */
  body?: string | Buffer;
}

/** Opens a TLS connection to 127.0.0.1:port that trusts only `ca`. */
export function tlsConnect(port: number, ca: string): Promise<TLSSocket> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: "127.0.0.1", port, ca }, () => resolve(socket));
    socket.once("error", reject);
  });
}

export function headerBlock(r: RawRequest): string {
  const lines = [`${r.method ?? "POST"} ${r.path} HTTP/1.1`, "Host: localhost", "Connection: close"];
  for (const [name, value] of Object.entries(r.headers ?? {})) lines.push(`${name}: ${value}`);
  return lines.join("\r\n") + "\r\n\r\n";
}

/** Sends one request on a new connection and reads the reply until the server closes the connection. */
export async function rawRequest(port: number, ca: string, r: RawRequest): Promise<RawReply> {
  const socket = await tlsConnect(port, ca);
  const text = readAll(socket);
  socket.write(headerBlock(r));
  if (r.body !== undefined) socket.write(r.body);
  return parseReply(await text);
}

/** Everything the server sends until it closes the connection. */
export function readAll(socket: TLSSocket): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    socket.on("data", (c: Buffer) => chunks.push(c));
    socket.on("error", reject);
    socket.on("close", () => resolve(Buffer.concat(chunks).toString("utf8")));
  });
}

/** A response with a Content-Length body (what the webhook server writes). */
export function parseReply(text: string): RawReply {
  const end = text.indexOf("\r\n\r\n");
  if (end < 0) throw new Error(`not an HTTP response: ${JSON.stringify(text.slice(0, 200))}`);
  const [statusLine = "", ...lines] = text.slice(0, end).split("\r\n");
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(":");
    headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  return { status: Number(statusLine.split(" ")[1]), headers, body: text.slice(end + 4) };
}

/** One chunk of a chunked body. */
export const chunk = (data: string | Buffer): Buffer =>
  Buffer.concat([Buffer.from(`${Buffer.byteLength(data).toString(16)}\r\n`), Buffer.from(data), Buffer.from("\r\n")]);

/** The last chunk of a chunked body. */
export const lastChunk = "0\r\n\r\n";
