// Package check holds the looks at the cluster scenarios judge by: each an
// assert.Check (ok, what it saw, error), resolved against the run in ctx when
// it runs. Objects (Exists, JSONPathIs, Accepted ...), workloads (RolledOut,
// ReadyEndpoints, EventSeen, FinalizerPending) and Applications
// (SyncStatusIs, HealthIs, OperationPhaseIs ...).
package check
