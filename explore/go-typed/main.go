// Command explore-go-types loads the Go module around a folder with Go's own type checker and prints, as JSON, what
// explore's linker takes from types instead of names: which values are workqueues (their type implements client-go's
// workqueue interface, or holds one and the handler its workers call), which calls make one, which methods an
// interface call can run, and which functions are logging, tracing, metrics or key helpers.
//
// Only the module's own packages are type-checked from source; their dependencies come from export data (compiled
// once into the Go build cache), and no SSA is built: a large operator loads in seconds once that cache is warm.
//
//	explore-go-types <folder>
package main

import (
	"encoding/json"
	"fmt"
	"go/ast"
	"go/constant"
	"go/token"
	"go/types"
	"os"
	"path/filepath"
	"runtime/pprof"
	"sort"
	"strings"
	"time"

	"golang.org/x/tools/go/packages"
)

// Facts is the JSON printed. Places are absolute paths with 1-based line and column (bytes): a function is where its
// `func` keyword is, a call is its start and end (`file:line:col-line:col`).
type Facts struct {
	Module   string `json:"module"`
	Dir      string `json:"dir"`
	Packages int    `json:"packages"`
	// The first type errors, if any: the facts are still printed, for what could be checked.
	Errors []string `json:"errors"`
	// Named types of the module whose values are workqueues (their method set implements client-go's interface).
	QueueTypes []TypeRef `json:"queueTypes"`
	// Types of the module holding a workqueue and the handler their workers hand items to (any name).
	Wrappers []Wrapper `json:"wrappers"`
	// Calls that make a queue: client-go's constructors, and the module's functions that build and return one.
	QueueCalls []string `json:"queueCalls"`
	// Functions of the module that build and return a queue: what they call is the queue's own making.
	Constructors []string `json:"constructors"`
	// Interface method calls in the module, with the module's methods that implement them.
	Dispatch map[string][]string `json:"dispatch"`
	// Functions of the module that only report (their results or first parameter are a logger's, tracer's or
	// metric's type) or split keys (string in, two strings out): never the work on an item.
	Helpers map[string]string `json:"helpers"`
	// Calls that make an informer (or a type of the module holding informers) from a GroupVersionResource whose
	// resource is a constant: the kind, from the API package's type of that plural.
	InformerKinds map[string]string `json:"informerKinds"`
	// AddEventHandler calls in a method of the same name that hand on the method's own handler parameter: the
	// registration is where that method is called, not here.
	Forwarded []string `json:"forwarded"`
	// Calls a type switch or type assertion on a parameter runs only for some kinds of object, or never for some
	// (narrowing.go).
	Narrowed map[string]Narrowing `json:"narrowed"`
	// Informer constructor calls in a helper making the informer of the object its callers pass: each call of the
	// helper is the informer (its kind in InformerKinds), not this one call (informer_helpers.go).
	PerCallInformers []string `json:"perCallInformers"`
	// controller-runtime's source.Channel calls: the kinds of the objects that come out of the channel (channels.go).
	ChannelKinds map[string][]string `json:"channelKinds"`
}

type TypeRef struct {
	Dir  string `json:"dir"`
	Name string `json:"name"`
}

type Wrapper struct {
	TypeRef
	QueueField   string `json:"queueField"`
	HandlerField string `json:"handlerField"`
}

const workqueuePath = "k8s.io/client-go/util/workqueue"

