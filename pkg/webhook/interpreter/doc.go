// Package interpreter is the Go SDK for authors of resource interpreter
// webhooks: the HTTP endpoint Karmada (and Propel) call with a
// ResourceInterpreterContext. It owns the request/response wrappers, the
// Handler contract, decoding of the objects carried by a request, the
// http.Handler that speaks the wire protocol, and response helpers
// (Succeeded, Errored, ValidationResponse, PatchResponseFromRaw).
//
// A webhook author writes a Handler and serves it:
//
//	decoder := interpreter.NewDecoder(scheme)
//	http.Handle("/interpreter-workload", interpreter.NewWebhook(myHandler, decoder))
package interpreter
