// Package rawjson compares raw JSON documents as the values they encode:
// the API server may re-encode what it stores (key order, spacing), so
// bytes that differ can still be the same object.
package rawjson

import (
	"bytes"
	"encoding/json"
	"reflect"
)

// Equal reports whether a and b are identical bytes or decode to equal
// values; a document that does not decode equals only its own bytes.
func Equal(a, b []byte) bool {
	if bytes.Equal(a, b) {
		return true
	}
	var va, vb interface{}
	if json.Unmarshal(a, &va) != nil || json.Unmarshal(b, &vb) != nil {
		return false
	}
	return reflect.DeepEqual(va, vb)
}
