// Identifier and file-name helpers shared by the emitters.

/** MySQLCluster -> mySQLCluster: the camelCase prefix of generated functions and constants. */
export function camelCase(kind: string): string {
  return kind[0]!.toLowerCase() + kind.slice(1);
}

/** The file stem of a kind's generated modules: MySQLCluster -> mysqlcluster. */
export function fileStem(kind: string): string {
  return kind.toLowerCase();
}

/** example.com + v1 -> exampleComV1, a namespace name for the root index. */
export function groupVersionIdentifier(group: string, version: string): string {
  const words = `${group} ${version}`.split(/[^A-Za-z0-9]+/).filter(Boolean);
  const id = words.map((w, i) => (i === 0 ? w[0]!.toLowerCase() : w[0]!.toUpperCase()) + w.slice(1)).join("");
  return /^[0-9]/.test(id) ? `_${id}` : id;
}

/** A relative ES module specifier from one generated file's folder to another module (always starting with ./ or ../). */
export function moduleSpecifier(
  fromDir: string,
  toFileWithoutExt: string,
  relative: (from: string, to: string) => string,
): string {
  const spec = relative(fromDir, toFileWithoutExt).split("\\").join("/");
  return `${spec.startsWith(".") ? spec : `./${spec}`}.js`;
}

/**
 * How a module names a JavaScript global it uses (Promise, Object, Array, Record) when one of its own names may be the
 * same (a kind called Promise): the global itself, or through globalThis when `taken` holds its name.
 */
export function globalName(name: string, taken: ReadonlySet<string>): string {
  return taken.has(name) ? `globalThis.${name}` : name;
}