// Packages whose types mark a function as reporting on the work, not doing it.
var observability = []string{
	"github.com/sirupsen/logrus", "go.uber.org/zap", "github.com/go-logr/logr", "log/slog", "k8s.io/klog",
	"go.opentelemetry.io/otel", "github.com/opentracing/opentracing-go", "github.com/prometheus/client_golang",
	"go.opencensus.io", "log",
}

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: explore-go-types <folder>")
		os.Exit(2)
	}
	if path := os.Getenv("EXPLORE_GO_TYPES_CPUPROFILE"); path != "" {
		if f, err := os.Create(path); err == nil {
			_ = pprof.StartCPUProfile(f)
			defer pprof.StopCPUProfile()
		}
	}
	facts, err := load(os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	enc := json.NewEncoder(os.Stdout)
	if err := enc.Encode(facts); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

type analysis struct {
	fset     *token.FileSet
	pkgs     []*packages.Package
	own      map[*types.Package]bool
	wq       *types.Package
	decls    map[*types.Func]*ast.FuncDecl
	named    []*types.TypeName
	ifaceFor map[string]*types.Interface
	infos    map[*types.Package]*types.Info
	inits    map[types.Object]ast.Expr // the expression a variable is declared with
	facts    *Facts
}

func load(dir string) (*Facts, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	cfg := &packages.Config{
		Mode: packages.NeedName | packages.NeedFiles | packages.NeedSyntax | packages.NeedTypes |
			packages.NeedTypesInfo | packages.NeedModule | packages.NeedImports,
		Dir: abs,
	}
	step := timer()
	pkgs, err := packages.Load(cfg, "./...")
	if err != nil {
		return nil, err
	}
	if len(pkgs) == 0 {
		return nil, fmt.Errorf("no Go package found in %s", abs)
	}
	a := &analysis{
		fset:     token.NewFileSet(),
		pkgs:     pkgs,
		own:      map[*types.Package]bool{},
		decls:    map[*types.Func]*ast.FuncDecl{},
		ifaceFor: map[string]*types.Interface{},
		infos:    map[*types.Package]*types.Info{},
		inits:    map[types.Object]ast.Expr{},
		facts: &Facts{Dispatch: map[string][]string{}, Helpers: map[string]string{}, Errors: []string{},
			InformerKinds: map[string]string{}, Forwarded: []string{}, Narrowed: map[string]Narrowing{},
			PerCallInformers: []string{}, ChannelKinds: map[string][]string{}},
	}
	for _, p := range pkgs {
		if p.Module != nil && a.facts.Module == "" {
			a.facts.Module, a.facts.Dir = p.Module.Path, p.Module.Dir
		}
		skip := false
		for _, e := range p.Errors {
			switch {
			case e.Kind == packages.ListError && !missingModule(e.Msg):
				// One package of the module go cannot build (C files without cgo, say): the others are still typed.
				skip = true
			case e.Kind != packages.TypeError || strings.Contains(e.Msg, "could not import"):
				// Without its dependencies a module's types are guesses: explore reads it by syntax instead.
				return nil, fmt.Errorf("the module's packages or dependencies could not be loaded: %s", e.Error())
			}
			if len(a.facts.Errors) < 5 {
				a.facts.Errors = append(a.facts.Errors, e.Error())
			}
		}
		if skip || p.Types == nil || p.TypesInfo == nil {
			continue
		}
		a.own[p.Types] = true
		a.infos[p.Types] = p.TypesInfo
		a.fset = p.Fset
		a.facts.Packages++
	}
	if a.facts.Module == "" {
		return nil, fmt.Errorf("no Go module holds %s (no go.mod in it or above it)", abs)
	}
	if a.facts.Packages == 0 {
		return nil, fmt.Errorf("no package of %s could be type-checked: %s", abs, strings.Join(a.facts.Errors, "; "))
	}
	step("load")
	a.findWorkqueue()
	a.index()
	a.findQueueTypes()
	step("queue types")
	a.findWrappers()
	step("wrappers")
	a.findQueueCalls()
	step("queue calls")
	a.findDispatch()
	step("dispatch")
	a.findHelpers()
	a.findInformerKinds()
	a.findInformerHelpers()
	a.findChannelKinds()
	step("informer kinds")
	a.findNarrowing()
	step("narrowing")
	return a.facts, nil
}

// missingModule: the error says a module the package needs is not there (not downloaded, not in go.mod or go.sum).
func missingModule(msg string) bool {
	for _, s := range []string{"module", "go.sum", "go.mod", "could not import", "cannot find package"} {
		if strings.Contains(msg, s) {
			return true
		}
	}
	return false
}

// findWorkqueue finds client-go's workqueue package among everything the module imports.
func (a *analysis) findWorkqueue() {
	seen := map[*types.Package]bool{}
	var visit func(p *types.Package)
	visit = func(p *types.Package) {
		if seen[p] || a.wq != nil {
			return
		}
		seen[p] = true
		if p.Path() == workqueuePath || strings.HasSuffix(p.Path(), "/vendor/"+workqueuePath) {
			a.wq = p
			return
		}
		for _, i := range p.Imports() {
			visit(i)
		}
	}
	for _, p := range a.pkgs {
		if p.Types != nil {
			visit(p.Types)
		}
	}
}

// index records every function declaration and named type of the module.
func (a *analysis) index() {
	for _, p := range a.pkgs {
		if p.TypesInfo == nil {
			continue
		}
		for _, f := range p.Syntax {
			for _, d := range f.Decls {
				if fd, ok := d.(*ast.FuncDecl); ok {
					if fn, ok := p.TypesInfo.Defs[fd.Name].(*types.Func); ok {
						a.decls[fn] = fd
					}
				}
			}
		}
		scope := p.Types.Scope()
		for _, name := range scope.Names() {
			if tn, ok := scope.Lookup(name).(*types.TypeName); ok && !tn.IsAlias() {
				a.named = append(a.named, tn)
			}
		}
	}
}

// queueInterface is client-go's TypedInterface[elem] (Interface before generics), or nil.
func (a *analysis) queueInterface(elem types.Type) *types.Interface {
	if a.wq == nil {
		return nil
	}
	// Type parameters print alike (T) but are not identical: only concrete items are cached by name.
	_, generic := elem.(*types.TypeParam)
	key := types.TypeString(elem, nil)
	if i, ok := a.ifaceFor[key]; ok && !generic {
		return i
	}
	var iface *types.Interface
	if obj, ok := a.wq.Scope().Lookup("TypedInterface").(*types.TypeName); ok {
		if inst, err := types.Instantiate(nil, obj.Type(), []types.Type{elem}, true); err == nil {
			iface, _ = inst.Underlying().(*types.Interface)
		}
	} else if obj, ok := a.wq.Scope().Lookup("Interface").(*types.TypeName); ok {
		iface, _ = obj.Type().Underlying().(*types.Interface)
	}
	a.ifaceFor[key] = iface
	return iface
}

// isQueue: the type (or a pointer to it) implements the workqueue interface for the item its Get returns.
func (a *analysis) isQueue(t types.Type) bool {
	for _, candidate := range []types.Type{t, types.NewPointer(t)} {
		if _, isPtr := t.(*types.Pointer); isPtr && candidate != t {
			continue
		}
		obj, _, _ := types.LookupFieldOrMethod(candidate, true, nil, "Get")
		fn, ok := obj.(*types.Func)
		if !ok {
			continue
		}
		sig := fn.Type().(*types.Signature)
		if sig.Results().Len() != 2 {
			continue
		}
		if iface := a.queueInterface(sig.Results().At(0).Type()); iface != nil && types.Implements(candidate, iface) {
			return true
		}
	}
	return false
}

func (a *analysis) ref(tn *types.TypeName) TypeRef {
	return TypeRef{Dir: filepath.Dir(a.fset.Position(tn.Pos()).Filename), Name: tn.Name()}
}

func (a *analysis) findQueueTypes() {
	for _, tn := range a.named {
		if _, isIface := tn.Type().Underlying().(*types.Interface); !isIface && a.isQueue(tn.Type()) {
			a.facts.QueueTypes = append(a.facts.QueueTypes, a.ref(tn))
		}
	}
}

// findWrappers: structs of the module that are no queue themselves but hold one, and a function-typed field that a
// method calls after taking an item off that queue (Agones' WorkerQueue and its SyncHandler), set from a parameter.
func (a *analysis) findWrappers() {
	for _, tn := range a.named {
		st, ok := tn.Type().Underlying().(*types.Struct)
		if !ok || a.isQueue(tn.Type()) {
			continue
		}
		var queueField string
		funcFields := map[string]bool{}
		for i := 0; i < st.NumFields(); i++ {
			f := st.Field(i)
			if _, isFunc := f.Type().Underlying().(*types.Signature); isFunc {
				funcFields[f.Name()] = true
			} else if queueField == "" && a.isQueue(f.Type()) {
				queueField = f.Name()
			}
		}
		if queueField == "" || len(funcFields) == 0 {
			continue
		}
		if handler := a.handlerCalledAfterGet(tn, queueField, funcFields); handler != "" && a.setFromParameter(tn, handler) {
			a.facts.Wrappers = append(a.facts.Wrappers, Wrapper{TypeRef: a.ref(tn), QueueField: queueField, HandlerField: handler})
		}
	}
}

// handlerCalledAfterGet: the function field a method of tn calls in a method that also calls Get on the queue field.
func (a *analysis) handlerCalledAfterGet(tn *types.TypeName, queueField string, funcFields map[string]bool) string {
	for fn, fd := range a.decls {
		recv := fn.Type().(*types.Signature).Recv()
		if recv == nil || fd.Body == nil || !sameNamed(recv.Type(), tn) {
			continue
		}
		gets, handler := false, ""
		ast.Inspect(fd.Body, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			sel, ok := call.Fun.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			if inner, ok := sel.X.(*ast.SelectorExpr); ok && inner.Sel.Name == queueField && sel.Sel.Name == "Get" {
				gets = true
			} else if funcFields[sel.Sel.Name] {
				handler = sel.Sel.Name
			}
			return true
		})
		if gets && handler != "" {
			return handler
		}
	}
	return ""
}

