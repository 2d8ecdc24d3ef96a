// The language-neutral facts the Go and TypeScript readers produce: functions, calls, types, and points-to constraints.
// The linker only sees these, so following a queue or a handler across files, packages and languages is one algorithm.

/** A place in the explored sources: a path relative to the explored root ("/"-separated) and a 1-based line. */
export interface Loc {
  file: string;
  line: number;
}

export type Lang = "go" | "ts";

/**
 * What an abstract value is, by the tag its encoding starts with: `f` a function (its fnId), `o` an instance of a named
 * type (typeKey), `l` an object or composite literal (litId), `c` a class (TypeScript, for `new`; typeKey), `m` a
 * package or namespace import (moduleKey), `q` a queue created at a call (callId), `i` an informer (or watch) created
 * at a call (callId), `s` a string (a TypeScript object literal's `kind: "..."`, which names the kind of a resource
 * descriptor), `k` the kind of a Go object written as `&pkg.Kind{}`, `b` a controller-runtime builder or controller
 * (BuilderFact id).
 */
export type ValueTag = "f" | "o" | "l" | "c" | "m" | "q" | "i" | "s" | "k" | "b";

/** An abstract value, encoded as `<tag>|<key>` so that sets of values stay sets of strings (cheap). */
export type Value = `${ValueTag}|${string}`;

/** The key of a value with the given tag (`pkg.T` of `o|pkg.T` for "o"), or undefined for a value of another tag. */
export function keyOf(v: Value, tag: ValueTag): string | undefined {
  return v[0] === tag ? v.slice(2) : undefined;
}

/** The keys of the values with the given tag, in order (`["f|a", "q|b", "f|c"]` with "f": `["a", "c"]`). */
export function keysOf(values: Iterable<Value>, tag: ValueTag): string[] {
  const keys: string[] = [];
  for (const v of values) if (v[0] === tag) keys.push(v.slice(2));
  return keys;
}

/**
 * Slots hold values. Naming: `<moduleKey>.<name>` a package-level name, `<typeKey>.<field>` a field or method of a
 * type, `<litId>.<prop>` a literal's property, `<fnId>#p<i>` a parameter, `<fnId>#ret` a result (`#ret<i>` the
 * i-th of several, from 1), `<fnId>#this` the receiver, `<fnId>$<name>` a local variable, `<fnId>~<n>` a temporary.
 * A string built any other way is no slot.
 */
export type Slot =
  | `${string}.${string}`
  | `${string}#p${number}`
  | `${string}#ret`
  | `${string}#ret${number}`
  | `${string}#this`
  | `${string}$${string}`
  | `${string}~${number}`;

export type Constraint =
  | { c: "alloc"; dst: Slot; v: Value }
  | { c: "copy"; dst: Slot; src: Slot }
  /** dst ⊇ v.field for every v in base */
  | { c: "load"; dst: Slot; base: Slot; field: string }
  /** v.field ⊇ src for every v in base */
  | { c: "store"; base: Slot; field: string; src: Slot }
  /** for every function in callee: its parameters ⊇ args, ret ⊇ its result, more[i] ⊇ its result i + 1 (Go) */
  | { c: "call"; callee: Slot; args: Slot[]; ret: Slot; more?: Slot[] }
  /** for every class in cls: ret ⊇ an instance, and its constructor is called with args */
  | { c: "new"; cls: Slot; args: Slot[]; ret: Slot };

/** The slot a constraint gives values to (a call's or `new`'s first result), or undefined for a store into fields. */
export function slotDefined(k: Constraint): Slot | undefined {
  return k.c === "alloc" || k.c === "copy" || k.c === "load" ? k.dst : k.c === "store" ? undefined : k.ret;
}

export interface FnFact {
  id: string;
  /** How the report names it: `(*Controller).processNextWorkItem`, `Controller.worker`, `func literal`, ... */
  name: string;
  loc: Loc;
  lang: Lang;
  /** The type whose method this is (typeKey), if any. */
  owner?: string;
  /** The function this one is written inside (closures). */
  parent?: string;
  /** The key of the keyed element / property this function literal is the value of (e.g. "WatchFunc", "reconcile"). */
  role?: string;
  /** Part of client-go, controller-runtime or a sibling library found in the tree: its plumbing is not an operator's flow. */
  library?: boolean;
  /** Number of parameters (slots `<id>#p0..`). */
  params: number;
  /** Parameter names, for following a key into a function it is passed to. */
  paramNames: string[];
  /** Line ranges of loops written directly in this function. */
  loops: [number, number][];
  /** Assignments by local name, to follow a queue item through type assertions and renames. */
  assigns: { lhs: string[]; rhsIdents: string[]; rhsCall?: string; line: number }[];
}

