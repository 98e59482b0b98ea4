// Package commandline owns the parts of the command line that Propel's
// binaries share with Karmada's: the logging flags (klog's flags, --v,
// --logging-format=text|json and its options, applied through
// k8s.io/component-base so that controller-runtime logs in the chosen
// format) and the Karmada flags Propel accepts for compatibility without
// acting on them, which are reported once at start-up.
package commandline