// setFromParameter: some function of the module sets the handler field from one of its parameters (the handler is
// chosen by whoever builds the wrapper, not by the type itself).
func (a *analysis) setFromParameter(tn *types.TypeName, field string) bool {
	found := false
	for _, p := range a.pkgs {
		if p.TypesInfo == nil {
			continue
		}
		for _, f := range p.Syntax {
			ast.Inspect(f, func(n ast.Node) bool {
				if found {
					return false
				}
				fd, ok := n.(*ast.FuncDecl)
				if !ok || fd.Body == nil {
					return true
				}
				params := paramsOf(p.TypesInfo, fd)
				ast.Inspect(fd.Body, func(m ast.Node) bool {
					switch m := m.(type) {
					case *ast.KeyValueExpr: // &T{field: param}
						if k, ok := m.Key.(*ast.Ident); ok && k.Name == field && fromParam(p.TypesInfo, m.Value, params) {
							found = true
						}
					case *ast.AssignStmt: // q.field = param, or a closure calling it (an option: WithReconciler(f))
						for i, lhs := range m.Lhs {
							sel, ok := lhs.(*ast.SelectorExpr)
							if ok && sel.Sel.Name == field && i < len(m.Rhs) && fromParam(p.TypesInfo, m.Rhs[i], params) {
								found = true
							}
						}
					}
					return true
				})
				return false
			})
		}
	}
	return found
}

