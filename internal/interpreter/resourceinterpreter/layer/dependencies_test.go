package layer

import (
	"errors"
	"strconv"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	configv1alpha1 "github.com/propel-mc/propel/pkg/apis/config/v1alpha1"
)

func TestValidateDependencies(t *testing.T) {
	valid := []configv1alpha1.DependentObjectReference{
		{APIVersion: "v1", Kind: "ConfigMap", Namespace: "ns", Name: "a"},
		{APIVersion: "v1", Kind: "Secret", LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "x"}}},
	}
	if err := ValidateDependencies(valid); err != nil {
		t.Fatalf("valid: %v", err)
	}
	invalid := []configv1alpha1.DependentObjectReference{
		{Kind: "Secret", Name: "a"},
		{APIVersion: "v1", Name: "b"},
		{APIVersion: "v1", Kind: "Secret"},
		{APIVersion: "v1", Kind: "Secret", LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "bad value!"}}},
		{APIVersion: "v1", Kind: "Secret", LabelSelector: &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "a", Operator: metav1.LabelSelectorOpIn}}}},
		{APIVersion: "v1", Kind: "Secret", LabelSelector: &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "a", Operator: metav1.LabelSelectorOpExists, Values: []string{"x"}}}}},
	}
	err := ValidateDependencies(invalid)
	if err == nil {
		t.Fatal("invalid dependencies accepted")
	}
	for _, path := range []string{"dependencies[0].apiVersion", "dependencies[1].kind", "dependencies[2].name",
		"dependencies[3].labelSelector.matchLabels", "dependencies[4].labelSelector.matchExpressions[0].values",
		"dependencies[5].labelSelector.matchExpressions[0].values"} {
		if !strings.Contains(err.Error(), path) {
			t.Errorf("error does not mention %s: %v", path, err)
		}
	}
	if strings.Contains(err.Error(), "more") {
		t.Errorf("six problems reported as more: %v", err)
	}
}

// An answer of more than MaxDependencies references is refused before its
// entries are looked at: 10,000 empty entries used to cost one message
// each, concatenated (a minute and tens of GB).
func TestValidateDependenciesTooMany(t *testing.T) {
	deps := make([]configv1alpha1.DependentObjectReference, 10_000)
	err := ValidateDependencies(deps)
	if !errors.Is(err, ErrTooManyDependencies) {
		t.Fatalf("got %.300v, want ErrTooManyDependencies", err)
	}
	if want := "invalid dependencies: 10000 references: an answer may name at most 512 dependencies"; err.Error() != want {
		t.Errorf("got %q, want %q", err, want)
	}
	valid := make([]configv1alpha1.DependentObjectReference, MaxDependencies)
	for i := range valid {
		valid[i] = configv1alpha1.DependentObjectReference{APIVersion: "v1", Kind: "ConfigMap", Name: "c"}
	}
	if err := ValidateDependencies(valid); err != nil {
		t.Errorf("%d references: %v", MaxDependencies, err)
	}
}

// The error of a list of many bad entries names the first few problems and
// counts the rest, so that its length does not grow with the list.
func TestValidateDependenciesErrorCap(t *testing.T) {
	deps := make([]configv1alpha1.DependentObjectReference, MaxDependencies)
	err := ValidateDependencies(deps)
	if err == nil {
		t.Fatal("empty references accepted")
	}
	msg := err.Error()
	for _, want := range []string{"dependencies[0].apiVersion", "dependencies[3].apiVersion", strconv.Itoa(3*MaxDependencies-MaxReportedDependencyErrors) + " more"} {
		if !strings.Contains(msg, want) {
			t.Errorf("error lacks %q: %.500s", want, msg)
		}
	}
	if strings.Contains(msg, "dependencies[3].kind") || strings.Contains(msg, "dependencies[4]") {
		t.Errorf("error names more than %d problems: %.500s", MaxReportedDependencyErrors, msg)
	}
	if len(msg) > 2048 {
		t.Errorf("error of %d bytes", len(msg))
	}
}
