// Label selectors for listers: a parser for the Kubernetes string syntax (k8s.io/apimachinery labels.Parse) and
// matching, with apimachinery's semantics: requirements sorted by key, `x in ()` meaning the empty value, `==` kept
// as written, and `>` / `<` comparing 64-bit integers.

export type LabelSelectorOperator = "=" | "==" | "!=" | "in" | "notin" | "exists" | "!" | "gt" | "lt";

/** One clause of a selector, e.g. `env in (a,b)`. */
export interface LabelRequirement {
  readonly key: string;
  readonly operator: LabelSelectorOperator;
  /** Empty for exists / "!"; one value for =, ==, !=, gt, lt. */
  readonly values: readonly string[];
}

/** A parsed label selector: all requirements must hold (AND). */
export interface LabelSelector {
  readonly requirements: readonly LabelRequirement[];
  /** True when the labels satisfy every requirement; missing labels count as an empty set. */
  matches(labels: Readonly<Record<string, string>> | undefined): boolean;
  /** True for the selector that matches everything. */
  empty(): boolean;
  /** Canonical string form, accepted by parseLabelSelector and by the API server's labelSelector parameter. */
  toString(): string;
}

/** What listers accept: selector syntax, an equality map, or a parsed selector. */
export type LabelSelectorInput = string | Readonly<Record<string, string>> | LabelSelector;

/** The metav1.LabelSelector shape found in specs (`matchLabels` + `matchExpressions`). */
export interface LabelSelectorSpec {
  matchLabels?: Record<string, string>;
  matchExpressions?: Array<{ key: string; operator: string; values?: string[] }>;
}

// Same limits as apimachinery validation: qualified name keys, 63-character values.
const NAME_RE = /^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/;
const DNS_SUBDOMAIN_RE = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

function validateKey(key: string): void {
  const slash = key.indexOf("/");
  const prefix = slash >= 0 ? key.slice(0, slash) : undefined;
  const name = slash >= 0 ? key.slice(slash + 1) : key;
  const okName = name.length <= 63 && NAME_RE.test(name);
  const okPrefix = prefix === undefined || (prefix.length <= 253 && DNS_SUBDOMAIN_RE.test(prefix));
  if (!okName || !okPrefix) throw new Error(`invalid label key ${JSON.stringify(key)}`);
}

/** A base-10 64-bit integer as Go's strconv.ParseInt reads it (sign allowed), or undefined. */
function parseInt64(text: string): bigint | undefined {
  if (!/^[+-]?\d+$/.test(text)) return undefined;
  const n = BigInt(text);
  return n >= -(2n ** 63n) && n < 2n ** 63n ? n : undefined;
}

function validateValue(value: string): void {
  if (value !== "" && !(value.length <= 63 && NAME_RE.test(value))) {
    throw new Error(`invalid label value ${JSON.stringify(value)}`);
  }
}

class Requirement implements LabelRequirement {
  private readonly set: ReadonlySet<string>;
  /** The integer of gt / lt. */
  private readonly bound: bigint | undefined;
  // The checks of apimachinery's NewRequirement.
  constructor(
    readonly key: string,
    readonly operator: LabelSelectorOperator,
    readonly values: readonly string[],
  ) {
    validateKey(key);
    const comparison = operator === "gt" || operator === "lt";
    this.bound = comparison && values.length === 1 ? parseInt64(values[0]!) : undefined;
    const fail = (why: string) => {
      throw new Error(`label selector: key ${key}: ${why}`);
    };
    switch (operator) {
      case "in":
      case "notin":
        if (values.length === 0) fail(`"${operator}" needs at least one value`);
        break;
      case "=":
      case "==":
      case "!=":
        if (values.length !== 1) fail(`"${operator}" needs exactly one value`);
        break;
      case "exists":
      case "!":
        if (values.length !== 0) fail("exists and does-not-exist take no values");
        break;
      case "gt":
      case "lt":
        if (this.bound === undefined) fail(`"${operator === "gt" ? ">" : "<"}" needs one 64-bit integer value`);
        break;
    }
    if (!comparison) for (const v of values) validateValue(v);
    this.set = new Set(values);
  }

