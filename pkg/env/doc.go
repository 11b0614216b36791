// Package env is the verbs scenarios are written in: steps (features.Func)
// that act on the cluster the way a user or ArgoCD would (PushRepo,
// CreateApp, Sync, Apply, DeleteApp, Label, RemoveFinalizer ...), record what
// they did in the cell's steps and register their cleanup, plus the
// observation and flow steps (Observe, ObserveWithin, Snapshot, If, Unless,
// InOrder). Checks are in pkg/check, fixtures in pkg/fixture, waits and
// verdicts in pkg/assert; the run's lifecycle is pkg/lifecycle.
package env
