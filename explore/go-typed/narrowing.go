package main

import (
	"go/ast"
	"go/types"
	"sort"
)

// Narrowing: the kinds of object a call runs for, when a type switch (or a comma-ok type assertion) on a parameter of
// its function decides it. `switch v := obj.(type) { case *appsv1.StatefulSet: rr.onStatefulSet(v); return }`: the
// call in the case runs only for StatefulSets, and calls after the switch never do.
type Narrowing struct {
	Only   []string `json:"only,omitempty"`
	Except []string `json:"except,omitempty"`
}

// findNarrowing records, for each call of the module's functions that a type test on a parameter guards, the kinds
// (Kubernetes object types: structs embedding TypeMeta) it runs for or never runs for.
func (a *analysis) findNarrowing() {
	for fn, fd := range a.decls {
		if fd.Body == nil {
			continue
		}
		info := a.infos[fn.Pkg()]
		params := paramsOf(info, fd)
		if len(params) == 0 {
			continue
		}
		n := narrower{a: a, info: info, params: params, only: map[*ast.CallExpr][]string{},
			except: map[*ast.CallExpr][]string{}}
		n.block(fd.Body.List)
		for call, kinds := range n.only {
			a.facts.Narrowed[a.span(call)] = Narrowing{Only: sorted(kinds)}
		}
		for call, kinds := range n.except {
			if _, narrowed := n.only[call]; !narrowed {
				a.facts.Narrowed[a.span(call)] = Narrowing{Except: sorted(kinds)}
			}
		}
	}
}

type narrower struct {
	a      *analysis
	info   *types.Info
	params paramSet
	only   map[*ast.CallExpr][]string
	except map[*ast.CallExpr][]string
}

// block reads a statement list: a type test that returns for some kinds excludes them from the statements after it.
func (n *narrower) block(stmts []ast.Stmt) {
	for i, s := range stmts {
		var exits []string
		switch st := s.(type) {
		case *ast.TypeSwitchStmt:
			exits = n.typeSwitch(st)
		case *ast.IfStmt:
			exits = n.ifAssert(st)
		}
		for _, rest := range stmts[i+1:] {
			n.mark(rest, n.except, exits)
		}
		n.nested(s)
	}
}

// nested reads the blocks inside a statement (bodies of if, for, switch cases, ...), each a statement list.
func (n *narrower) nested(s ast.Stmt) {
	if b, ok := s.(*ast.BlockStmt); ok {
		n.block(b.List)
		return
	}
	ast.Inspect(s, func(node ast.Node) bool {
		switch b := node.(type) {
		case *ast.BlockStmt:
			if ast.Node(b) != s {
				n.block(b.List)
				return false
			}
		case *ast.CaseClause:
			n.block(b.Body)
			return false
		case *ast.FuncLit:
			return false
		}
		return true
	})
}

// typeSwitch marks each case's calls with its kinds, the default's with the other cases' kinds as excluded; it
// returns the kinds whose case always returns.
func (n *narrower) typeSwitch(st *ast.TypeSwitchStmt) []string {
	var subject ast.Expr
	switch as := st.Assign.(type) {
	case *ast.ExprStmt:
		subject = as.X
	case *ast.AssignStmt:
		if len(as.Rhs) == 1 {
			subject = as.Rhs[0]
		}
	}
	ta, ok := subject.(*ast.TypeAssertExpr)
	if !ok || !n.isParam(ta.X) {
		return nil
	}
	var cased, exits []string
	var fallback *ast.CaseClause
	for _, s := range st.Body.List {
		cc := s.(*ast.CaseClause)
		if cc.List == nil {
			fallback = cc
			continue
		}
		kinds := n.kindsOf(cc.List)
		if kinds == nil {
			continue
		}
		cased = append(cased, kinds...)
		for _, b := range cc.Body {
			n.mark(b, n.only, kinds)
		}
		if terminates(cc.Body) {
			exits = append(exits, kinds...)
		}
	}
	if fallback != nil {
		for _, b := range fallback.Body {
			n.mark(b, n.except, cased)
		}
	}
	return exits
}

// ifAssert: `if v, ok := obj.(*T); ok { ... }` runs its body for T only; it returns T when that body always returns.
func (n *narrower) ifAssert(st *ast.IfStmt) []string {
	as, ok := st.Init.(*ast.AssignStmt)
	if !ok || len(as.Lhs) != 2 || len(as.Rhs) != 1 {
		return nil
	}
	ta, ok := as.Rhs[0].(*ast.TypeAssertExpr)
	okName, isIdent := as.Lhs[1].(*ast.Ident)
	cond, condIdent := st.Cond.(*ast.Ident)
	if !ok || ta.Type == nil || !n.isParam(ta.X) || !isIdent || !condIdent || cond.Name != okName.Name {
		return nil
	}
	kinds := n.kindsOf([]ast.Expr{ta.Type})
	if kinds == nil {
		return nil
	}
	for _, b := range st.Body.List {
		n.mark(b, n.only, kinds)
	}
	if terminates(st.Body.List) {
		return kinds
	}
	return nil
}

func (n *narrower) isParam(e ast.Expr) bool {
	id, ok := ast.Unparen(e).(*ast.Ident)
	return ok && n.params.has(n.info.Uses[id])
}

// kindsOf: the kinds the case's types name, or nil when one of them is not a Kubernetes object (a tombstone, nil).
func (n *narrower) kindsOf(list []ast.Expr) []string {
	var kinds []string
	for _, e := range list {
		kind := objectKind(n.info.TypeOf(e))
		if kind == "" {
			return nil
		}
		kinds = append(kinds, kind)
	}
	return kinds
}

// mark adds kinds to every call in s (closures written there too: they run with the same object).
func (n *narrower) mark(s ast.Node, into map[*ast.CallExpr][]string, kinds []string) {
	if len(kinds) == 0 {
		return
	}
	ast.Inspect(s, func(node ast.Node) bool {
		if call, ok := node.(*ast.CallExpr); ok {
			into[call] = append(into[call], kinds...)
		}
		return true
	})
}

// objectKind: the name of a Kubernetes object type (a struct embedding TypeMeta), of it or a pointer to it.
func objectKind(t types.Type) string {
	if p, ok := t.(*types.Pointer); ok {
		t = p.Elem()
	}
	named, ok := t.(*types.Named)
	if !ok {
		return ""
	}
	st, ok := named.Underlying().(*types.Struct)
	if !ok {
		return ""
	}
	for i := 0; i < st.NumFields(); i++ {
		if f := st.Field(i); f.Embedded() && f.Name() == "TypeMeta" {
			return named.Obj().Name()
		}
	}
	return ""
}

// terminates: the statement list ends in a return (or panic), so what follows it is not reached from there.
func terminates(stmts []ast.Stmt) bool {
	if len(stmts) == 0 {
		return false
	}
	switch last := stmts[len(stmts)-1].(type) {
	case *ast.ReturnStmt:
		return true
	case *ast.ExprStmt:
		if call, ok := last.X.(*ast.CallExpr); ok {
			if id, ok := call.Fun.(*ast.Ident); ok && id.Name == "panic" {
				return true
			}
		}
	}
	return false
}

func sorted(kinds []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, k := range kinds {
		if !seen[k] {
			seen[k] = true
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out
}
