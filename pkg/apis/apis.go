// Package apis gathers Propel's Karmada-compatible API groups into one
// runtime.Scheme, together with the Kubernetes built-in types.
package apis

import (
	"k8s.io/apimachinery/pkg/runtime"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"

	appsv1alpha1 "github.com/propel-mc/propel/pkg/apis/apps/v1alpha1"
	autoscalingv1alpha1 "github.com/propel-mc/propel/pkg/apis/autoscaling/v1alpha1"
	clusterv1alpha1 "github.com/propel-mc/propel/pkg/apis/cluster/v1alpha1"
	configv1alpha1 "github.com/propel-mc/propel/pkg/apis/config/v1alpha1"
	mcsv1alpha1 "github.com/propel-mc/propel/pkg/apis/multicluster/v1alpha1"
	networkingv1alpha1 "github.com/propel-mc/propel/pkg/apis/networking/v1alpha1"
	policyv1alpha1 "github.com/propel-mc/propel/pkg/apis/policy/v1alpha1"
	remedyv1alpha1 "github.com/propel-mc/propel/pkg/apis/remedy/v1alpha1"
	workv1alpha1 "github.com/propel-mc/propel/pkg/apis/work/v1alpha1"
	workv1alpha2 "github.com/propel-mc/propel/pkg/apis/work/v1alpha2"
)

var builder = runtime.SchemeBuilder{
	clusterv1alpha1.AddToScheme,
	configv1alpha1.AddToScheme,
	policyv1alpha1.AddToScheme,
	workv1alpha1.AddToScheme,
	workv1alpha2.AddToScheme,
	appsv1alpha1.AddToScheme,
	remedyv1alpha1.AddToScheme,
	autoscalingv1alpha1.AddToScheme,
	networkingv1alpha1.AddToScheme,
	mcsv1alpha1.AddToScheme,
}

// AddToScheme adds every Karmada group Propel serves.
var AddToScheme = builder.AddToScheme

// Scheme holds the Kubernetes built-in types and every Karmada group.
var Scheme = runtime.NewScheme()

func init() {
	utilruntime.Must(clientgoscheme.AddToScheme(Scheme))
	utilruntime.Must(AddToScheme(Scheme))
}
