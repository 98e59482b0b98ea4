package version

import (
	"runtime"
	"runtime/debug"

	"github.com/prometheus/client_golang/prometheus"
	"sigs.k8s.io/controller-runtime/pkg/metrics"
)

// buildDate is the ISO-8601 UTC build time, set with
// -ldflags "-X github.com/propel-mc/propel/internal/app/version.buildDate=...";
// unset, build_date reads "unknown".
var buildDate string

// unknown is Karmada's value of a build fact that was not recorded.
const unknown = "unknown"

func init() {
	metrics.Registry.MustRegister(buildInfoCollector(BuildLabels()))
}

// BuildLabels are this binary's karmada_build_info labels (git_version,
// git_commit, build_date, go_version, platform, ...), for a command that
// prints them beside another component's.
func BuildLabels() map[string]string {
	info, _ := debug.ReadBuildInfo()
	return buildLabels(Get(), buildDate, info)
}

// buildInfoCollector is karmada_build_info: a gauge always 1 whose const
// labels describe the binary, with the eight label keys Karmada's
// components carry, so that the queries reading Karmada's build info read
// Propel's.
func buildInfoCollector(labels prometheus.Labels) prometheus.Collector {
	return prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Name:        "karmada_build_info",
		Help:        "Build information of the binary (Propel's version in git_version); always 1.",
		ConstLabels: labels,
	}, func() float64 { return 1 })
}

// buildLabels are the label values of karmada_build_info: the version, the
// VCS facts the Go toolchain recorded (unknown when it recorded none) and
// the toolchain and platform.
func buildLabels(gitVersion, date string, info *debug.BuildInfo) prometheus.Labels {
	commit, treeState := unknown, unknown
	if info != nil {
		for _, s := range info.Settings {
			switch s.Key {
			case "vcs.revision":
				commit = s.Value
			case "vcs.modified":
				treeState = "clean"
				if s.Value == "true" {
					treeState = "dirty"
				}
			}
		}
	}
	short := commit
	if commit != unknown && len(commit) > 7 {
		short = commit[:7]
	}
	if date == "" {
		date = unknown
	}
	return prometheus.Labels{
		"git_version":      gitVersion,
		"git_commit":       commit,
		"git_short_commit": short,
		"git_tree_state":   treeState,
		"build_date":       date,
		"go_version":       runtime.Version(),
		"compiler":         runtime.Compiler,
		"platform":         runtime.GOOS + "/" + runtime.GOARCH,
	}
}
