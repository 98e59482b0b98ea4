package native

import (
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"strings"

	"k8s.io/apimachinery/pkg/api/resource"
)

// The readers below take one value of an unstructured object and accept
// exactly what runtime.DefaultUnstructuredConverter accepts for the typed
// field it stands for: null or absent is the zero value, integers convert
// between widths (truncating, as reflect.Value.Convert does), a float with
// no fraction is an integer, and anything else is an error. Handlers read
// the few fields an operation needs this way instead of converting the
// object: the typed conversion was most of their cost. Errors name the
// field through at, called on the error path only, so that reading costs
// no allocation.

// fieldError is a bad value at a path of the object.
type fieldError struct {
	path []string
	msg  string
	err  error
}

func (e *fieldError) Error() string {
	msg := e.msg
	if e.err != nil {
		msg = e.err.Error()
	}
	if len(e.path) == 0 {
		return msg
	}
	return "." + strings.Join(e.path, ".") + ": " + msg
}

func (e *fieldError) Unwrap() error { return e.err }

// at puts keys in front of the path of err (a nil err stays nil).
func at(err error, keys ...string) error {
	if err == nil {
		return nil
	}
	if fe, ok := err.(*fieldError); ok {
		fe.path = append(append([]string(nil), keys...), fe.path...)
		return fe
	}
	return &fieldError{path: keys, err: err}
}

func typeError(v interface{}, want string) error {
	return &fieldError{msg: fmt.Sprintf("is of type %T, expected %s", v, want)}
}

// mapAt walks path from m; nil when a step is absent or null, an error
// when one is not an object.
func mapAt(m map[string]interface{}, path ...string) (map[string]interface{}, error) {
	for i, key := range path {
		v := m[key]
		if v == nil {
			return nil, nil
		}
		next, ok := v.(map[string]interface{})
		if !ok {
			return nil, at(typeError(v, "an object"), path[:i+1]...)
		}
		m = next
	}
	return m, nil
}

// asMap is v as an object (nil for null).
func asMap(v interface{}) (map[string]interface{}, error) {
	if v == nil {
		return nil, nil
	}
	m, ok := v.(map[string]interface{})
	if !ok {
		return nil, typeError(v, "an object")
	}
	return m, nil
}

// asSlice is v as a list (nil for null).
func asSlice(v interface{}) ([]interface{}, error) {
	if v == nil {
		return nil, nil
	}
	s, ok := v.([]interface{})
	if !ok {
		return nil, typeError(v, "a list")
	}
	return s, nil
}

// asString is v as a string ("" for null).
func asString(v interface{}) (string, error) {
	switch s := v.(type) {
	case string:
		return s, nil
	case nil:
		return "", nil
	}
	return "", typeError(v, "a string")
}

// asBool is v as a bool (false for null).
func asBool(v interface{}) (bool, error) {
	switch b := v.(type) {
	case bool:
		return b, nil
	case nil:
		return false, nil
	}
	return false, typeError(v, "a boolean")
}

// asInt64 is v as an integer (0 for null).
func asInt64(v interface{}) (int64, error) {
	switch n := v.(type) {
	case int64:
		return n, nil
	case nil:
		return 0, nil
	case int:
		return int64(n), nil
	case int32:
		return int64(n), nil
	case float64:
		if n == math.Trunc(n) {
			return int64(n), nil
		}
		return 0, &fieldError{msg: fmt.Sprintf("cannot convert %v to an integer", n)}
	}
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return rv.Int(), nil
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return int64(rv.Uint()), nil
	case reflect.Float32, reflect.Float64:
		if f := rv.Float(); f == math.Trunc(f) {
			return int64(f), nil
		}
		return 0, &fieldError{msg: fmt.Sprintf("cannot convert %v to an integer", v)}
	}
	return 0, typeError(v, "an integer")
}

// asInt32 is v as an int32 field, truncated like the typed conversion.
func asInt32(v interface{}) (int32, error) {
	n, err := asInt64(v)
	return int32(n), err
}

// int32Field is m[key] as an int32 field, the error naming key.
func int32Field(m map[string]interface{}, key string) (int32, error) {
	n, err := asInt32(m[key])
	if err != nil {
		return 0, at(err, key)
	}
	return n, nil
}

// int64Field is m[key] as an int64 field, the error naming key.
func int64Field(m map[string]interface{}, key string) (int64, error) {
	n, err := asInt64(m[key])
	if err != nil {
		return 0, at(err, key)
	}
	return n, nil
}

// stringField is m[key] as a string field, the error naming key.
func stringField(m map[string]interface{}, key string) (string, error) {
	s, err := asString(m[key])
	if err != nil {
		return "", at(err, key)
	}
	return s, nil
}

// asQuantity is v as a resource.Quantity: a string is parsed, another
// value goes through its JSON form as the typed conversion does; null is
// the zero quantity.
func asQuantity(v interface{}) (resource.Quantity, error) {
	var q resource.Quantity
	switch s := v.(type) {
	case nil:
		return q, nil
	case string:
		parsed, err := resource.ParseQuantity(strings.TrimSpace(s))
		if err != nil {
			return q, &fieldError{err: err}
		}
		return parsed, nil
	}
	raw, err := json.Marshal(v)
	if err == nil {
		err = q.UnmarshalJSON(raw)
	}
	if err != nil {
		return q, &fieldError{err: err}
	}
	return q, nil
}

// setOrDelete stores a non-zero integer field and deletes a zero one, as
// the typed conversion of an omitempty field does.
func setOrDelete(m map[string]interface{}, key string, v int64) {
	if v == 0 {
		delete(m, key)
		return
	}
	m[key] = v
}