  matches(labels: Readonly<Record<string, string>> | undefined): boolean {
    const has = labels !== undefined && Object.prototype.hasOwnProperty.call(labels, this.key);
    const value = has ? labels[this.key] : undefined;
    switch (this.operator) {
      case "=":
      case "==":
      case "in":
        return has && this.set.has(value as string);
      case "!=":
      case "notin":
        // As in apimachinery: a missing label satisfies != and notin.
        return !has || !this.set.has(value as string);
      case "exists":
        return has;
      case "!":
        return !has;
      case "gt":
      case "lt": {
        // A label that is not a 64-bit integer matches neither.
        const n = has ? parseInt64(value as string) : undefined;
        if (n === undefined) return false;
        return this.operator === "gt" ? n > this.bound! : n < this.bound!;
      }
    }
  }

  toString(): string {
    switch (this.operator) {
      case "exists":
        return this.key;
      case "!":
        return `!${this.key}`;
      case "in":
      case "notin":
        return `${this.key} ${this.operator} (${[...this.values].sort().join(",")})`;
      case "gt":
        return `${this.key}>${this.values[0]}`;
      case "lt":
        return `${this.key}<${this.values[0]}`;
      default:
        return `${this.key}${this.operator}${this.values[0]}`;
    }
  }
}

class Selector implements LabelSelector {
  readonly requirements: readonly Requirement[];
  /** Sorted by key (stable), as apimachinery's selectors are: one string per set of requirements. */
  constructor(requirements: readonly Requirement[]) {
    this.requirements = [...requirements].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  }
  matches(labels: Readonly<Record<string, string>> | undefined): boolean {
    for (const r of this.requirements) if (!r.matches(labels)) return false;
    return true;
  }
  empty(): boolean {
    return this.requirements.length === 0;
  }
  toString(): string {
    return this.requirements.map((r) => r.toString()).join(",");
  }
}

type Token =
  | { kind: "id"; text: string; pos: number }
  | { kind: "op"; text: "!" | "=" | "==" | "!=" | "(" | ")" | "," | ">" | "<"; pos: number }
  | { kind: "end"; pos: number };

const SPECIAL = new Set(["!", "=", "(", ")", ",", ">", "<"]);
/** apimachinery's lexer skips these four only: any other character (a vertical tab, a no-break space) is a name's. */
const isSpace = (c: string | undefined) => c === " " || c === "\t" || c === "\r" || c === "\n";

function tokenize(s: string): Token[] {
  const out: Token[] = [];
  let i = 0;
  while (i < s.length) {
    const c = s[i] as string;
    if (isSpace(c)) {
      i++;
    } else if (c === "!" || c === "=") {
      if (s[i + 1] === "=") {
        out.push({ kind: "op", text: c === "!" ? "!=" : "==", pos: i });
        i += 2;
      } else {
        out.push({ kind: "op", text: c, pos: i });
        i++;
      }
    } else if (SPECIAL.has(c)) {
      out.push({ kind: "op", text: c as "(" | ")" | "," | ">" | "<", pos: i });
      i++;
    } else {
      const start = i;
      while (i < s.length && !SPECIAL.has(s[i] as string) && !isSpace(s[i])) i++;
      out.push({ kind: "id", text: s.slice(start, i), pos: start });
    }
  }
  out.push({ kind: "end", pos: s.length });
  return out;
}

/**
 * Parses Kubernetes label selector syntax: `a=b`, `a==b`, `a!=b`, `a in (x,y)`, `a notin (x)`, `a`, `!a`, `a>1`,
 * `a<1`, joined by commas (AND). The empty string matches everything. Throws on invalid syntax, keys or values.
 */
