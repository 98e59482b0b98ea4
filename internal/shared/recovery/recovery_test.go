package recovery

import (
	"strings"
	"testing"

	"github.com/go-logr/logr/funcr"
	toolscache "k8s.io/client-go/tools/cache"
)

func TestHandlerRecoversAndReportsTheObject(t *testing.T) {
	var logged []string
	logger := funcr.New(func(_, args string) { logged = append(logged, args) }, funcr.Options{})
	calls := 0
	var fellBack []interface{}
	h := Handler(logger, "test handler", toolscache.ResourceEventHandlerFuncs{
		AddFunc: func(obj interface{}) {
			calls++
			if obj == "bad" {
				panic("boom")
			}
		},
		UpdateFunc: func(_, _ interface{}) { panic("update boom") },
		DeleteFunc: func(interface{}) {
			var m map[string]int
			//lint:ignore SA5000 the test needs a runtime error panic (not panic(value)) to prove recovery handles both
			m["x"] = 1
		},
	}, func(obj interface{}) { fellBack = append(fellBack, obj) })

	h.OnAdd("bad", false) // would crash the test binary without recovery
	h.OnAdd("good", false)
	h.OnUpdate("old", "new")
	h.OnDelete("gone")
	if calls != 2 {
		t.Errorf("handler ran %d times, want 2 (it keeps running after a panic)", calls)
	}
	if want := []interface{}{"bad", "new", "gone"}; len(fellBack) != 3 || fellBack[0] != want[0] || fellBack[1] != want[1] || fellBack[2] != want[2] {
		t.Errorf("panic fallback got %v, want %v", fellBack, want)
	}
	if len(logged) != 3 {
		t.Fatalf("logged %d lines, want 3: %q", len(logged), logged)
	}
	for _, l := range logged {
		if !strings.Contains(l, `"handler"="test handler"`) || !strings.Contains(l, "panic: ") || !strings.Contains(l, `"stack"=`) {
			t.Errorf("log line lacks handler, panic or stack: %s", l)
		}
		if len(l) > maxStack+1024 {
			t.Errorf("log line of %d bytes is not bounded", len(l))
		}
	}
}

func TestRunReportsNoPanic(t *testing.T) {
	if Run(funcr.New(func(_, _ string) {}, funcr.Options{}), "x", func() {}) {
		t.Error("Run reported a panic that did not happen")
	}
}
