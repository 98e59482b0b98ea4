package interpreter

import (
	"errors"
	"fmt"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	utiljson "k8s.io/apimachinery/pkg/util/json"
)

// ErrNoContent is returned when there is no object to decode.
var ErrNoContent = errors.New("there is no content to decode")

// Decoder decodes the objects carried by a Request.
type Decoder struct {
	codecs serializer.CodecFactory
}

// NewDecoder returns a Decoder for the types registered in scheme.
func NewDecoder(scheme *runtime.Scheme) *Decoder {
	return &Decoder{codecs: serializer.NewCodecFactory(scheme)}
}

// Decode decodes req.Object into into.
func (d *Decoder) Decode(req Request, into runtime.Object) error {
	return d.DecodeRaw(req.Object, into)
}

// DecodeRaw decodes raw into into. Unstructured targets get a plain JSON
// decode (integers become int64); typed targets go through the scheme's
// universal deserializer, so their kind must be registered.
func (d *Decoder) DecodeRaw(raw runtime.RawExtension, into runtime.Object) error {
	if len(raw.Raw) == 0 {
		return ErrNoContent
	}
	if u, ok := into.(*unstructured.Unstructured); ok {
		if err := utiljson.Unmarshal(raw.Raw, &u.Object); err != nil {
			return fmt.Errorf("decode object: %w", err)
		}
		return nil
	}
	if _, _, err := d.codecs.UniversalDeserializer().Decode(raw.Raw, nil, into); err != nil {
		return fmt.Errorf("decode object: %w", err)
	}
	return nil
}