// fromParam: the value is one of the parameters, or a function literal that calls one.
func fromParam(info *types.Info, v ast.Expr, params paramSet) bool {
	if id, ok := v.(*ast.Ident); ok {
		return params.has(info.Uses[id])
	}
	lit, ok := v.(*ast.FuncLit)
	if !ok {
		return false
	}
	calls := false
	ast.Inspect(lit.Body, func(n ast.Node) bool {
		if call, ok := n.(*ast.CallExpr); ok {
			if id, ok := call.Fun.(*ast.Ident); ok && params.has(info.Uses[id]) {
				calls = true
			}
		}
		return !calls
	})
	return calls
}

func sameNamed(t types.Type, tn *types.TypeName) bool {
	if p, ok := t.(*types.Pointer); ok {
		t = p.Elem()
	}
	n, ok := t.(*types.Named)
	return ok && n.Obj() == tn
}

// makesQueue: the type of a result a constructor returns is a queue, or a wrapper of the module.
func (a *analysis) makesQueue(sig *types.Signature) bool {
	if sig.Results().Len() == 0 {
		return false
	}
	t := sig.Results().At(0).Type()
	if a.isQueue(t) {
		return true
	}
	for _, w := range a.facts.Wrappers {
		if p, ok := t.(*types.Pointer); ok {
			t = p.Elem()
		}
		if n, ok := t.(*types.Named); ok && n.Obj().Name() == w.Name && a.ref(n.Obj()) == w.TypeRef {
			return true
		}
	}
	return false
}

