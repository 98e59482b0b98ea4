package eviction

import (
	"bytes"
	"encoding/json"
	"fmt"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/util/jsonpath"

	policyv1alpha1 "github.com/propel-mc/propel/pkg/apis/policy/v1alpha1"
	workv1alpha2 "github.com/propel-mc/propel/pkg/apis/work/v1alpha2"
)

// ErrStatusNotCollected is returned (wrapped) by PreservedLabelStateOf
// when the evicted cluster's status is not in the binding yet: the
// eviction must wait for it.
var ErrStatusNotCollected = fmt.Errorf("the application status has not yet been collected")

// PreservedLabelStateOf evaluates rules over the status the binding
// collected from cluster (status.aggregatedStatus[cluster].status, the
// reflected status, so paths look like {.availableReplicas}) and returns
// the alias label values. It fails when the status is missing, when a
// path does not parse, or when it matches nothing.
func PreservedLabelStateOf(b workv1alpha2.Binding, cluster string, rules []policyv1alpha1.StatePreservationRule) (map[string]string, error) {
	var status *runtime.RawExtension
	for _, item := range b.BindingStatus().AggregatedStatus {
		if item.ClusterName == cluster {
			status = item.Status
			break
		}
	}
	if status == nil || len(status.Raw) == 0 || string(status.Raw) == "null" {
		return nil, fmt.Errorf("%w from Cluster(%s)", ErrStatusNotCollected, cluster)
	}
	return PreservedLabelState(status.Raw, rules)
}

// PreservedLabelState evaluates every rule's jsonPath (Kubernetes JSONPath
// template syntax, missing keys an error) over the JSON document status
// and stores the text under the rule's aliasLabelName. Values print as Go
// prints decoded JSON (2 -> "2", 1000000 -> "1e+06"); several matches are
// separated by spaces (Karmada's rendering).
func PreservedLabelState(status []byte, rules []policyv1alpha1.StatePreservationRule) (map[string]string, error) {
	var doc any
	if err := json.Unmarshal(status, &doc); err != nil {
		return nil, fmt.Errorf("decode the collected status: %w", err)
	}
	out := make(map[string]string, len(rules))
	for i, rule := range rules {
		v, err := evaluate(doc, rule.JSONPath)
		if err != nil {
			return nil, fmt.Errorf("statePreservation.rules[%d] (%s): jsonPath %q: %w", i, rule.AliasLabelName, rule.JSONPath, err)
		}
		out[rule.AliasLabelName] = v
	}
	return out, nil
}

func evaluate(doc any, path string) (text string, err error) {
	// The jsonpath package is not written for hostile templates; a panic
	// in it must not take the controller down.
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("evaluation failed: %v", r)
		}
	}()
	j := jsonpath.New("statePreservation")
	j.AllowMissingKeys(false)
	if err := j.Parse(path); err != nil {
		return "", err
	}
	var buf bytes.Buffer
	if err := j.Execute(&buf, doc); err != nil {
		return "", err
	}
	return buf.String(), nil
}
