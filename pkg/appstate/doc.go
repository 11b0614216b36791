// Package appstate is what an ArgoCD Application shows at one point of a
// check, read from its status and ArgoCD's API server (State, Of, Explain),
// and how two readings differ: the answers ArgoCD acts on (Differences) and
// two releases' renders, object by object and field by field (Compare).
// make upgrade-check grades an upgrade by them (pkg/upgrade).
package appstate
