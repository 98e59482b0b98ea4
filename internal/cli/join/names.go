package join

import (
	"fmt"

	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/propel-mc/propel/internal/shared/names"
)

// maxClusterNameLength is Karmada's bound on a Cluster's name: the name is
// embedded in other names (karmada-es-<cluster>, karmada-<cluster>).
const maxClusterNameLength = 48

// validateClusterName refuses what Karmada's Cluster validation refuses.
func validateClusterName(name string) error {
	if name == "" {
		return fmt.Errorf("cluster name is required")
	}
	if len(name) > maxClusterNameLength {
		return fmt.Errorf("invalid cluster name %q: must be no more than %d characters", name, maxClusterNameLength)
	}
	if errs := validation.IsDNS1123Label(name); len(errs) > 0 {
		return fmt.Errorf("invalid cluster name %q: %v", name, errs)
	}
	return nil
}

// serviceAccountName is karmadactl's name for the identity Karmada's
// controllers use in the member; its token Secret has the same name.
func serviceAccountName(cluster string) string { return "karmada-" + cluster }

// clusterRoleName names the member's ClusterRole and its binding for the
// controllers' ServiceAccount.
func clusterRoleName(cluster string) string {
	return "karmada-controller-manager:" + serviceAccountName(cluster)
}

// impersonatorSecretName is the control plane's copy of the member's
// impersonator token.
func impersonatorSecretName(cluster string) string { return cluster + "-impersonator" }

// systemLabels mark everything join creates as Karmada's.
func systemLabels() map[string]string { return map[string]string{names.SystemLabel: "true"} }

// The keys of the control plane's credentials Secrets, as Karmada's
// cluster clients read them.
const (
	secretTokenKey  = "token"
	secretCADataKey = "caBundle"
)
