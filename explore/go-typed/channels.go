package main

import (
	"go/ast"
	"go/types"
	"sort"
)

const sourcePath = "sigs.k8s.io/controller-runtime/pkg/source"

// findChannelKinds: controller-runtime's source.Channel(ch, handler) calls, with the kinds of the objects that come
// out of ch: the channel's type argument when it is an object type (chan event.TypedGenericEvent[*v1.Widget]), else
// (an untyped event.GenericEvent) the types of the Object fields the module's own sends on that channel carry
// (r.ch <- event.GenericEvent{Object: widget}).
func (a *analysis) findChannelKinds() {
	sent := map[types.Object][]string{}
	a.eachNode(nil, func(info *types.Info, n ast.Node) {
		if s, ok := n.(*ast.SendStmt); ok {
			ch, kind := channelVar(info, s.Chan), sentKind(info, s.Value)
			if ch != nil && kind != "" && !contains(sent[ch], kind) {
				sent[ch] = append(sent[ch], kind)
			}
		}
	})
	a.eachCall(nil, func(info *types.Info, call *ast.CallExpr) {
		fn := staticCallee(info, call)
		if fn == nil || fn.Name() != "Channel" || fn.Pkg() == nil || fn.Pkg().Path() != sourcePath || len(call.Args) == 0 {
			return
		}
		kinds := []string{}
		if kind := objectKind(eventObjectType(info.TypeOf(call.Args[0]))); kind != "" {
			kinds = append(kinds, kind)
		} else if ch := channelVar(info, call.Args[0]); ch != nil {
			kinds = append(kinds, sent[ch]...)
		}
		if len(kinds) > 0 {
			sort.Strings(kinds)
			a.facts.ChannelKinds[a.span(call)] = kinds
		}
	})
}

// channelVar: the variable or struct field a channel expression names (`r.ch`, `ch`), or nil.
func channelVar(info *types.Info, e ast.Expr) types.Object {
	switch x := ast.Unparen(e).(type) {
	case *ast.SelectorExpr:
		if v, ok := info.Uses[x.Sel].(*types.Var); ok {
			return v
		}
	case *ast.Ident:
		if v, ok := info.Uses[x].(*types.Var); ok {
			return v
		}
	}
	return nil
}

// eventObjectType: the object type argument of a channel of event.TypedGenericEvent[T] (T), or nil.
func eventObjectType(t types.Type) types.Type {
	if t == nil {
		return nil
	}
	ch, ok := t.Underlying().(*types.Chan)
	if !ok {
		return nil
	}
	named, ok := types.Unalias(ch.Elem()).(*types.Named)
	if !ok || named.TypeArgs().Len() != 1 {
		return nil
	}
	return named.TypeArgs().At(0)
}

// sentKind: the kind of the Object field of an event literal sent on a channel (event.GenericEvent{Object: w}).
func sentKind(info *types.Info, e ast.Expr) string {
	lit, ok := ast.Unparen(e).(*ast.CompositeLit)
	if !ok {
		return ""
	}
	for _, el := range lit.Elts {
		if kv, ok := el.(*ast.KeyValueExpr); ok {
			if key, ok := kv.Key.(*ast.Ident); ok && key.Name == "Object" {
				return objectKind(info.TypeOf(kv.Value))
			}
		}
	}
	return ""
}
