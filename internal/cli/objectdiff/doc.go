// Package objectdiff lists the fields two JSON-shaped values (decoded
// objects, interpreter answers) differ in, as dotted paths with both
// values. explain uses it for the fields Retain keeps, interpret --replay
// for the differences between two configurations' answers.
package objectdiff
