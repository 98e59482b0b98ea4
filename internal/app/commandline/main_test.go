package commandline

import (
	"context"
	"strings"
	"testing"

	"github.com/spf13/pflag"

	"github.com/propel-mc/propel/internal/app/version"
)

// TestMainVersion: every binary answers --version (and "version", the
// form of Karmada's binaries) with its version, without running.
func TestMainVersion(t *testing.T) {
	for _, args := range [][]string{{"--version"}, {"version"}, {"--v=4", "--version"}} {
		var out, errs strings.Builder
		ran := false
		code := Binary{
			Name: "propel-x", Flags: pflag.NewFlagSet("propel-x", pflag.ContinueOnError),
			Run: func(context.Context) error { ran = true; return nil }, Out: &out, Err: &errs,
		}.Main(context.Background(), args)
		if code != 0 || ran || !strings.HasPrefix(out.String(), "propel-x version "+version.Get()) {
			t.Errorf("%v: exit %d, ran %v, output %q (%s)", args, code, ran, out.String(), errs.String())
		}
	}
}

func TestMainRejectsBadCommandLines(t *testing.T) {
	for _, args := range [][]string{{"--no-such-flag"}, {"extra"}, {"--logging-format=yaml"}} {
		var out, errs strings.Builder
		ran := false
		code := Binary{
			Name: "propel-x", Flags: pflag.NewFlagSet("propel-x", pflag.ContinueOnError),
			Run: func(context.Context) error { ran = true; return nil }, Out: &out, Err: &errs,
		}.Main(context.Background(), args)
		if code != 2 || ran || !strings.HasPrefix(errs.String(), "propel-x: ") {
			t.Errorf("%v: exit %d, ran %v, errors %q, want exit 2 with a message", args, code, ran, errs.String())
		}
	}
}
