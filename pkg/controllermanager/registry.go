package controllermanager

import (
	"context"
	"fmt"
	"sort"
	"strings"
)

// setupFunc adds one controller to the manager.
type setupFunc func(ctx context.Context, c *Context) error

// controller is one entry of --controllers.
type controller struct {
	setup setupFunc
	// offByDefault controllers run only when named explicitly.
	offByDefault bool
}

// controllers is filled by the register calls in controllers.go.
var controllers = map[string]controller{}

func allControllerNames() string {
	names := make([]string, 0, len(controllers))
	for n := range controllers {
		names = append(names, n)
	}
	sort.Strings(names)
	return strings.Join(names, ", ")
}

// enabled applies Karmada's (and Kubernetes') --controllers rule: the
// first entry naming the controller ("foo" or "-foo") wins wherever it
// stands; otherwise '*' enables the on-by-default ones. So "*,-scheduler"
// and "-scheduler,*" both disable the scheduler.
func enabled(name string, list []string) bool {
	star := false
	for _, entry := range list {
		switch entry {
		case name:
			return true
		case "-" + name:
			return false
		case "*":
			star = true
		}
	}
	return star && !controllers[name].offByDefault
}

// isRegistered reports whether Propel has a controller named name.
func isRegistered(name string) bool {
	_, ok := controllers[name]
	return ok
}

// validateControllers rejects names that are neither Propel's nor
// Karmada's, so a typo does not silently disable a controller.
func validateControllers(list []string) error {
	for _, entry := range list {
		name := strings.TrimPrefix(entry, "-")
		if entry == "*" {
			continue
		}
		if !isRegistered(name) && !isKarmadaController(name) {
			return fmt.Errorf("--controllers: unknown controller %q (Propel's: %s; Karmada's names are accepted too)", name, allControllerNames())
		}
	}
	return nil
}
