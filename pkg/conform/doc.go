// Package conform is make conform: the bug classes the scenarios
// reproduced, asked of any Helm chart. The chart (a directory, a directory
// or .tgz holding charts, or a chart repository online) is found, read and
// rendered before anything starts (Options.Resolve: a user error is one
// line, exit 2); each check is then a cell of the usual report, of the
// scenario conform made from the chart at run time (Spec.Plan), never of
// suites/matrix.yaml.
//
// Every cell installs the chart the same way: through an ArgoCD Application
// from the in-cluster git server, as release RELEASE into NAMESPACE, which
// the cell creates beforehand without labels (CreateNamespace=false), as
// platform teams do. Then its check (Checks):
//
//   - crd-diff (kubeovn-argocd): after a sync and a hard refresh the
//     Application does not become Synced and stay so; the resources ArgoCD
//     shows OutOfSync and the chart's fields the live objects lack are recorded.
//   - hook-stuck (kyverno-argocd): a sync held Running by a hook ArgoCD
//     deleted with its hook finalizer still on.
//   - self-blocking-webhook (openkruise-webhook): a workload of the chart
//     blocked by a webhook of the chart, its Pods rejected, once the
//     workloads serving the webhooks are replaced while none runs.
//   - leftover-webhook (knative-argocd): after a cascading deletion, a
//     webhook configuration of the chart left calling a service that is
//     gone; one failing closed is proven by a rejected dry run.
//   - namespace-kept (kargo-argocd): the namespace made beforehand, with a
//     ConfigMap and a Secret in it, deleted or emptied with the chart.
//   - deletion-hooks (openkruise-guard-argocd): after a cascading deletion,
//     the Application not gone after each of the chart's deletion hook Jobs
//     completed: ArgoCD held it on an error of its own, or deleted past a
//     hook that had not completed.
//
// REPRODUCED means the chart shows the class, NOT_REPRODUCED that it does
// not, ERROR that the run could not tell (a read that failed is never "not
// found"). A chart is expected to pass every check; make conform-validate
// runs the seeds' charts against their known answers (suites/conform.yaml).
//
// It is the thin part of make conform: the chart found and rendered, the
// cell's skeleton and the options and plan are pkg/appcell's, shared with
// make upgrade-check; the looks its checks judge by are pkg/check's.
package conform
