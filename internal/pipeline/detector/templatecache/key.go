package templatecache

import (
	"fmt"

	"k8s.io/apimachinery/pkg/runtime/schema"
)

// Key identifies a template: the template controller's request type.
type Key struct {
	GVK       schema.GroupVersionKind
	Namespace string
	Name      string
}

func (k Key) String() string {
	return fmt.Sprintf("%s %s/%s", k.GVK.Kind, k.Namespace, k.Name)
}

// GetNamespace and GetName let klog.KObj name the template.
func (k Key) GetNamespace() string { return k.Namespace }

// GetName is the template's name.
func (k Key) GetName() string { return k.Name }
