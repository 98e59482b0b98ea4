package detector

import (
	"context"
	"fmt"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/propel-mc/propel/internal/cli/localenv"
	configv1alpha1 "github.com/propel-mc/propel/pkg/apis/config/v1alpha1"
	policyv1alpha1 "github.com/propel-mc/propel/pkg/apis/policy/v1alpha1"
	workv1alpha2 "github.com/propel-mc/propel/pkg/apis/work/v1alpha2"
	"github.com/propel-mc/propel/test/harness"
)

// trainingJobComponents is the componentResource script of the TrainingJob
// kind: a launcher and a set of workers, each from its own pod template.
const trainingJobComponents = `
local kube = require("kube")
function GetComponents(obj)
  local components = {}
  for _, name in ipairs({"launcher", "worker"}) do
    local role = obj.spec[name]
    if role ~= nil then
      table.insert(components, {
        name = name,
        replicas = role.replicas or 1,
        replicaRequirements = kube.accuratePodRequirements(role.template),
      })
    end
  end
  return components
end
`

// TestComponentsFromLuaCustomization: under MultiplePodTemplatesScheduling
// the binding of a kind whose ResourceInterpreterCustomization defines
// componentResource carries its components (a launcher and four
// workers, with their per-replica requests) instead of replicas.
func TestComponentsFromLuaCustomization(t *testing.T) {
	startDetector(t)
	ctx := context.Background()
	crd := &apiextensionsv1.CustomResourceDefinition{
		ObjectMeta: metav1.ObjectMeta{Name: "trainingjobs.training.example.io"},
		Spec: apiextensionsv1.CustomResourceDefinitionSpec{
			Group: "training.example.io", Scope: apiextensionsv1.NamespaceScoped,
			Names: apiextensionsv1.CustomResourceDefinitionNames{Plural: "trainingjobs", Singular: "trainingjob", Kind: "TrainingJob", ListKind: "TrainingJobList"},
			Versions: []apiextensionsv1.CustomResourceDefinitionVersion{{
				Name: "v1", Served: true, Storage: true,
				Schema: &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: &apiextensionsv1.JSONSchemaProps{
					Type: "object", XPreserveUnknownFields: ptr.To(true),
				}},
			}},
		},
	}
	if err := localenv.InstallCRDs(ctx, env.ControlPlane.Config, []*apiextensionsv1.CustomResourceDefinition{crd}); err != nil {
		t.Fatal(err)
	}
	// The kind is outside Propel's role: the user grants its claim.
	if err := env.GrantTemplates(ctx, "trainingjobs", crd.Spec.Group); err != nil {
		t.Fatal(err)
	}
	ric := &configv1alpha1.ResourceInterpreterCustomization{
		ObjectMeta: metav1.ObjectMeta{Name: "trainingjob-components"},
		Spec: configv1alpha1.ResourceInterpreterCustomizationSpec{
			Target:         configv1alpha1.CustomizationTarget{APIVersion: "training.example.io/v1", Kind: "TrainingJob"},
			Customizations: configv1alpha1.CustomizationRules{ComponentResource: &configv1alpha1.ComponentResourceRequirement{LuaScript: trainingJobComponents}},
		},
	}
	if err := cl.Create(ctx, ric); err != nil {
		t.Fatal(err)
	}
	pol := &policyv1alpha1.PropagationPolicy{
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "trainingjobs"},
		Spec: policyv1alpha1.PropagationSpec{
			ResourceSelectors: []policyv1alpha1.ResourceSelector{{APIVersion: "training.example.io/v1", Kind: "TrainingJob"}},
		},
	}
	if err := cl.Create(ctx, pol); err != nil {
		t.Fatal(err)
	}
	role := func(replicas int64, cpu string) map[string]interface{} {
		return map[string]interface{}{
			"replicas": replicas,
			"template": map[string]interface{}{"spec": map[string]interface{}{"containers": []interface{}{map[string]interface{}{
				"name": "main", "image": "trainer", "resources": map[string]interface{}{"requests": map[string]interface{}{"cpu": cpu}},
			}}}},
		}
	}
	job := &unstructured.Unstructured{Object: map[string]interface{}{
		"apiVersion": "training.example.io/v1", "kind": "TrainingJob",
		"metadata": map[string]interface{}{"namespace": "default", "name": "resnet"},
		"spec":     map[string]interface{}{"launcher": role(1, "1"), "worker": role(4, "2")},
	}}
	harness.Eventually(t, "create TrainingJob resnet", func(ctx context.Context) (bool, error) {
		return cl.Create(ctx, job.DeepCopy()) == nil, nil // the RESTMapper learns the new kind lazily
	})
	want := []workv1alpha2.Component{
		{Name: "launcher", Replicas: 1, ReplicaRequirements: &workv1alpha2.ComponentReplicaRequirements{
			ResourceRequest: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1")}}},
		{Name: "worker", Replicas: 4, ReplicaRequirements: &workv1alpha2.ComponentReplicaRequirements{
			ResourceRequest: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("2")}}},
	}
	var last string
	harness.Eventually(t, "binding resnet-trainingjob with a launcher and workers", func(ctx context.Context) (bool, error) {
		rb, err := getRB(ctx, "default", "resnet-trainingjob")
		if err != nil {
			return false, client.IgnoreNotFound(err)
		}
		last = fmt.Sprintf("replicas %d requirements %+v components %+v", rb.Spec.Replicas, rb.Spec.ReplicaRequirements, rb.Spec.Components)
		return equality.Semantic.DeepEqual(rb.Spec.Components, want) && rb.Spec.Replicas == 0 && rb.Spec.ReplicaRequirements == nil, nil
	}, harness.LogsIn(env.LogDir))
	t.Logf("binding: %s", last)
}
