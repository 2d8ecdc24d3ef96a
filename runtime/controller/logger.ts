// A small structured logger: one line per entry, logfmt for people or JSON (CRDGEN_LOG_FORMAT=json) for machines.

export type LogFields = Record<string, unknown>;

export interface Logger {
  debug(message: string, fields?: LogFields): void;
  info(message: string, fields?: LogFields): void;
  warn(message: string, fields?: LogFields): void;
  error(message: string, fields?: LogFields): void;
  /** A logger that adds these fields to every entry. */
  child(fields: LogFields): Logger;
}

type Level = "debug" | "info" | "warn" | "error";
const order: Record<Level, number> = { debug: 0, info: 1, warn: 2, error: 3 };

export interface LoggerOptions {
  level?: Level;
  format?: "text" | "json";
  write?: (line: string) => void;
}

export function newLogger(options: LoggerOptions = {}, bound: LogFields = {}): Logger {
  const level = options.level ?? ((process.env["CRDGEN_LOG_LEVEL"] as Level | undefined) ?? "info");
  const format = options.format ?? (process.env["CRDGEN_LOG_FORMAT"] === "json" ? "json" : "text");
  const write = options.write ?? ((line: string) => process.stderr.write(`${line}\n`));
  const emit = (at: Level, message: string, fields: LogFields = {}) => {
    if (order[at] < order[level]) return;
    const entry = { ...bound, ...fields };
    if (format === "json") return write(JSON.stringify({ time: new Date().toISOString(), level: at, msg: message, ...entry }, errorReplacer));
    const pairs = Object.entries(entry).map(([k, v]) => `${k}=${formatValue(v)}`);
    write([new Date().toISOString(), at.toUpperCase().padEnd(5), message, ...pairs].join(" "));
  };
  return {
    debug: (m, f) => emit("debug", m, f),
    info: (m, f) => emit("info", m, f),
    warn: (m, f) => emit("warn", m, f),
    error: (m, f) => emit("error", m, f),
    child: (fields) => newLogger(options, { ...bound, ...fields }),
  };
}

function formatValue(v: unknown): string {
  if (v instanceof Error) return JSON.stringify(v.message);
  const s = typeof v === "string" ? v : JSON.stringify(v);
  return s !== undefined && /^[^\s"=]+$/.test(s) ? s : JSON.stringify(s);
}

function errorReplacer(_key: string, value: unknown): unknown {
  return value instanceof Error ? { name: value.name, message: value.message } : value;
}
