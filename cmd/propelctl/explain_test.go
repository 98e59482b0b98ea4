package main

import (
	"bytes"
	"strings"
	"testing"
)

// The argument and flag checks of explain and interpret --replay answer
// before any cluster is contacted.
func TestExplainAndReplayRejectBadArguments(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"explain", "nginx"}, "want RESOURCE/NAME"},
		{[]string{"explain", "deploy/"}, "want RESOURCE/NAME"},
		{[]string{"explain", "deploy/nginx", "-o", "yaml"}, "unknown output format"},
		{[]string{"interpret", "--replay"}, "needs -f CUSTOMIZATION.yaml or --webhook-url"},
		{[]string{"interpret", "--replay", "-f", "x.yaml", "--webhook-url", "https://127.0.0.1:1"}, "not both"},
		{[]string{"interpret", "--replay", "--webhook-url", "https://127.0.0.1:1", "--webhook-operations", "Frobnicate"}, "Frobnicate is not supported"},
		{[]string{"interpret", "--replay", "-f", "x.yaml", "-o", "yaml2"}, "unknown output format"},
	} {
		root := newRootCommand()
		var out bytes.Buffer
		root.SetOut(&out)
		root.SetErr(&out)
		root.SetArgs(tc.args)
		err := root.Execute()
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: err %v, want %q", tc.args, err, tc.want)
		}
	}
}
