// Command propel-controller-manager runs Propel: the resource detector, the
// scheduler and the propagation controllers against a Karmada control plane.
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/spf13/pflag"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"

	"github.com/propel-mc/propel/pkg/controllermanager"
)

func main() {
	opts := controllermanager.NewOptions()
	opts.AddFlags(pflag.CommandLine)
	zapOpts := zap.Options{}
	zapOpts.BindFlags(flag.CommandLine)
	pflag.CommandLine.AddGoFlagSet(flag.CommandLine)
	pflag.Parse()
	ctrl.SetLogger(zap.New(zap.UseFlagOptions(&zapOpts)))

	if err := controllermanager.Run(ctrl.SetupSignalHandler(), opts); err != nil {
		fmt.Fprintln(os.Stderr, "propel-controller-manager:", err)
		os.Exit(1)
	}
}
