// Package appcell is a user's Application in a cell: what make conform
// (pkg/conform, a chart's bug classes) and make upgrade-check (pkg/upgrade,
// Applications through an ArgoCD upgrade) share, each of them the thin part
// that differs.
//
// It owns:
//   - finding the source on this machine: a chart directory, a directory or
//     .tgz holding charts, a chart repository online (LocalChart, RepoChart),
//     or a tree of manifests (Sources);
//   - the rendered-manifest model: a chart or render as ArgoCD applies it,
//     its hooks, workloads, webhooks, Services and CRDs (Rendered);
//   - the cell's skeleton (Cell): the images given to the node, the
//     namespace made beforehand, the webhook configurations there before
//     the install, those of the Application released at the end;
//   - the run-time scenario's options and plan: where the options are read
//     (Where), the images and recipes (LocalImages, Recipes), the known
//     answers (Expectations), the replay command (Command) and the matrix
//     data of the one scenario each run makes (Plan).
package appcell
