package commandline

import (
	"flag"
	"fmt"
	"strings"

	"github.com/spf13/pflag"
	"k8s.io/component-base/featuregate"
	"k8s.io/component-base/logs"
	logsapi "k8s.io/component-base/logs/api/v1"
	// Registers --logging-format=json, as Karmada's binaries do.
	_ "k8s.io/component-base/logs/json/register"
	"k8s.io/klog/v2"
	ctrl "sigs.k8s.io/controller-runtime"
)

// Logging is the logging configuration read from the command line.
type Logging struct {
	config *logsapi.LoggingConfiguration
}

// AddLoggingFlags registers Karmada's logging flags on fs: klog's own
// (--log-dir, --skip-headers, ...) and component-base's (--v, --vmodule,
// --logging-format, --log-flush-frequency, --log-{text,json}-*).
func AddLoggingFlags(fs *pflag.FlagSet) *Logging {
	l := &Logging{config: logsapi.NewLoggingConfiguration()}
	logs.AddFlags(fs, logs.SkipLoggingConfigurationFlags())
	logsapi.AddFlags(l.config, fs)
	// klog's own flags (--log-dir, --skip-headers, --stderrthreshold, ...),
	// except --v and --vmodule, which component-base owns.
	klogFlags := flag.NewFlagSet("klog", flag.ContinueOnError)
	klog.InitFlags(klogFlags)
	klogFlags.VisitAll(func(f *flag.Flag) {
		pf := pflag.PFlagFromGoFlag(f)
		pf.Name = strings.ReplaceAll(f.Name, "_", "-") // Karmada's spelling: --log-dir
		if fs.Lookup(pf.Name) == nil {
			fs.AddFlag(pf)
		}
	})
	return l
}

// Apply validates the parsed flags against the logging feature gates
// (LoggingAlphaOptions unlocks the split-stream and buffer flags,
// ContextualLogging is passed on to klog), switches klog to the chosen
// format and verbosity, and routes controller-runtime's logger through
// klog. Call it right after parsing, before any goroutine logs; nil gates
// are the defaults.
func (l *Logging) Apply(gates featuregate.FeatureGate) error {
	if gates == nil {
		gates = NewFeatureGates()
	}
	if err := logsapi.ValidateAndApply(l.config, gates); err != nil {
		return fmt.Errorf("logging flags: %w", err)
	}
	ctrl.SetLogger(klog.Background())
	return nil
}

// Flush writes buffered log entries; call it before exiting.
func Flush() { logs.FlushLogs() }
