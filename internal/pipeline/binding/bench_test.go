package binding

import (
	"context"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/propel-mc/propel/internal/pipeline/binding/overrides"
	policyv1alpha1 "github.com/propel-mc/propel/pkg/apis/policy/v1alpha1"
	workv1alpha1 "github.com/propel-mc/propel/pkg/apis/work/v1alpha1"
	workv1alpha2 "github.com/propel-mc/propel/pkg/apis/work/v1alpha2"
)

// benchSetup is the worked example scheduled to three clusters with one
// OverridePolicy (an image registry for every cluster, labels for one).
type benchInput struct {
	binding *binding
	set     *overrides.Set
	tmpl    *unstructured.Unstructured
	interp  Interpreter
}

func benchSetup(b *testing.B) *benchInput {
	rb := exampleBinding()
	rb.Spec.Clusters = []workv1alpha2.TargetCluster{{Name: "member1", Replicas: 3}, {Name: "member2", Replicas: 3}, {Name: "member3", Replicas: 3}}
	op := &policyv1alpha1.OverridePolicy{
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "nginx-op"},
		Spec: policyv1alpha1.OverrideSpec{
			ResourceSelectors: []policyv1alpha1.ResourceSelector{{APIVersion: "apps/v1", Kind: "Deployment", Name: "nginx"}},
			OverrideRules: []policyv1alpha1.RuleWithCluster{
				{Overriders: policyv1alpha1.Overriders{ImageOverrider: []policyv1alpha1.ImageOverrider{
					{Component: policyv1alpha1.Registry, Operator: policyv1alpha1.OverriderOpReplace, Value: "mirror.example.io"},
				}}},
				{TargetCluster: &policyv1alpha1.ClusterAffinity{ClusterNames: []string{"member2"}},
					Overriders: policyv1alpha1.Overriders{LabelsOverrider: []policyv1alpha1.LabelAnnotationOverrider{
						{Operator: policyv1alpha1.OverriderOpAdd, Value: map[string]string{"env": "prod"}},
					}}},
			},
		},
	}
	return &benchInput{
		binding: rbKind.wrap(rb), set: overrides.NewSet(nil, []*overrides.Policy{overrides.FromOverridePolicy(op)}),
		tmpl: exampleTemplate(b), interp: newInterpreter(),
	}
}

// renderWorks is what a reconcile computes for a binding without API
// calls: render every target and build the Work (create) or compare with
// the existing one (existing non-nil).
func renderWorks(b *testing.B, in *benchInput, existing map[string]*workv1alpha1.Work) []*workv1alpha1.Work {
	ctx := context.Background()
	targets := in.binding.targets()
	rd, err := newRenderer(in.interp, in.binding, in.tmpl, in.set, targets)
	if err != nil {
		b.Fatal(err)
	}
	out := make([]*workv1alpha1.Work, 0, len(targets))
	for _, t := range targets {
		d, _, err := rd.render(ctx, t, memberCluster(t.Name))
		if err != nil {
			b.Fatal(err)
		}
		if existing != nil {
			if _, changed, err := d.Merge(existing[t.Name]); err != nil || changed {
				b.Fatalf("merge: changed %v, %v", changed, err)
			}
			continue
		}
		w, err := d.NewWork()
		if err != nil {
			b.Fatal(err)
		}
		out = append(out, w)
	}
	return out
}

// BenchmarkEnsureWorks renders the three Works of a binding, as on
// creation. One op is one binding, i.e. three Works.
func BenchmarkEnsureWorks(b *testing.B) {
	in := benchSetup(b)
	b.ReportAllocs()
	for b.Loop() {
		renderWorks(b, in, nil)
	}
	b.ReportMetric(3*float64(b.N)/b.Elapsed().Seconds(), "works/s")
}

// BenchmarkEnsureWorksUnchanged renders the three Works of a binding and
// finds them unchanged (a resync, or another controller's event).
func BenchmarkEnsureWorksUnchanged(b *testing.B) {
	in := benchSetup(b)
	existing := map[string]*workv1alpha1.Work{}
	for _, w := range renderWorks(b, in, nil) {
		existing[w.Namespace[len("karmada-es-"):]] = w
	}
	b.ReportAllocs()
	for b.Loop() {
		renderWorks(b, in, existing)
	}
	b.ReportMetric(3*float64(b.N)/b.Elapsed().Seconds(), "works/s")
}
