// Package version reports the version of Propel's binaries: the value
// stamped at link time (the Makefile and the Dockerfile pass
// -ldflags "-X github.com/propel-mc/propel/internal/app/version.stamped=<version>"),
// else what the Go toolchain recorded in the binary (the module version
// for `go install ...@v1.2.3`, the VCS revision for a build from a
// checkout), else "dev".
package version

import "runtime/debug"

// stamped is set with -ldflags -X; empty when the build did not set it.
var stamped string

// Get returns the binary's version.
func Get() string {
	info, _ := debug.ReadBuildInfo()
	return resolve(stamped, info)
}

// resolve picks the version from the stamp, then the build information.
func resolve(stamp string, info *debug.BuildInfo) string {
	if stamp != "" {
		return stamp
	}
	if info == nil {
		return "dev"
	}
	if v := info.Main.Version; v != "" && v != "(devel)" {
		return v
	}
	var revision, modified string
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			revision = s.Value
		case "vcs.modified":
			modified = s.Value
		}
	}
	if revision == "" {
		return "dev"
	}
	if len(revision) > 12 {
		revision = revision[:12]
	}
	if modified == "true" {
		revision += "-dirty"
	}
	return "dev-" + revision
}
