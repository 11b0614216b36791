// Package lifecycle is the life of a run and of its cells, carried in ctx:
// preflight, the cluster, ArgoCD's install and upgrade, the git server,
// evidence and cleanup.
//
// The state of a run (*Run: mode, images, the cluster, the installed ArgoCD
// release, the git server) and of a cell (*Cell: evidence, steps, cleanups)
// travel in ctx under unexported keys; the e2e-framework env funcs come in
// symmetric pairs (Preflight, CreateCluster/DestroyCluster), beside the Run's
// methods the runner calls (InstallArgoCD/UninstallArgoCD, UpgradeArgoCD,
// End). Scenarios do not import it: they use pkg/env, pkg/check, pkg/fixture
// and pkg/assert.
package lifecycle
