package bindingstatus

import (
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// Cache indexes of Works by the permanent id of the binding they were
// derived from (the value of the binding's permanent-id label).
const (
	IndexWorksByResourceBindingID        = "bindingstatus.works.byResourceBindingID"
	IndexWorksByClusterResourceBindingID = "bindingstatus.works.byClusterResourceBindingID"
)

func labelIndex(label string) client.IndexerFunc {
	return func(obj client.Object) []string {
		if v := obj.GetLabels()[label]; v != "" {
			return []string{v}
		}
		return nil
	}
}