/** A function as a reader first meets it (no parameters, loops or assignments read yet); unset optional fields are left out. */
export function newFnFact(f: {
  id: string;
  name: string;
  loc: Loc;
  lang: Lang;
  owner?: string | undefined;
  parent?: string | undefined;
  role?: string | undefined;
  library?: boolean;
}): FnFact {
  return {
    id: f.id,
    name: f.name,
    loc: f.loc,
    lang: f.lang,
    params: 0,
    paramNames: [],
    loops: [],
    assigns: [],
    ...(f.owner ? { owner: f.owner } : {}),
    ...(f.parent ? { parent: f.parent } : {}),
    ...(f.role ? { role: f.role } : {}),
    ...(f.library ? { library: true } : {}),
  };
}

export interface CallFact {
  id: string;
  fn: string;
  loc: Loc;
  /** The called name: the last identifier of the callee (`Add` in `c.workqueue.Add`). */
  method: string;
  /** The callee as written, shortened to one line. */
  text: string;
  /** The receiver's slot for member calls (`c.workqueue` in `c.workqueue.Add(key)`). */
  recv?: Slot;
  /** The callee written as a member of a package or module (`workqueue.New`, `cache.NewSharedIndexInformer`): its import path. */
  qualifier?: string;
  callee: Slot;
  args: Slot[];
  ret: Slot;
  /** Identifiers used anywhere in the arguments. */
  argIdents: string[];
  /** The arguments as written, one line each. */
  argTexts: string[];
  /** `Key: value` / `key: value` pairs written in the arguments (value as written), and string literals passed. */
  keyed: Record<string, string>;
  strings: string[];
  /** The call sits inside a loop of its function. */
  inLoop: boolean;
  /** The call runs only on one branch (an `if` body, a `case`), not on its function's main path (Go reader). */
  conditional?: boolean;
  /** The callee is a local variable, a parameter or a field: the function is chosen at run time. */
  dynamic: boolean;
  /** The receiver is a parameter of an enclosing function (or a field path under one): `queue` in `queue.add(key)`. */
  recvParam?: { fn: string; index: number; path: string[] };
  /** The call's result is returned, awaited as a statement or dropped: the caller hands over to it. */
  tail: boolean;
  /** The call's result is tested (`if (!shard.begin(key))`): it answers a question about the item, it is no work. */
  condition?: boolean;
  /** Arguments written as a literal `nil` (Go), by index: a call that uses that parameter is not reached from here. */
  nilArgs?: number[];
  /**
   * The reader recognised an informer or a watch created here. `field`: the informer is a field's (`c.pInformer`), whose
   * declared type names the kind once every file's types are read (`type`: the struct, when the reader knew it).
   */
  informer?: { kind: string; via: string; field?: { name: string; type?: string } };
  /** TypeScript: a queue made here, known by its type (a library queue's factory or class, a queue class of the tree). */
  typedQueue?: string;
  /**
   * TypeScript: the receiver is an informer by its declared type (`pods: Informer<V1Pod>`), made where explore cannot
   * see: the kind its type argument names, and the declaration that types it.
   */
  typedInformer?: { kind: string; via: string; loc: Loc };
  /** The reader recognised a handler object passed here directly (client-go's NewInformer(lw, obj, resync, handlers)). */
  handlerArg?: number;
  /** A method of a controller-runtime builder or controller, if the receiver turns out to be one. */
  builderOp?: BuilderOp;
}

/**
 * `For`, `Owns`, `Watches`, `Watch`, `Named`, `Complete`, or `chain` (WithOptions, WithEventFilter, ...: returns the
 * builder) called on some receiver; the linker finds through points-to which builder (if any) the receiver holds, so a
 * builder kept in a variable, passed to helpers or extended in a loop is followed.
 */
