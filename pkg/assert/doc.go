// Package assert holds the suite's bounded waits and the verbs scenarios use.
// Every wait is named, bounded, and on failure says what it saw last:
//
//	wait Application argocd/kube-ovn Synced (<=3m0s): saw OutOfSync/Healthy, operation Succeeded
package assert
