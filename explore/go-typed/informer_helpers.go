package main

import (
	"go/ast"
	"go/types"
	"sort"
	"strings"
)

const cachePath = "k8s.io/client-go/tools/cache"

// findInformerHelpers: the module's functions that make an informer with client-go (NewSharedIndexInformer(lw, obj,
// ...) and the like) of an object they are given as a parameter (`NewFakeInformerFor(&cdiv1.DataVolume{})`). Each call
// names its kind by the type of what it passes; when every call of such a helper does, the informer is made per call
// (its calls are in InformerKinds, the helper's own constructor call in PerCallInformers).
func (a *analysis) findInformerHelpers() {
	type helper struct {
		param int
		inner string
	}
	helpers := map[*types.Func]helper{}
	for fn, fd := range a.decls {
		if fd.Body == nil || fn.Type().(*types.Signature).Results().Len() == 0 {
			continue
		}
		info := a.infos[fn.Pkg()]
		params := paramsOf(info, fd)
		ast.Inspect(fd.Body, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok || len(call.Args) < 2 {
				return true
			}
			callee := staticCallee(info, call)
			if callee == nil || callee.Pkg() == nil || !isPackage(callee.Pkg().Path(), cachePath) ||
				!strings.HasPrefix(callee.Name(), "New") || !strings.Contains(callee.Name(), "Informer") {
				return true
			}
			if id, ok := ast.Unparen(call.Args[1]).(*ast.Ident); ok {
				if p, isParam := params[info.Uses[id]]; isParam {
					helpers[fn] = helper{param: p, inner: a.span(call)}
				}
			}
			return true
		})
	}
	if len(helpers) == 0 {
		return
	}
	named := map[*types.Func]int{}
	calls := map[*types.Func]int{}
	a.eachCall(nil, func(info *types.Info, call *ast.CallExpr) {
		callee := staticCallee(info, call)
		h, isHelper := helpers[callee]
		if !isHelper || h.param >= len(call.Args) {
			return
		}
		calls[callee]++
		if kind := objectKind(info.TypeOf(call.Args[h.param])); kind != "" {
			a.facts.InformerKinds[a.span(call)] = kind
			named[callee]++
		}
	})
	for fn, h := range helpers {
		if calls[fn] > 0 && named[fn] == calls[fn] {
			a.facts.PerCallInformers = append(a.facts.PerCallInformers, h.inner)
		}
	}
	sort.Strings(a.facts.PerCallInformers)
}

func isPackage(path, want string) bool {
	return path == want || strings.HasSuffix(path, "/vendor/"+want)
}
