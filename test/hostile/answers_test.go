package hostile

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/propel-mc/propel/internal/interpreter/resourceinterpreter"
	"github.com/propel-mc/propel/internal/interpreter/resourceinterpreter/customization"
	"github.com/propel-mc/propel/internal/interpreter/resourceinterpreter/layer"
	"github.com/propel-mc/propel/internal/interpreter/resourceinterpreter/native"
	configv1alpha1 "github.com/propel-mc/propel/pkg/apis/config/v1alpha1"
)

// answerAllocLimit bounds what one refused answer may allocate: far above
// what the refusal costs, far below the gigabytes the unbounded
// validation took.
const answerAllocLimit = 64 << 20

// luaFacade loads c as the controller does (the customization layer over
// the native fallback, behind the facade).
func luaFacade(c configv1alpha1.ResourceInterpreterCustomization) *resourceinterpreter.Interpreter {
	l := customization.New(customization.Options{})
	l.LoadConfig([]configv1alpha1.ResourceInterpreterCustomization{c})
	return resourceinterpreter.New(l, native.New())
}

// bounded runs probe within probeDeadline and answerAllocLimit.
func bounded(t *testing.T, probe func()) {
	t.Helper()
	start := time.Now()
	var alloc uint64
	within(t, func() { alloc = heapGrowth(probe) })
	t.Logf("took %v, allocated %d KiB", time.Since(start), alloc>>10)
	if alloc > answerAllocLimit {
		t.Fatalf("allocated %d MiB", alloc>>20)
	}
}

// 10,000 empty dependency entries (29 KiB, under every size limit) used to
// cost one error message each, concatenated: 72 s and 63.6 GB allocated.
func TestWebhookManyBadDependencies(t *testing.T) {
	answer := `,"dependencies":[` + strings.TrimSuffix(strings.Repeat("{},", 10_000), ",") + `]`
	ri := hostileWebhook(t, ok(answer))
	var err error
	bounded(t, func() { _, err = ri.GetDependencies(context.Background(), workload()) })
	wantErr(t, err, `failed calling webhook "hostile/hostile.example.io"`, "invalid dependencies: 10000 references: an answer may name at most 512 dependencies")
	if !errors.Is(err, layer.ErrTooManyDependencies) {
		t.Fatal("error does not wrap layer.ErrTooManyDependencies")
	}
	// Under the cap, the bad entries cost a bounded message.
	answer = `,"dependencies":[` + strings.TrimSuffix(strings.Repeat("{},", layer.MaxDependencies), ",") + `]`
	ri = hostileWebhook(t, ok(answer))
	bounded(t, func() { _, err = ri.GetDependencies(context.Background(), workload()) })
	wantErr(t, err, "dependencies[0].apiVersion: Required value", " and 1526 more")
}

// 5,000 {kind="ConfigMap"} from a Lua GetDependencies used to cost 12 s
// and 8 GB after the script had returned, outside every Lua budget.
func TestLuaManyBadDependencies(t *testing.T) {
	c := customizationOf("hostile-deps", "")
	c.Spec.Customizations = configv1alpha1.CustomizationRules{DependencyInterpretation: &configv1alpha1.DependencyInterpretation{
		LuaScript: `function GetDependencies(o) local t = {} for i = 1, 5000 do t[i] = {kind = "ConfigMap"} end return t end`,
	}}
	ri := luaFacade(c)
	var err error
	bounded(t, func() { _, err = ri.GetDependencies(context.Background(), luaWorkload()) })
	wantErr(t, err, `customization "hostile-deps" InterpretDependency`, "invalid dependencies: 5000 references: an answer may name at most 512 dependencies")
	if !errors.Is(err, layer.ErrTooManyDependencies) {
		t.Fatal("error does not wrap layer.ErrTooManyDependencies")
	}
}

// A negative cpu request used to be accepted; charged to a binding it
// erased the FederatedResourceQuota's recorded usage.
func TestLuaNegativeRequest(t *testing.T) {
	ri := luaFacade(customizationOf("hostile-request", `function GetReplicas(o) return 1, {resourceRequest = {cpu = "-100"}} end`))
	var err error
	bounded(t, func() { _, _, err = ri.GetReplicas(context.Background(), luaWorkload()) })
	wantErr(t, err, "InterpretReplica of example.io/v1/Workload default/w", "resourceRequest.cpu is -100: resource requests must not be negative")
	if !errors.Is(err, layer.ErrNegativeRequest) {
		t.Fatal("error does not wrap layer.ErrNegativeRequest")
	}
}

// 2.5 used to become 2, math.huge and 0/0 -2147483648.
func TestLuaInvalidReplicas(t *testing.T) {
	for ret, text := range map[string]string{"2.5": "2.5", "math.huge": "1.7976931348623157e+308", "0/0": "NaN", "1/0": "+Inf"} {
		t.Run(ret, func(t *testing.T) {
			ri := luaFacade(customizationOf("hostile-replicas", "function GetReplicas(o) return "+ret+", nil end"))
			var err error
			bounded(t, func() { _, _, err = ri.GetReplicas(context.Background(), luaWorkload()) })
			wantErr(t, err, `customization "hostile-replicas" InterpretReplica`, "returned replicas "+text+": replicas must be an integer between 0 and 2147483647")
			if !errors.Is(err, layer.ErrInvalidReplicas) {
				t.Fatal("error does not wrap layer.ErrInvalidReplicas")
			}
		})
	}
}
