package builtin

import (
	"bytes"
	"embed"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"

	utilyaml "k8s.io/apimachinery/pkg/util/yaml"

	"github.com/propel-mc/propel/internal/interpreter/resourceinterpreter/customization"
	configv1alpha1 "github.com/propel-mc/propel/pkg/apis/config/v1alpha1"
)

// FileName is the name of every customization file.
const FileName = "customizations.yaml"

//go:embed customizations/*/*/*/customizations.yaml
var files embed.FS

// FS returns the embedded tree, rooted at customizations/.
func FS() fs.FS {
	sub, err := fs.Sub(files, "customizations")
	if err != nil {
		panic(err) // the directory is embedded
	}
	return sub
}

// New returns the "builtin" layer serving the embedded customizations.
// opts.Name is forced to "builtin"; its scripts are compiled on their
// first call (the tests compile every one). If the embedded files do not decode
// (a build defect the tests catch), nothing is loaded, as in Karmada, and
// the error is logged.
func New(opts customization.Options) *customization.Interpreter {
	opts.Name = customization.NameBuiltin
	opts.CompileOnFirstCall = true
	i := customization.New(opts)
	list, err := Load(FS())
	if err != nil {
		i.Logger().Error(err, "load built-in customizations; none are served")
		list = nil
	}
	i.LoadConfig(list)
	return i
}

// Load decodes every customizations.yaml under fsys (all YAML documents of
// each file). Any decode error fails the whole load.
func Load(fsys fs.FS) ([]configv1alpha1.ResourceInterpreterCustomization, error) {
	var out []configv1alpha1.ResourceInterpreterCustomization
	err := fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() || path.Base(p) != FileName {
			return nil
		}
		data, err := fs.ReadFile(fsys, p)
		if err != nil {
			return err
		}
		list, err := Decode(data)
		if err != nil {
			return fmt.Errorf("%s: %w", p, err)
		}
		out = append(out, list...)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("load built-in customizations: %w", err)
	}
	return out, nil
}

// Decode decodes a YAML (or JSON) stream of customizations.
func Decode(data []byte) ([]configv1alpha1.ResourceInterpreterCustomization, error) {
	dec := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(data), 4096)
	var out []configv1alpha1.ResourceInterpreterCustomization
	for {
		var ric configv1alpha1.ResourceInterpreterCustomization
		if err := dec.Decode(&ric); err != nil {
			if errors.Is(err, io.EOF) {
				return out, nil
			}
			return nil, err
		}
		if ric.Kind == "" && ric.Name == "" {
			continue // empty document
		}
		out = append(out, ric)
	}
}