// findQueueCalls: client-go's constructors, and the module's free functions returning a queue they build (directly,
// with a composite literal or through another constructor); calls inside a constructor are its own making.
func (a *analysis) findQueueCalls() {
	constructors := map[*types.Func]bool{}
	calls := map[*types.Func][]*types.Func{}
	literal := map[*types.Func]bool{}
	for fn, fd := range a.decls {
		sig := fn.Type().(*types.Signature)
		if sig.Recv() != nil || fd.Body == nil || !a.makesQueue(sig) {
			continue
		}
		info := a.infos[fn.Pkg()]
		ast.Inspect(fd.Body, func(n ast.Node) bool {
			switch e := n.(type) {
			case *ast.CompositeLit:
				literal[fn] = true
			case *ast.CallExpr:
				if callee := staticCallee(info, e); callee != nil {
					calls[fn] = append(calls[fn], callee)
				}
			}
			return true
		})
	}
	isLibraryCtor := func(f *types.Func) bool {
		sig := f.Type().(*types.Signature)
		// client-go's workqueue, or any library's New* returning a queue (controller-runtime's priorityqueue.New).
		fromLibrary := f.Pkg() == a.wq || f.Pkg() != nil && !a.own[f.Pkg()]
		return fromLibrary && strings.HasPrefix(f.Name(), "New") && sig.Recv() == nil && a.makesQueue(sig)
	}
	for changed := true; changed; {
		changed = false
		for fn := range calls {
			if constructors[fn] {
				continue
			}
			for _, c := range calls[fn] {
				if isLibraryCtor(c) || constructors[c] || literal[fn] && a.own[c.Pkg()] {
					constructors[fn], changed = true, true
					break
				}
			}
			if !constructors[fn] && literal[fn] {
				constructors[fn], changed = true, true
			}
		}
	}
	// A constructor nothing in the loaded packages calls or refers to is a root (a library's exported NewController,
	// or one whose caller lies outside the folder explored): the queue it makes is made there.
	referenced := a.referencedFuncs()
	for fn := range constructors {
		if !referenced[fn] {
			delete(constructors, fn)
		}
	}
	for fn := range constructors {
		a.facts.Constructors = append(a.facts.Constructors, a.pos(a.decls[fn].Pos()))
	}
	a.eachCall(func(fn *types.Func) bool { return constructors[fn] }, func(info *types.Info, call *ast.CallExpr) {
		if callee := staticCallee(info, call); callee != nil && (isLibraryCtor(callee) || constructors[callee]) {
			a.facts.QueueCalls = append(a.facts.QueueCalls, a.span(call))
		}
	})
	sort.Strings(a.facts.QueueCalls)
	sort.Strings(a.facts.Constructors)
}

// referencedFuncs: the module's functions that some package of the module names (calls, or takes as a value).
func (a *analysis) referencedFuncs() map[*types.Func]bool {
	out := map[*types.Func]bool{}
	for _, p := range a.pkgs {
		if p.TypesInfo == nil {
			continue
		}
		for _, obj := range p.TypesInfo.Uses {
			if fn, ok := obj.(*types.Func); ok && a.own[fn.Pkg()] {
				out[fn.Origin()] = true
			}
		}
	}
	return out
}

// findDispatch: each call of an interface method, with the methods of the module's types that implement it. The
// answer depends only on the interface and the method's name, so it is computed once per pair, and only the types
// that have a method of that name are tested.
func (a *analysis) findDispatch() {
	byMethod := a.typesByMethod()
	type target struct {
		iface  *types.Interface
		method string
	}
	methods := map[target][]string{}
	a.eachCall(nil, func(info *types.Info, call *ast.CallExpr) {
		sel, ok := call.Fun.(*ast.SelectorExpr)
		if !ok {
			return
		}
		s := info.Selections[sel]
		if s == nil || s.Kind() != types.MethodVal {
			return
		}
		iface, ok := s.Recv().Underlying().(*types.Interface)
		if !ok {
			return
		}
		key := target{iface, sel.Sel.Name}
		found, known := methods[key]
		if !known {
			found = a.methodsImplementing(iface, sel.Sel.Name, byMethod[sel.Sel.Name])
			methods[key] = found
		}
		if len(found) > 0 {
			a.facts.Dispatch[a.span(call)] = found
		}
	})
}

// eachCall hands visit every call in the bodies of the module's functions (but those skip names), with the types of
// the call's package.
func (a *analysis) eachCall(skip func(*types.Func) bool, visit func(info *types.Info, call *ast.CallExpr)) {
	a.eachNode(skip, func(info *types.Info, n ast.Node) {
		if call, ok := n.(*ast.CallExpr); ok {
			visit(info, call)
		}
	})
}

// eachNode hands visit every node in the bodies of the module's functions (but those skip names), with the types of
// the node's package.
func (a *analysis) eachNode(skip func(*types.Func) bool, visit func(info *types.Info, n ast.Node)) {
	for fn, fd := range a.decls {
		if fd.Body == nil || skip != nil && skip(fn) {
			continue
		}
		info := a.infos[fn.Pkg()]
		ast.Inspect(fd.Body, func(n ast.Node) bool {
			visit(info, n)
			return true
		})
	}
}

