package webhook

import (
	"errors"
	"fmt"
	"math"
	"net/http"
	"strings"
	"testing"
	"time"

	"k8s.io/utils/ptr"

	"github.com/propel-mc/propel/internal/interpreter/resourceinterpreter/layer"
	"github.com/propel-mc/propel/internal/interpreter/resourceinterpreter/webhook/webhooktest"
	"github.com/propel-mc/propel/internal/shared/boundedtext"
	configv1alpha1 "github.com/propel-mc/propel/pkg/apis/config/v1alpha1"
)

// copyBombPatch adds a small object and copies it into itself n times:
// each copy doubles it, so 86 copies of about 50 bytes ask for 2^86 bytes.
func copyBombPatch(n int) string {
	ops := []string{`{"op":"add","path":"/b","value":{"x":"` + strings.Repeat("y", 50) + `"}}`}
	for i := range n {
		ops = append(ops, fmt.Sprintf(`{"op":"copy","from":"/b","path":"/b/c%d"}`, i))
	}
	return "[" + strings.Join(ops, ",") + "]"
}

// arrayInsertPatch adds an array of n elements, then inserts k elements at
// its head: the patch library reallocates the array on every insert.
func arrayInsertPatch(n, k int) string {
	ops := []string{`{"op":"add","path":"/arr","value":[` + strings.Repeat("0,", n) + `0]}`}
	for range k {
		ops = append(ops, `{"op":"add","path":"/arr/0","value":1}`)
	}
	return "[" + strings.Join(ops, ",") + "]"
}

// TestPatchLimits: a patch within the limits applies; one exceeding a limit
// fails naming the webhook and the limit, quickly, without building the
// expanded object.
func TestPatchLimits(t *testing.T) {
	cases := []struct {
		name, patch, want string
	}{
		{"copy amplification (86 doubling copies)", copyBombPatch(86), fmt.Sprintf("copy operations add more than %d bytes", MaxPatchCopyBytes)},
		{"too many operations", arrayInsertPatch(1, MaxPatchOperations), fmt.Sprintf("%d operations, the limit is %d", MaxPatchOperations+1, MaxPatchOperations)},
		{"quadratic array inserts", arrayInsertPatch(100_000, 1000), fmt.Sprintf("the limit is %d", MaxPatchWork)},
		{"result too large", `[{"op":"add","path":"/big","value":"` + strings.Repeat("z", MaxPatchedObjectBytes) + `"}]`, fmt.Sprintf("the limit is %d", MaxPatchedObjectBytes)},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv := rawServer(t, 200, func(uid string) string {
				return `{"response":{"uid":"` + uid + `","successful":true,"patchType":"JSONPatch","patch":"` + b64(tc.patch) + `"}}`
			})
			for _, op := range []configv1alpha1.InterpreterOperation{
				configv1alpha1.InterpreterOperationReviseReplica, configv1alpha1.InterpreterOperationRetain, configv1alpha1.InterpreterOperationAggregateStatus,
			} {
				err := call(testContext(t), newLoaded(t, srv), op)
				wantCallError(t, err, tc.want)
				if !errors.Is(err, ErrPatchLimit) {
					t.Errorf("%s: error does not wrap ErrPatchLimit", op)
				}
			}
		})
	}
}

func TestPatchWithinLimitsApplies(t *testing.T) {
	doc := []byte(`{"a":1}`)
	out, err := applyJSONPatch(doc, []byte(copyBombPatch(10)))
	if err != nil || len(out) < 50<<10 {
		t.Fatalf("10 doubling copies: %d bytes, %v", len(out), err)
	}
	out, err = applyJSONPatch(doc, []byte(arrayInsertPatch(1000, 1000)))
	if err != nil || !strings.Contains(string(out), `"arr":[1,1,`) {
		t.Fatalf("1000 inserts into 1000 elements: %v", err)
	}
}

func TestLargestContainer(t *testing.T) {
	for js, want := range map[string]int{
		`{}`: 0, `[]`: 0, `[1]`: 1, `{"a":[1,2,3],"b":"x,y,z,[,]"}`: 3, `{"a":{"b":[[],[1,2],{"c":"\",\",","d":1}]}}`: 3,
		`[{"op":"add","path":"/a","value":[1,2]},{"op":"remove","path":"/b"}]`: 3,
	} {
		if got := largestContainer([]byte(js), 0); got != want {
			t.Errorf("largestContainer(%s) = %d, want %d", js, got, want)
		}
	}
	if got := largestContainer([]byte(`[{"op":"add","path":"/a","value":[1,2]},{"op":"remove","path":"/b"}]`), 1); got != 3 {
		t.Errorf("largestContainer(patch, skip 1) = %d, want 3 (an operation object)", got)
	}
}

