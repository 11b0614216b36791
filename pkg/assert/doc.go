// Package assert holds the suite's bounded, named waits (Eventually,
// Consistently, their Intervals) and the verdict verbs scenarios end on.
// Every wait is named, bounded, and on failure says what it saw last:
//
//	wait Application argocd/kube-ovn Synced (<=3m0s): saw OutOfSync/Healthy, operation Succeeded
package assert