export interface BuilderOp {
  op: "For" | "Owns" | "Watches" | "Watch" | "Named" | "Complete" | "chain";
  /** Where the method name is written (every call of a chain starts on the chain's first line). */
  loc: Loc;
  /** The watched object (its `k|` values name the kind): `&corev1.Secret{}`, a local, a parameter, a range variable. */
  object?: Slot;
  handler?: Slot;
  /** The handler as written, naming controller-runtime's own (`handler.EnqueueRequestForOwner`). */
  handlerName?: string;
  /** Complete(r) / Build(r): the reconciler, and what it wraps (reconcile.AsReconciler(client, r), reconcile.Func(f)). */
  reconcilers?: Slot[];
  /** What a wrapper of the explored tree around the reconciler was given: tells its inner Reconcile apart per caller. */
  reconcilerHints?: Slot[];
  name?: string;
}

export interface TypeFact {
  key: string;
  name: string;
  loc: Loc;
  methods: string[];
  /** The type holds a channel (Go) — one of the signs of a home-made queue. */
  hasChannel: boolean;
  /** TypeScript: the class is a queue by its type (it implements or wraps a library's queue, or has add and get()). */
  queueBy?: string;
  /** Field names declared on the type. */
  fields?: string[];
  /** Types whose fields and methods this one takes over: Go embedded structs, a TypeScript base class. */
  embeds?: string[];
  /** A field's declared type name, when it is a named type (`PodInformer` for `pInformer coreinformers.PodInformer`). */
  fieldTypes?: Record<string, string>;
}

/** controller-runtime's builder (`NewControllerManagedBy(mgr).For(..).Owns(..).Complete(r)`) or controller.New + Watch: the queue and workers live in the library. */
export interface BuilderFact {
  id: string;
  loc: Loc;
  fn: string;
  name?: string;
  sources: {
    via: "For" | "Owns" | "Watches" | "Watch";
    kind: string;
    loc: Loc;
    handler?: Slot;
    handlerName?: string;
  }[];
  /** Slots holding the reconciler (a type with a Reconcile method, or a function). */
  reconcilers: Slot[];
  /** What a wrapper of the explored tree around the reconciler was given (see BuilderOp). */
  reconcilerHints?: Slot[];
  /** The slot the builder (or controller) is returned in: the linker follows it to the BuilderOp calls made on it. */
  ret?: Slot;
}

/**
 * A framework's own binding of a callback to a kind, where the watch (and the queue, if any) live in the framework:
 * Pepr's `When(a.Pod).IsCreatedOrUpdated().Reconcile(fn)` (also Watch, Mutate, Validate, Finalize).
 */
export interface BindingFact {
  id: string;
  loc: Loc;
  fn: string;
  framework: string;
  /** Where the kind is named (`When(a.Pod)`); `loc` is where the action is. */
  watchLoc: Loc;
  /** Reconcile, Watch, Mutate, Validate or Finalize. */
  action: string;
  kind: string;
  /** add, update, delete for watches; create, update, delete for admission. */
  events: string[];
  /** The binding as written before the action (`When(a.ConfigMap).IsCreatedOrUpdated()`), on one line. */
  text: string;
  callback: Slot;
}

export interface Facts {
  fns: FnFact[];
  calls: CallFact[];
  types: TypeFact[];
  builders: BuilderFact[];
  bindings: BindingFact[];
  constraints: Constraint[];
  /** Files the parser could only partly read, or had to give up (too deeply nested for the call stack). */
  warnings: string[];
}

export function emptyFacts(): Facts {
  return { fns: [], calls: [], types: [], builders: [], bindings: [], constraints: [], warnings: [] };
}

export function mergeFacts(into: Facts, from: Facts): void {
  for (const f of from.fns) into.fns.push(f);
  for (const c of from.calls) into.calls.push(c);
  for (const t of from.types) into.types.push(t);
  for (const b of from.builders) into.builders.push(b);
  for (const b of from.bindings) into.bindings.push(b);
  for (const c of from.constraints) into.constraints.push(c);
  for (const w of from.warnings) into.warnings.push(w);
}

/** Turns a plural resource or informer accessor name into a kind: `Deployments` → `Deployment`, `Ingresses` → `Ingress`. */
export function singularKind(plural: string): string {
  if (/(ss|x|ch|sh)es$/.test(plural)) return plural.slice(0, -2);
  if (/ies$/.test(plural)) return `${plural.slice(0, -3)}y`;
  if (/s$/.test(plural) && !/ss$/.test(plural)) return plural.slice(0, -1);
  return plural;
}
