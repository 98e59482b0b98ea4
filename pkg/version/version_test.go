package version

import (
	"runtime/debug"
	"testing"
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