// typesByMethod: the module's concrete named types by the names of the methods of their pointer's method set
// (which holds the value's methods and promoted ones too).
func (a *analysis) typesByMethod() map[string][]*types.TypeName {
	out := map[string][]*types.TypeName{}
	for _, tn := range a.named {
		if _, isIface := tn.Type().Underlying().(*types.Interface); isIface {
			continue
		}
		ms := types.NewMethodSet(types.NewPointer(tn.Type()))
		for i := 0; i < ms.Len(); i++ {
			name := ms.At(i).Obj().Name()
			out[name] = append(out[name], tn)
		}
	}
	return out
}

// methodsImplementing: the declarations of method on those of candidates whose value or pointer implements iface.
func (a *analysis) methodsImplementing(iface *types.Interface, method string, candidates []*types.TypeName) []string {
	var out []string
	if iface.NumMethods() == 0 {
		return nil
	}
	for _, tn := range candidates {
		if !types.Implements(tn.Type(), iface) && !types.Implements(types.NewPointer(tn.Type()), iface) {
			continue
		}
		obj, _, _ := types.LookupFieldOrMethod(types.NewPointer(tn.Type()), true, tn.Pkg(), method)
		if fn, ok := obj.(*types.Func); ok {
			if fd := a.decls[fn]; fd != nil {
				out = append(out, a.pos(fd.Pos()))
			}
		}
	}
	sort.Strings(out)
	return out
}

// findHelpers: functions whose results, or first parameter (after a context), are a logger's, tracer's or metric's;
// and key splitters (one string in, two strings and maybe an error out).
func (a *analysis) findHelpers() {
	for fn, fd := range a.decls {
		sig := fn.Type().(*types.Signature)
		if kind := helperKind(sig); kind != "" {
			a.facts.Helpers[a.pos(fd.Pos())] = kind
		}
	}
}

func helperKind(sig *types.Signature) string {
	for i := 0; i < sig.Results().Len(); i++ {
		if isObservability(sig.Results().At(i).Type()) {
			return "report"
		}
	}
	params := sig.Params()
	first := 0
	if params.Len() > 0 && types.TypeString(params.At(0).Type(), nil) == "context.Context" {
		first = 1
	}
	if params.Len() > first && isObservability(params.At(first).Type()) {
		return "report"
	}
	res := sig.Results()
	isString := func(t types.Type) bool { return types.Identical(t.Underlying(), types.Typ[types.String]) }
	if params.Len() == 1 && isString(params.At(0).Type()) && res.Len() >= 2 && isString(res.At(0).Type()) &&
		isString(res.At(1).Type()) {
		return "key"
	}
	return ""
}

func isObservability(t types.Type) bool {
	for {
		switch u := t.(type) {
		case *types.Pointer:
			t = u.Elem()
			continue
		case *types.Slice:
			t = u.Elem()
			continue
		}
		break
	}
	n, ok := t.(*types.Named)
	if !ok || n.Obj().Pkg() == nil {
		return false
	}
	path := n.Obj().Pkg().Path()
	for _, p := range observability {
		if path == p || strings.HasPrefix(path, p+"/") {
			return true
		}
	}
	return false
}

func staticCallee(info *types.Info, call *ast.CallExpr) *types.Func {
	fun := ast.Unparen(call.Fun)
	if ix, ok := fun.(*ast.IndexExpr); ok {
		fun = ix.X
	} else if ix, ok := fun.(*ast.IndexListExpr); ok {
		fun = ix.X
	}
	var id *ast.Ident
	switch f := fun.(type) {
	case *ast.Ident:
		id = f
	case *ast.SelectorExpr:
		if s := info.Selections[f]; s != nil {
			if _, isIface := s.Recv().Underlying().(*types.Interface); isIface {
				return nil
			}
		}
		id = f.Sel
	default:
		return nil
	}
	fn, _ := info.Uses[id].(*types.Func)
	if fn != nil {
		fn = fn.Origin()
	}
	return fn
}

// timer prints each step's time to stderr when EXPLORE_GO_TYPES_TIMING is set.
func timer() func(string) {
	last := time.Now()
	return func(name string) {
		if os.Getenv("EXPLORE_GO_TYPES_TIMING") != "" {
			fmt.Fprintf(os.Stderr, "%s: %s\n", name, time.Since(last).Round(time.Millisecond))
		}
		last = time.Now()
	}
}

func (a *analysis) pos(p token.Pos) string {
	at := a.fset.Position(p)
	return fmt.Sprintf("%s:%d:%d", at.Filename, at.Line, at.Column)
}

