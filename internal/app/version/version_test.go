package version

import (
	"runtime"
	"runtime/debug"
	"testing"

	"sigs.k8s.io/controller-runtime/pkg/metrics"
)

func TestResolve(t *testing.T) {
	rev := []debug.BuildSetting{{Key: "vcs.revision", Value: "0e8597f1234567890abc"}, {Key: "vcs.modified", Value: "true"}}
	for _, tc := range []struct {
		name, stamp string
		info        *debug.BuildInfo
		want        string
	}{
		{"stamp wins", "v1.2.3", &debug.BuildInfo{Main: debug.Module{Version: "v0.0.1"}}, "v1.2.3"},
		{"module version", "", &debug.BuildInfo{Main: debug.Module{Version: "v0.4.0"}}, "v0.4.0"},
		{"checkout", "", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: rev}, "dev-0e8597f12345-dirty"},
		{"nothing known", "", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}}, "dev"},
		{"no build info", "", nil, "dev"},
	} {
		if got := resolve(tc.stamp, tc.info); got != tc.want {
			t.Errorf("%s: resolve = %q, want %q", tc.name, got, tc.want)
		}
	}
}

func TestBuildLabels(t *testing.T) {
	rev := []debug.BuildSetting{{Key: "vcs.revision", Value: "0e8597f1234567890abc"}, {Key: "vcs.modified", Value: "false"}}
	got := buildLabels("v1.2.3", "", &debug.BuildInfo{Settings: rev})
	want := map[string]string{"git_version": "v1.2.3", "git_commit": "0e8597f1234567890abc", "git_short_commit": "0e8597f",
		"git_tree_state": "clean", "build_date": "unknown", "go_version": runtime.Version(), "compiler": runtime.Compiler,
		"platform": runtime.GOOS + "/" + runtime.GOARCH}
	if len(got) != len(want) {
		t.Fatalf("labels = %v, want %v", got, want)
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("label %s = %q, want %q", k, got[k], v)
		}
	}
	none := buildLabels("dev", "2026-01-02T03:04:05Z", nil)
	if none["git_commit"] != "unknown" || none["git_short_commit"] != "unknown" || none["git_tree_state"] != "unknown" || none["build_date"] != "2026-01-02T03:04:05Z" {
		t.Errorf("labels without VCS facts = %v", none)
	}
}

func TestBuildInfoRegistered(t *testing.T) {
	families, err := metrics.Registry.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range families {
		if f.GetName() == "karmada_build_info" {
			if len(f.GetMetric()) != 1 || f.GetMetric()[0].GetGauge().GetValue() != 1 || len(f.GetMetric()[0].GetLabel()) != 8 {
				t.Errorf("karmada_build_info = %v, want one series of value 1 with 8 labels", f.GetMetric())
			}
			return
		}
	}
	t.Error("karmada_build_info is not registered in controller-runtime's registry")
}
