package commandline

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"

	"github.com/spf13/pflag"
	"k8s.io/component-base/featuregate"
	"k8s.io/klog/v2"
	"sigs.k8s.io/controller-runtime/pkg/manager/signals"

	"github.com/propel-mc/propel/internal/app/version"
)

// Binary is what a Propel binary's main hands to Main: its name, its
// flags (without the shared logging and --version flags, which Main
// adds), the --feature-gates value they fill, and the work to run.
type Binary struct {
	Name  string
	Flags *pflag.FlagSet
	// Gates is the binary's --feature-gates value; its logging gates
	// configure the logger. Nil means the defaults.
	Gates featuregate.FeatureGate
	Run   func(ctx context.Context) error
	// Out receives --version's answer, Err the errors (os.Stdout and
	// os.Stderr in the binaries).
	Out, Err io.Writer
}

// Main parses args, answers --version (or the argument "version", the
// form of Karmada's binaries) and exits, otherwise applies the logging
// flags, logs the version and runs the binary until ctx ends. It returns
// the process exit code: 0, 1 when Run fails, 2 for a bad command line.
func (b Binary) Main(ctx context.Context, args []string) int {
	logging := AddLoggingFlags(b.Flags)
	showVersion := b.Flags.Bool("version", false, "Print the version and exit.")
	if err := b.Flags.Parse(args); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			return 0
		}
		fmt.Fprintf(b.Err, "%s: %v\n", b.Name, err)
		return 2
	}
	if *showVersion || (b.Flags.NArg() == 1 && b.Flags.Arg(0) == "version") {
		fmt.Fprintf(b.Out, "%s version %s (%s)\n", b.Name, version.Get(), runtime.Version())
		return 0
	}
	if b.Flags.NArg() > 0 {
		fmt.Fprintf(b.Err, "%s: unexpected arguments %q\n", b.Name, b.Flags.Args())
		return 2
	}
	if err := logging.Apply(b.Gates); err != nil {
		fmt.Fprintf(b.Err, "%s: %v\n", b.Name, err)
		return 2
	}
	klog.Background().Info("starting", "binary", b.Name, "version", version.Get(), "goVersion", runtime.Version())
	err := b.Run(ctx)
	Flush()
	if err != nil {
		fmt.Fprintf(b.Err, "%s: %v\n", b.Name, err)
		return 1
	}
	return 0
}

// Exec is a binary's main: it registers the binary's flags with
// addFlags, runs Main on the process's arguments until SIGTERM or SIGINT,
// and exits with Main's code. gates is the binary's --feature-gates value.
func Exec(name string, addFlags func(*pflag.FlagSet), gates featuregate.FeatureGate, run func(ctx context.Context) error) {
	fs := pflag.NewFlagSet(name, pflag.ContinueOnError)
	addFlags(fs)
	os.Exit(Binary{Name: name, Flags: fs, Gates: gates, Run: run, Out: os.Stdout, Err: os.Stderr}.
		Main(signals.SetupSignalHandler(), os.Args[1:]))
}