func (a *analysis) span(n ast.Node) string {
	end := a.fset.Position(n.End())
	return fmt.Sprintf("%s-%d:%d", a.pos(n.Pos()), end.Line, end.Column)
}

const schemaPath = "k8s.io/apimachinery/pkg/runtime/schema"

// registerMethods are client-go's ways to add a handler to an informer.
var registerMethods = map[string]bool{
	"AddEventHandler": true, "AddEventHandlerWithResyncPeriod": true, "AddEventHandlerWithOptions": true,
}

// findInformerKinds: calls given a GroupVersionResource whose resource is a constant, returning something that takes
// event handlers (a method AddEventHandler or Informer); and registrations that forward a wrapper's own handler.
func (a *analysis) findInformerKinds() {
	for _, p := range a.pkgs {
		if p.TypesInfo == nil || !a.own[p.Types] {
			continue
		}
		for _, f := range p.Syntax {
			a.indexInits(p.TypesInfo, f)
		}
	}
	for fn, fd := range a.decls {
		if fd.Body == nil {
			continue
		}
		info := a.infos[fn.Pkg()]
		params := paramSet{}
		if registerMethods[fn.Name()] && fn.Type().(*types.Signature).Recv() != nil {
			params = paramsOf(info, fd)
		}
		ast.Inspect(fd.Body, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			if sel, ok := call.Fun.(*ast.SelectorExpr); ok && registerMethods[sel.Sel.Name] && len(call.Args) > 0 {
				if id, ok := ast.Unparen(call.Args[0]).(*ast.Ident); ok && params.has(info.Uses[id]) {
					a.facts.Forwarded = append(a.facts.Forwarded, a.span(call))
				}
			}
			if kind := a.kindOfInformer(fn.Pkg(), info, call, 0); kind != "" {
				a.facts.InformerKinds[a.span(call)] = kind
			}
			return true
		})
	}
	sort.Strings(a.facts.Forwarded)
}

// kindOfInformer: the kind of an informer made by e from a GroupVersionResource (factory.ForResource(gvr),
// NewForResource(f, gvr)), of its .Informer(), or of a variable declared with one of those.
func (a *analysis) kindOfInformer(pkg *types.Package, info *types.Info, e ast.Expr, depth int) string {
	e = ast.Unparen(e)
	if depth > 3 || !takesHandlers(info.TypeOf(e)) {
		return ""
	}
	switch x := e.(type) {
	case *ast.Ident:
		if obj := info.Uses[x]; obj != nil && a.inits[obj] != nil && a.infos[obj.Pkg()] != nil {
			return a.kindOfInformer(obj.Pkg(), a.infos[obj.Pkg()], a.inits[obj], depth+1)
		}
	case *ast.CallExpr:
		if sel, ok := x.Fun.(*ast.SelectorExpr); ok && sel.Sel.Name == "Informer" && len(x.Args) == 0 {
			return a.kindOfInformer(pkg, info, sel.X, depth+1)
		}
		for _, arg := range x.Args {
			if kind := a.kindOfResource(pkg, info, arg, 0); kind != "" {
				return kind
			}
		}
	}
	return ""
}

// indexInits records the expression each variable of a file is declared with (var x = e, x := e).
func (a *analysis) indexInits(info *types.Info, f *ast.File) {
	ast.Inspect(f, func(n ast.Node) bool {
		switch d := n.(type) {
		case *ast.ValueSpec:
			if len(d.Values) == len(d.Names) {
				for i, name := range d.Names {
					a.inits[info.Defs[name]] = d.Values[i]
				}
			}
		case *ast.AssignStmt:
			if d.Tok != token.DEFINE {
				break
			}
			// x, err := f(): x is declared with f's first result (a tuple's first is what takesHandlers reads).
			for i, lhs := range d.Lhs {
				if id, ok := lhs.(*ast.Ident); ok && info.Defs[id] != nil && (len(d.Lhs) == len(d.Rhs) || i == 0) {
					a.inits[info.Defs[id]] = d.Rhs[min(i, len(d.Rhs)-1)]
				}
			}
		}
		return true
	})
}

// takesHandlers: a value of t (or what it points to) has a method AddEventHandler or Informer; of a call's results,
// the first (informer, err := New...(gvr)).
func takesHandlers(t types.Type) bool {
	if tuple, ok := t.(*types.Tuple); ok && tuple.Len() > 0 {
		t = tuple.At(0).Type()
	}
	if t == nil {
		return false
	}
	for _, name := range []string{"AddEventHandler", "Informer"} {
		if obj, _, _ := types.LookupFieldOrMethod(t, true, nil, name); obj != nil {
			if _, isFunc := obj.(*types.Func); isFunc {
				return true
			}
		}
	}
	return false
}

