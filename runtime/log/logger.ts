// Structured logging backed by pino: one JSON object per line (the default, for machines), or a logfmt-style
// line for people (CRDGEN_LOG_FORMAT=text or { format: "text" }), rendered from the same pino record.
import { createRequire } from "node:module";
import type Pino from "pino";

// pino through require, not `import`: an ES module importing a CommonJS package makes Node load its cjs-module-lexer
// and translators (about 0.3 MB of heap per process); require shares the module with an operator's own import.
const pino = createRequire(import.meta.url)("pino") as typeof Pino;

export type LogFields = Record<string, unknown>;

export interface Logger {
  debug(message: string, fields?: LogFields): void;
  info(message: string, fields?: LogFields): void;
  warn(message: string, fields?: LogFields): void;
  error(message: string, fields?: LogFields): void;
  /** A logger that adds these fields to every entry. */
  child(fields: LogFields): Logger;
}

export type LogLevel = "debug" | "info" | "warn" | "error";
const levels: readonly LogLevel[] = ["debug", "info", "warn", "error"];

export interface LoggerOptions {
  /** Default $CRDGEN_LOG_LEVEL, else info. */
  level?: LogLevel;
  /** Default $CRDGEN_LOG_FORMAT ("text" or "json"), else json. */
  format?: "text" | "json";
  /** Receives each entry as one line without the trailing newline (tests); default: synchronous writes to stderr. */
  write?: (line: string) => void;
}

/** A pino-backed Logger. `bound` fields are added to every entry, as child(bound) would. */
export function newLogger(options: LoggerOptions = {}, bound: LogFields = {}): Logger {
  const envLevel = process.env["CRDGEN_LOG_LEVEL"] as LogLevel | undefined;
  const level = options.level ?? (envLevel && levels.includes(envLevel) ? envLevel : "info");
  const format = options.format ?? (process.env["CRDGEN_LOG_FORMAT"] === "text" ? "text" : "json");
  const base = pino(
    {
      level,
      base: undefined, // no pid/hostname: the log collector knows the pod
      messageKey: "msg",
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
    },
    destination(format, options.write),
  );
  return fromPino(Object.keys(bound).length > 0 ? base.child(prepare(bound, format)) : base, format);
}

let shared: Logger | undefined;

/**
 * The logger parts of the runtime use when none was passed down (an informer built outside a controller): one
 * pino logger for the process, created on first use, so nothing ever writes through console.
 */
export function defaultLogger(): Logger {
  return (shared ??= newLogger());
}

/**
 * Wraps an existing pino logger (to share its destination, level and transports with the rest of a program).
 * Errors in fields are serialized with pino's err serializer (type, message, stack).
 */
export function fromPino(logger: Pino.Logger, format: "text" | "json" = "json"): Logger {
  const emit = (at: LogLevel) => (message: string, fields?: LogFields) => {
    if (fields && Object.keys(fields).length > 0) logger[at](prepare(fields, format), message);
    else logger[at](message);
  };
  return {
    debug: emit("debug"),
    info: emit("info"),
    warn: emit("warn"),
    error: emit("error"),
    child: (fields) => fromPino(logger.child(prepare(fields, format)), format),
  };
}

// pino serializes only keys named in `serializers`; fields here carry Errors under any key (error, cause, ...).
function prepare(fields: LogFields, format: "text" | "json"): LogFields {
  let out: LogFields | undefined;
  for (const [k, v] of Object.entries(fields)) {
    if (!(v instanceof Error)) continue;
    out ??= { ...fields };
    out[k] = format === "text" ? v.message : pino.stdSerializers.err(v);
  }
  return out ?? fields;
}

function destination(format: "text" | "json", write: ((line: string) => void) | undefined): Pino.DestinationStream {
  const sink = write ?? (format === "text" ? (line: string) => process.stderr.write(`${line}\n`) : undefined);
  if (!sink) return pino.destination({ dest: 2, sync: true });
  return {
    write(chunk: string) {
      for (const line of chunk.split("\n")) if (line) sink(format === "text" ? toText(line) : line);
    },
  };
}

/** `2026-01-02T03:04:05.678Z INFO  message key=value ...`, the pre-pino text layout. */
function toText(line: string): string {
  let record: LogFields;
  try {
    record = JSON.parse(line) as LogFields;
  } catch {
    return line;
  }
  const { time, level, msg, ...fields } = record;
  const pairs = Object.entries(fields).map(([k, v]) => `${k}=${formatValue(v)}`);
  return [String(time), String(level).toUpperCase().padEnd(5), textOf(msg), ...pairs].join(" ");
}

function formatValue(v: unknown): string {
  const s = typeof v === "string" ? v : jsonOf(v);
  return s !== undefined && /^[^\s"=]+$/.test(s) ? s : JSON.stringify(s);
}

/** pino's msg is a string; anything else prints as JSON, and no message as nothing. */
function textOf(msg: unknown): string {
  if (typeof msg === "string") return msg;
  return msg === undefined || msg === null ? "" : (jsonOf(msg) ?? "");
}

/** JSON.stringify as it behaves: undefined (not a string) for undefined, functions and symbols. */
function jsonOf(v: unknown): string | undefined {
  return JSON.stringify(v);
}
