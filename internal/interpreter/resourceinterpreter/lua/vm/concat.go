package vm

import (
	"strings"

	glua "github.com/yuin/gopher-lua"
	"github.com/yuin/gopher-lua/ast"
)

// The .. operator. gopher-lua joins the operands of a chain a .. b .. c in
// one instruction, with no check: 30 operands naming one 8 MiB string
// allocated 240 MiB at once, 200 (the register limit) naming a 64 MiB one
// would be 12.8 GB, and the allocation budget cannot look inside an
// instruction. So scripts are compiled with every chain turned into a call
// of concatOperator, which sizes the result and charges it to the budget
// before building it, like string.format and table.concat.

// concatFunction is the global concatOperator is reached by: not an
// identifier, so no script can name it in its text.
const concatFunction = "(concat)"

// rewriteConcat turns every .. chain of stmts into a call of concatFunction.
func rewriteConcat(stmts []ast.Stmt) {
	for _, s := range stmts {
		concatStmt(s)
	}
}

func concatStmt(s ast.Stmt) {
	switch s := s.(type) {
	case *ast.AssignStmt:
		concatExprs(s.Lhs)
		concatExprs(s.Rhs)
	case *ast.LocalAssignStmt:
		concatExprs(s.Exprs)
	case *ast.FuncCallStmt:
		s.Expr = concatExpr(s.Expr)
	case *ast.DoBlockStmt:
		rewriteConcat(s.Stmts)
	case *ast.WhileStmt:
		s.Condition = concatExpr(s.Condition)
		rewriteConcat(s.Stmts)
	case *ast.RepeatStmt:
		s.Condition = concatExpr(s.Condition)
		rewriteConcat(s.Stmts)
	case *ast.IfStmt:
		s.Condition = concatExpr(s.Condition)
		rewriteConcat(s.Then)
		rewriteConcat(s.Else)
	case *ast.NumberForStmt:
		s.Init, s.Limit = concatExpr(s.Init), concatExpr(s.Limit)
		if s.Step != nil {
			s.Step = concatExpr(s.Step)
		}
		rewriteConcat(s.Stmts)
	case *ast.GenericForStmt:
		concatExprs(s.Exprs)
		rewriteConcat(s.Stmts)
	case *ast.FuncDefStmt:
		if s.Name != nil {
			s.Name.Func = concatExpr(s.Name.Func)
			s.Name.Receiver = concatExpr(s.Name.Receiver)
		}
		rewriteConcat(s.Func.Stmts)
	case *ast.ReturnStmt:
		concatExprs(s.Exprs)
	}
}

func concatExprs(es []ast.Expr) {
	for i, e := range es {
		es[i] = concatExpr(e)
	}
}

func concatExpr(e ast.Expr) ast.Expr {
	switch e := e.(type) {
	case *ast.StringConcatOpExpr:
		// a .. b .. c parses as a .. (b .. c): one call for the chain,
		// as one instruction joined it. A parenthesised left operand,
		// (a .. b) .. c, stays a call of its own.
		var args []ast.Expr
		var cur ast.Expr = e
		for {
			c, ok := cur.(*ast.StringConcatOpExpr)
			if !ok {
				break
			}
			args = append(args, concatExpr(c.Lhs))
			cur = c.Rhs
		}
		last := concatExpr(cur)
		// The last operand gives one value, not all of a call's results.
		switch l := last.(type) {
		case *ast.FuncCallExpr:
			l.AdjustRet = true
		case *ast.Comma3Expr:
			l.AdjustRet = true
		}
		fn := &ast.IdentExpr{Value: concatFunction}
		fn.SetLine(e.Line())
		fn.SetLastLine(e.LastLine())
		call := &ast.FuncCallExpr{Func: fn, Args: append(args, last)}
		call.SetLine(e.Line())
		call.SetLastLine(e.LastLine())
		return call
	case *ast.AttrGetExpr:
		e.Object, e.Key = concatExpr(e.Object), concatExpr(e.Key)
	case *ast.TableExpr:
		for _, f := range e.Fields {
			if f.Key != nil {
				f.Key = concatExpr(f.Key)
			}
			f.Value = concatExpr(f.Value)
		}
	case *ast.FuncCallExpr:
		if e.Func != nil {
			e.Func = concatExpr(e.Func)
		}
		if e.Receiver != nil {
			e.Receiver = concatExpr(e.Receiver)
		}
		concatExprs(e.Args)
	case *ast.LogicalOpExpr:
		e.Lhs, e.Rhs = concatExpr(e.Lhs), concatExpr(e.Rhs)
	case *ast.RelationalOpExpr:
		e.Lhs, e.Rhs = concatExpr(e.Lhs), concatExpr(e.Rhs)
	case *ast.ArithmeticOpExpr:
		e.Lhs, e.Rhs = concatExpr(e.Lhs), concatExpr(e.Rhs)
	case *ast.UnaryMinusOpExpr:
		e.Expr = concatExpr(e.Expr)
	case *ast.UnaryNotOpExpr:
		e.Expr = concatExpr(e.Expr)
	case *ast.UnaryLenOpExpr:
		e.Expr = concatExpr(e.Expr)
	case *ast.FunctionExpr:
		rewriteConcat(e.Stmts)
	}
	return e
}

// concatOperator joins its arguments as the .. operator does, right to
// left: runs of strings and numbers at once, __concat metamethods pairwise;
// each result is charged to the budget before it is built.
func concatOperator(L *glua.LState) int {
	top := L.GetTop()
	if top == 0 {
		return 0
	}
	rhs := L.Get(top)
	for i := top - 1; i >= 1; {
		lhs := L.Get(i)
		if glua.LVCanConvToString(lhs) && glua.LVCanConvToString(rhs) {
			first := i
			for first > 1 && glua.LVCanConvToString(L.Get(first-1)) {
				first--
			}
			size := int64(len(glua.LVAsString(rhs)))
			for k := first; k <= i; k++ {
				size += int64(len(glua.LVAsString(L.Get(k))))
			}
			reserve(L, "the .. operator", size)
			var b strings.Builder
			b.Grow(int(size))
			for k := first; k <= i; k++ {
				b.WriteString(glua.LVAsString(L.Get(k)))
			}
			b.WriteString(glua.LVAsString(rhs))
			rhs = glua.LString(b.String())
			i = first - 1
			continue
		}
		mm := L.GetMetaField(lhs, "__concat")
		if mm == glua.LNil {
			mm = L.GetMetaField(rhs, "__concat")
		}
		if mm.Type() != glua.LTFunction {
			L.RaiseError("cannot perform concat operation between %v and %v", lhs.Type().String(), rhs.Type().String())
		}
		L.Push(mm)
		L.Push(lhs)
		L.Push(rhs)
		L.Call(2, 1)
		rhs = L.Get(-1)
		L.Pop(1)
		i--
	}
	L.Push(rhs)
	return 1
}