// TestStatusMessageBounded: a 20 MiB status.message ends up as a bounded
// error with a truncation marker.
func TestStatusMessageBounded(t *testing.T) {
	msg := strings.Repeat("m", 20<<20)
	srv := rawServer(t, 200, func(uid string) string {
		return `{"response":{"uid":"` + uid + `","successful":false,"status":{"code":500,"message":"` + msg + `"}}}`
	})
	err := call(testContext(t), newLoaded(t, srv), configv1alpha1.InterpreterOperationInterpretHealth)
	wantCallError(t, err, "webhook call failed, get status code: 500, msg: mmm")
	if n := len(err.Error()); n > boundedtext.DefaultLimit+len(hookUID)+8 {
		t.Fatalf("error is %d bytes", n)
	}
	if !boundedtext.IsTruncated(err.Error()) {
		t.Fatalf("error has no truncation marker: %s", err)
	}
}

// TestInvalidReplicasRejected: replicas that are not an int32 >= 0 fail the
// call naming the value, instead of being coerced.
func TestInvalidReplicasRejected(t *testing.T) {
	for _, v := range []string{"-1", "1.5", "2147483648", "1e400", "-2147483649"} {
		t.Run(v, func(t *testing.T) {
			srv := rawServer(t, 200, func(uid string) string {
				return `{"response":{"uid":"` + uid + `","successful":true,"replicas":` + v + `}}`
			})
			err := call(testContext(t), newLoaded(t, srv), configv1alpha1.InterpreterOperationInterpretReplica)
			wantCallError(t, err, "webhook returned invalid response.replicas "+v+": replicas must be an integer between 0 and 2147483647")
			if !errors.Is(err, layer.ErrInvalidReplicas) {
				t.Fatal("error does not wrap layer.ErrInvalidReplicas")
			}
		})
	}
}

// TestTimeoutClamped: timeoutSeconds is clamped to [1s, 30s]; unset means
// the 10 s default.
func TestTimeoutClamped(t *testing.T) {
	i := New(Options{})
	for in, want := range map[*int32]time.Duration{
		nil: 10 * time.Second, ptr.To[int32](0): time.Second, ptr.To[int32](-5): time.Second, ptr.To[int32](7): 7 * time.Second,
		ptr.To[int32](30): 30 * time.Second, ptr.To[int32](31): 30 * time.Second, ptr.To[int32](math.MaxInt32): 30 * time.Second,
	} {
		if got := i.timeoutFor(in); got != want {
			t.Errorf("timeoutFor(%v) = %v, want %v", ptr.Deref(in, -999), got, want)
		}
	}
	if New(Options{DefaultTimeout: time.Hour}).defaultTimeout != MaxTimeout {
		t.Error("Options.DefaultTimeout is not capped at MaxTimeout")
	}
}

// TestZeroTimeoutSecondsIsOneSecond: timeoutSeconds 0 (Karmada's
// validation rejects it; Propel clamps) bounds a call at 1 s, not 10 s.
func TestZeroTimeoutSecondsIsOneSecond(t *testing.T) {
	srv := webhooktest.NewServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		<-r.Context().Done()
	}))
	i := newLoaded(t, srv, func(h *configv1alpha1.ResourceInterpreterWebhook) { h.TimeoutSeconds = ptr.To[int32](0) })
	start := time.Now()
	err := call(testContext(t), i, configv1alpha1.InterpreterOperationInterpretHealth)
	wantCallError(t, err, "context deadline exceeded")
	if elapsed := time.Since(start); elapsed > 5*time.Second {
		t.Fatalf("call took %v, want about 1s", elapsed)
	}
}

// TestCABundleReplacesSystemRoots: with a caBundle the client trusts that
// bundle and nothing else.
func TestCABundleReplacesSystemRoots(t *testing.T) {
	ca, err := webhooktest.NewCA()
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := tlsConfigFor(ca.PEM)
	if err != nil {
		t.Fatal(err)
	}
	only := x509PoolOf(t, ca.PEM)
	if cfg.RootCAs == nil || !cfg.RootCAs.Equal(only) {
		t.Fatal("the root pool is not exactly the caBundle")
	}
	cfg, err = tlsConfigFor(nil)
	if err != nil || cfg.RootCAs != nil {
		t.Fatalf("without caBundle the system roots are not used: %v", err)
	}
}
