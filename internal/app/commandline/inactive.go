package commandline

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/go-logr/logr"
	"github.com/spf13/pflag"
)

// Flag describes a Karmada flag by name (without "--"), type and default
// as Karmada's --help prints them: type is one of bool, string, strings,
// int, uint, float32, float, duration; def is "" for the type's zero value.
type Flag struct {
	Name, Type, Default string
}

// Inactive is a set of flags accepted for compatibility that have no effect.
type Inactive struct {
	binary string
	fs     *pflag.FlagSet
	names  []string
}

// AddInactiveFlags registers flags on fs with Karmada's types and defaults,
// so that Karmada's command lines parse (and a wrong value is still an
// error). binary names the Karmada binary in the help text. It panics on a
// malformed table entry: the tables are compiled in and tested.
func AddInactiveFlags(fs *pflag.FlagSet, binary string, flags []Flag) *Inactive {
	in := &Inactive{binary: binary, fs: fs}
	for _, f := range flags {
		usage := fmt.Sprintf("Accepted for compatibility with %s; has no effect in Propel.", binary)
		if err := addFlag(fs, f, usage); err != nil {
			panic(fmt.Sprintf("inactive flag --%s: %v", f.Name, err))
		}
		in.names = append(in.names, f.Name)
	}
	return in
}

func addFlag(fs *pflag.FlagSet, f Flag, usage string) error {
	def := strings.Trim(f.Default, `"`)
	var err error
	switch f.Type {
	case "bool":
		v := false
		if def != "" {
			v, err = strconv.ParseBool(def)
		}
		fs.Bool(f.Name, v, usage)
	case "string":
		fs.String(f.Name, def, usage)
	case "strings":
		var v []string
		if def != "" {
			v = strings.Split(def, ",")
		}
		fs.StringSlice(f.Name, v, usage)
	case "int":
		v := 0
		if def != "" {
			v, err = strconv.Atoi(def)
		}
		fs.Int(f.Name, v, usage)
	case "uint":
		var v uint64
		if def != "" {
			v, err = strconv.ParseUint(def, 10, 0)
		}
		fs.Uint(f.Name, uint(v), usage)
	case "float32":
		var v float64
		if def != "" {
			v, err = strconv.ParseFloat(def, 32)
		}
		fs.Float32(f.Name, float32(v), usage)
	case "float":
		var v float64
		if def != "" {
			v, err = strconv.ParseFloat(def, 64)
		}
		fs.Float64(f.Name, v, usage)
	case "duration":
		var v time.Duration
		if def != "" {
			v, err = time.ParseDuration(def)
		}
		fs.Duration(f.Name, v, usage)
	default:
		return fmt.Errorf("unsupported type %q", f.Type)
	}
	return err
}

// Set lists the inactive flags given on the command line, in table order.
func (in *Inactive) Set() []string {
	var out []string
	for _, n := range in.names {
		if in.fs.Changed(n) {
			out = append(out, n)
		}
	}
	return out
}

// Warn logs one warning per inactive flag given on the command line.
func (in *Inactive) Warn(logger logr.Logger) {
	for _, n := range in.Set() {
		logger.Info("warning: flag accepted for compatibility has no effect in Propel", "flag", "--"+n, "value", in.fs.Lookup(n).Value.String(), "binary", in.binary)
	}
}
