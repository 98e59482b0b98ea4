package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// emptyStatusCustomization aggregates into the statuses Karmada keeps or
// removes: statusItems.mode picks the shape.
const emptyStatusCustomization = `apiVersion: config.karmada.io/v1alpha1
kind: ResourceInterpreterCustomization
metadata: {name: empty-status}
spec:
  target: {apiVersion: workload.example.io/v1alpha1, kind: Workload}
  customizations:
    statusAggregation:
      luaScript: |
        function AggregateStatus(desiredObj, statusItems)
          if statusItems == nil then
            desiredObj.status = {items = "nil"}
            return desiredObj
          end
          local mode = ""
          if #statusItems > 0 then
            mode = statusItems[1].status.mode
          end
          if mode == "emptyTable" then
            desiredObj.status = {}
          elseif mode == "emptyMembers" then
            desiredObj.status = {active = {}, conditions = {}}
          else
            -- No items, or an empty type: a global named type, as in
            -- Karmada's AdvancedCronJob aggregation.
            type = ''
            desiredObj.status = {active = {}, type = type}
          end
          return desiredObj
        end
`

// The -f path keeps what Karmada keeps: an empty status is removed, a
// status whose members were all empty stays {}, an empty string stays; an
// empty list of status items is an empty table, not nil.
func TestInterpretAggregateEmptyStatuses(t *testing.T) {
	dir := t.TempDir()
	customization, desired := filepath.Join(dir, "customization.yaml"), filepath.Join(dir, "workload.yaml")
	if err := os.WriteFile(customization, []byte(emptyStatusCustomization), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(desired, []byte(workload), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name, items, want string
	}{
		{"empty table", `[{"clusterName":"m1","status":{"mode":"emptyTable"}}]`, `<absent>`},
		{"members all empty", `[{"clusterName":"m1","status":{"mode":"emptyMembers"}}]`, `{}`},
		{"empty string", `[{"clusterName":"m1","status":{"mode":"emptyString"}}]`, `{"type":""}`},
		{"empty list of items", `[]`, `{"type":""}`},
	} {
		t.Run(c.name, func(t *testing.T) {
			out, err := runInterpret(t, c.items, "-f", customization, "--operation", "AggregateStatus",
				"--desired-file", desired, "--status-file", "-", "-o", "json")
			if err != nil {
				t.Fatalf("%v\n%s", err, out)
			}
			var got struct {
				Aggregated map[string]json.RawMessage `json:"aggregatedStatus"`
			}
			if err := json.Unmarshal([]byte(out), &got); err != nil {
				t.Fatalf("not JSON: %v\n%s", err, out)
			}
			status := "<absent>"
			if raw, ok := got.Aggregated["status"]; ok {
				status = string(compactJSON(t, raw))
			}
			if status != c.want {
				t.Errorf("status: got %s, want %s", status, c.want)
			}
		})
	}
}

func compactJSON(t *testing.T, raw json.RawMessage) []byte {
	t.Helper()
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatal(err)
	}
	out, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return out
}