// kindOfResource: the kind a GroupVersionResource expression names: gv.WithResource(constant), a
// schema.GroupVersionResource{Resource: constant} literal, or a variable declared with one of those.
func (a *analysis) kindOfResource(pkg *types.Package, info *types.Info, e ast.Expr, depth int) string {
	e = ast.Unparen(e)
	if depth > 3 || !isSchemaType(info.TypeOf(e), "GroupVersionResource") {
		return ""
	}
	switch x := e.(type) {
	case *ast.Ident, *ast.SelectorExpr:
		id, _ := x.(*ast.Ident)
		if sel, ok := x.(*ast.SelectorExpr); ok {
			id = sel.Sel
		}
		if init := a.inits[info.Uses[id]]; init != nil {
			if obj := info.Uses[id]; obj != nil && a.infos[obj.Pkg()] != nil {
				return a.kindOfResource(obj.Pkg(), a.infos[obj.Pkg()], init, depth+1)
			}
		}
	case *ast.CallExpr:
		sel, ok := x.Fun.(*ast.SelectorExpr)
		if !ok || sel.Sel.Name != "WithResource" || len(x.Args) != 1 {
			return ""
		}
		resource := constString(info, x.Args[0])
		// The kinds are the types of the package the GroupVersion comes from (v1.SchemeGroupVersion).
		gv := sel.X
		if s, ok := gv.(*ast.SelectorExpr); ok {
			gv = s.Sel
		}
		if id, ok := gv.(*ast.Ident); ok && info.Uses[id] != nil && info.Uses[id].Pkg() != nil {
			return kindIn([]*types.Package{info.Uses[id].Pkg()}, resource)
		}
		return kindIn(append([]*types.Package{pkg}, pkg.Imports()...), resource)
	case *ast.CompositeLit:
		for _, elt := range x.Elts {
			if kv, ok := elt.(*ast.KeyValueExpr); ok {
				if k, ok := kv.Key.(*ast.Ident); ok && k.Name == "Resource" {
					return kindIn(append([]*types.Package{pkg}, pkg.Imports()...), constString(info, kv.Value))
				}
			}
		}
	}
	return ""
}

func isSchemaType(t types.Type, name string) bool {
	n, ok := t.(*types.Named)
	if !ok || n.Obj().Pkg() == nil || n.Obj().Name() != name {
		return false
	}
	path := n.Obj().Pkg().Path()
	return path == schemaPath || strings.HasSuffix(path, "/vendor/"+schemaPath)
}

func constString(info *types.Info, e ast.Expr) string {
	if tv, ok := info.Types[e]; ok && tv.Value != nil && tv.Value.Kind() == constant.String {
		return constant.StringVal(tv.Value)
	}
	return ""
}

// kindIn: the Kubernetes object type of pkgs (a struct embedding TypeMeta) whose plural, lower-cased, is resource
// (widgets → Widget, policies → Policy, ingresses → Ingress, endpoints → Endpoints).
func kindIn(pkgs []*types.Package, resource string) string {
	if resource == "" {
		return ""
	}
	for _, p := range pkgs {
		for _, name := range p.Scope().Names() {
			tn, ok := p.Scope().Lookup(name).(*types.TypeName)
			if !ok || !tn.Exported() || objectKind(tn.Type()) == "" {
				continue
			}
			lower := strings.ToLower(name)
			plurals := []string{lower, lower + "s", lower + "es"}
			if strings.HasSuffix(lower, "y") {
				plurals = append(plurals, strings.TrimSuffix(lower, "y")+"ies")
			}
			if contains(plurals, resource) {
				return name
			}
		}
	}
	return ""
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// paramSet: a function declaration's named parameters, each with its position among them.
type paramSet map[types.Object]int

func paramsOf(info *types.Info, fd *ast.FuncDecl) paramSet {
	out := paramSet{}
	i := 0
	for _, fl := range fd.Type.Params.List {
		for _, name := range fl.Names {
			out[info.Defs[name]] = i
			i++
		}
	}
	return out
}

func (ps paramSet) has(o types.Object) bool {
	_, ok := ps[o]
	return ok
}
