package vm

import (
	"context"
	"fmt"
	"strings"
	"testing"

	glua "github.com/yuin/gopher-lua"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/propel-mc/propel/internal/interpreter/resourceinterpreter/lua/convert"
	"github.com/propel-mc/propel/internal/interpreter/resourceinterpreter/lua/kube"
	configv1alpha1 "github.com/propel-mc/propel/pkg/apis/config/v1alpha1"
)

// The VM is tested as the operations layer uses it: states with a
// conversion state and the kube module; two entry functions are enough.

const ric = "my-ric"

var ctx = context.Background()

type testVM = VM[*convert.State]

func newVM(t testing.TB, opts Options) *testVM {
	t.Helper()
	memo := kube.NewMemo()
	vm := New(opts, func(L *glua.LState) (*convert.State, error) {
		st := convert.NewState(L)
		RegisterModule(L, kube.ModuleName, kube.Module(L, st, memo, kube.Options{}))
		return st, nil
	})
	t.Cleanup(vm.Close)
	return vm
}

// reflectStatus runs ReflectStatus(obj) -> table, as JSON.
func reflectStatus(vm *testVM, ctx context.Context, s Script, obj *unstructured.Unstructured) (*runtime.RawExtension, error) {
	var out *runtime.RawExtension
	err := vm.Run(ctx, &Call[*convert.State]{
		Script: s, Op: configv1alpha1.InterpreterOperationInterpretStatus, Entry: "ReflectStatus", NRet: 1,
		Args: func(L *glua.LState, st *convert.State) (int, error) {
			lv, err := st.Object(obj)
			L.Push(lv)
			return 1, err
		},
		Results: func(_ *glua.LState, st *convert.State, rets []glua.LValue) error {
			t, ok := rets[0].(*glua.LTable)
			if !ok {
				return fmt.Errorf("expect the returned replica type is table but got %s", rets[0].Type().String())
			}
			var err error
			out, err = st.DecodeRaw(t)
			return err
		},
	})
	return out, err
}

// interpretHealth runs InterpretHealth(obj) -> boolean.
func interpretHealth(vm *testVM, ctx context.Context, s Script, obj *unstructured.Unstructured) (bool, error) {
	var healthy bool
	err := vm.Run(ctx, &Call[*convert.State]{
		Script: s, Op: configv1alpha1.InterpreterOperationInterpretHealth, Entry: "InterpretHealth", NRet: 1,
		Args: func(L *glua.LState, st *convert.State) (int, error) {
			lv, err := st.Object(obj)
			L.Push(lv)
			return 1, err
		},
		Results: func(_ *glua.LState, _ *convert.State, rets []glua.LValue) error {
			b, ok := rets[0].(glua.LBool)
			if !ok {
				return fmt.Errorf("expect the returned health type is boolean but got %s", rets[0].Type().String())
			}
			healthy = bool(b)
			return nil
		},
	})
	return healthy, err
}

// obj decodes a JSON object the way objects come from the API server.
func obj(t testing.TB, js string) *unstructured.Unstructured {
	t.Helper()
	u := &unstructured.Unstructured{}
	if err := u.UnmarshalJSON([]byte(js)); err != nil {
		t.Fatalf("decode %s: %v", js, err)
	}
	return u
}

// eval runs a Lua expression-producing script through ReflectStatus and
// returns the JSON of the table it returns: `return <expr>`.
func eval(t testing.TB, vm *testVM, body string) (string, error) {
	t.Helper()
	s := NewScript(ric, "function ReflectStatus(obj)\n"+body+"\nend")
	raw, err := reflectStatus(vm, context.Background(), s, obj(t, `{"kind":"X"}`))
	if err != nil {
		return "", err
	}
	return string(raw.Raw), nil
}

// mustEval is eval that fails the test on error.
func mustEval(t testing.TB, vm *testVM, body string) string {
	t.Helper()
	out, err := eval(t, vm, body)
	if err != nil {
		t.Fatalf("%s: %v", body, err)
	}
	return out
}

func wantErr(t testing.TB, err error, parts ...string) {
	t.Helper()
	if err == nil {
		t.Fatalf("no error, want one containing %q", parts)
	}
	for _, p := range parts {
		if !strings.Contains(err.Error(), p) {
			t.Errorf("error %q does not contain %q", err, p)
		}
	}
}
