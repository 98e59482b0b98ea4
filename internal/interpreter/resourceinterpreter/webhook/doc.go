// Package webhook is the customized-webhook layer of the resource
// interpreter: it answers an interpreter operation by calling the webhook a
// ResourceInterpreterWebhookConfiguration registers for the object's kind.
//
// It owns, in this order of a call: the configuration snapshot (loaded from
// an informer or LoadConfig, published atomically) and its match index; one
// pooled HTTPS client per distinct clientConfig (URL or Service, caBundle),
// kept across reloads while the clientConfig is unchanged; the Karmada
// ResourceInterpreterContext wire protocol (request encoding, response
// verification with Karmada's messages, JSON Patch application). Returned
// dependencies go through layer.ValidateDependencies, the validator every
// layer shares.
//
// Every failure is an error "failed calling webhook "<config>/<hook>": …";
// there is no fall-through to lower layers and no panic on bad answers.
package webhook