export function parseLabelSelector(s: string): LabelSelector {
  const tokens = tokenize(s);
  let p = 0;
  const peek = (): Token => tokens[p] as Token;
  const next = (): Token => tokens[p++] as Token;
  const fail = (msg: string, t: Token): never => {
    throw new Error(`invalid label selector ${JSON.stringify(s)}: ${msg} at position ${t.pos}`);
  };
  const isOp = (t: Token, text: string): boolean => t.kind === "op" && t.text === text;

  const reqs: Requirement[] = [];
  if (peek().kind === "end") return new Selector(reqs);
  for (;;) {
    let t = next();
    if (isOp(t, "!")) {
      const key = next();
      if (key.kind !== "id") fail("expected a label key after '!'", key);
      reqs.push(new Requirement((key as { text: string }).text, "!", []));
    } else if (t.kind === "id") {
      const key = t.text;
      const op = peek();
      if (op.kind === "end" || isOp(op, ",")) {
        reqs.push(new Requirement(key, "exists", []));
      } else if (isOp(op, "=") || isOp(op, "==") || isOp(op, "!=")) {
        p++;
        const v = peek();
        let value = "";
        if (v.kind === "id") {
          value = v.text;
          p++;
        } else if (!(v.kind === "end" || isOp(v, ","))) {
          fail("expected a value", v);
        }
        reqs.push(new Requirement(key, (op as { text: "=" | "==" | "!=" }).text, [value]));
      } else if (isOp(op, ">") || isOp(op, "<")) {
        p++;
        const v = next();
        if (v.kind !== "id") fail("expected an integer", v);
        reqs.push(new Requirement(key, isOp(op, ">") ? "gt" : "lt", [(v as { text: string }).text]));
      } else if (op.kind === "id" && (op.text === "in" || op.text === "notin")) {
        p++;
        if (!isOp(next(), "(")) fail(`expected '(' after ${op.text}`, tokens[p - 1] as Token);
        // Comma-separated slots, an empty one being the empty value ("()" too); a set, as apimachinery's parser reads it.
        const values = new Set<string>();
        for (;;) {
          const v = peek();
          let value = "";
          if (v.kind === "id") {
            value = v.text;
            p++;
          }
          values.add(value);
          const sep = next();
          if (isOp(sep, ")")) break;
          if (!isOp(sep, ",")) fail("expected ',' or ')'", sep);
        }
        reqs.push(new Requirement(key, op.text, [...values].sort()));
      } else {
        fail("expected an operator", op);
      }
    } else {
      fail("expected a label key", t);
    }
    t = next();
    if (t.kind === "end") break;
    if (!isOp(t, ",")) fail("expected ','", t);
  }
  return new Selector(reqs);
}

/** A selector requiring every label of set (SelectorFromSet). */
export function labelSelectorFromSet(set: Readonly<Record<string, string>>): LabelSelector {
  return new Selector(
    Object.keys(set)
      .sort()
      .map((k) => new Requirement(k, "=", [set[k] as string])),
  );
}

/** Converts a metav1.LabelSelector (`matchLabels`, `matchExpressions`) as found in specs (LabelSelectorAsSelector). */
export function labelSelectorFromSpec(spec: LabelSelectorSpec): LabelSelector {
  const reqs: Requirement[] = [];
  for (const [k, v] of Object.entries(spec.matchLabels ?? {})) reqs.push(new Requirement(k, "=", [v]));
  for (const e of spec.matchExpressions ?? []) {
    const ops: Record<string, LabelSelectorOperator> = {
      In: "in",
      NotIn: "notin",
      Exists: "exists",
      DoesNotExist: "!",
    };
    const op = Object.hasOwn(ops, e.operator) ? ops[e.operator] : undefined;
    if (!op) throw new Error(`invalid label selector operator ${JSON.stringify(e.operator)}`);
    reqs.push(new Requirement(e.key, op, e.values ?? []));
  }
  return new Selector(reqs);
}

/** Normalises what listers accept into a LabelSelector. */
export function toLabelSelector(input: LabelSelectorInput | undefined): LabelSelector {
  if (input === undefined) return new Selector([]);
  if (typeof input === "string") return parseLabelSelector(input);
  if (input instanceof Selector) return input;
  const maybe = input as Partial<LabelSelector>;
  if (typeof maybe.matches === "function" && Array.isArray(maybe.requirements)) return input as LabelSelector;
  return labelSelectorFromSet(input as Readonly<Record<string, string>>);
}
