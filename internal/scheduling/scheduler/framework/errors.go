package framework

import (
	"errors"
	"fmt"
	"sort"
	"strings"
)

// FitError reports that no cluster passed the filters. Reasons counts the
// clusters per failure reason; NumAllClusters is the snapshot size.
type FitError struct {
	NumAllClusters int
	Reasons        map[string]int
}

// Error is Karmada's message: "0/<N> clusters are available: <sorted
// "count reason" list joined by ", ">.", or "0/0 clusters are available: no
// cluster exists." for an empty snapshot.
func (e *FitError) Error() string {
	if e.NumAllClusters == 0 {
		return "0/0 clusters are available: no cluster exists."
	}
	histogram := make([]string, 0, len(e.Reasons))
	for reason, count := range e.Reasons {
		histogram = append(histogram, fmt.Sprintf("%d %s", count, reason))
	}
	sort.Strings(histogram)
	return fmt.Sprintf("0/%d clusters are available: %s.", e.NumAllClusters, strings.Join(histogram, ", "))
}

// UnschedulableError reports that the fitting clusters cannot hold the
// replicas; the binding is retried later.
type UnschedulableError struct {
	Message string
}

func (e *UnschedulableError) Error() string { return e.Message }

// IsFitError reports whether err is or wraps a FitError.
func IsFitError(err error) bool {
	var fe *FitError
	return errors.As(err, &fe)
}

// IsUnschedulable reports whether err is or wraps an UnschedulableError.
func IsUnschedulable(err error) bool {
	var ue *UnschedulableError
	return errors.As(err, &ue)
}
