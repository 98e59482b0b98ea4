package livestack

import (
	"slices"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	configv1alpha1 "github.com/propel-mc/propel/pkg/apis/config/v1alpha1"
)

func ric(name, version string) configv1alpha1.ResourceInterpreterCustomization {
	return configv1alpha1.ResourceInterpreterCustomization{ObjectMeta: metav1.ObjectMeta{Name: name, ResourceVersion: version}}
}

func wh(name, version string) configv1alpha1.ResourceInterpreterWebhookConfiguration {
	return configv1alpha1.ResourceInterpreterWebhookConfiguration{ObjectMeta: metav1.ObjectMeta{Name: name, ResourceVersion: version}}
}

// An added configuration replaces the live one of its name and comes after
// the live ones kept; the other kind of configuration is left as it is.
func TestWithReplacesByName(t *testing.T) {
	live := Config{
		Customizations: []configv1alpha1.ResourceInterpreterCustomization{ric("a", "live"), ric("b", "live")},
		Webhooks:       []configv1alpha1.ResourceInterpreterWebhookConfiguration{wh("x", "live"), wh("y", "live")},
	}
	got := live.WithCustomizations([]configv1alpha1.ResourceInterpreterCustomization{ric("a", "new"), ric("c", "new")})
	if want := []string{"b/live", "a/new", "c/new"}; !slices.Equal(names(got.Customizations), want) {
		t.Errorf("customizations %v, want %v", names(got.Customizations), want)
	}
	if len(got.Webhooks) != 2 {
		t.Errorf("webhooks changed: %v", got.Webhooks)
	}
	got = live.WithWebhooks([]configv1alpha1.ResourceInterpreterWebhookConfiguration{wh("y", "new")})
	if want := []string{"x/live", "y/new"}; !slices.Equal(names(got.Webhooks), want) {
		t.Errorf("webhooks %v, want %v", names(got.Webhooks), want)
	}
	if len(got.Customizations) != 2 {
		t.Errorf("customizations changed: %v", got.Customizations)
	}
}

func names[T any, PT interface {
	*T
	GetName() string
	GetResourceVersion() string
}](items []T) []string {
	var out []string
	for i := range items {
		out = append(out, PT(&items[i]).GetName()+"/"+PT(&items[i]).GetResourceVersion())
	}
	return out
}
