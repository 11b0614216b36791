// Package sources fetches a component's files (CRDs, charts, manifests) at a
// pinned version from its Go module zip on the module proxy, and finds the
// source trees a user provides where the proxy does not serve a project whole
// (Trees: Kargo, ArgoCD from 3.3), checkouts or archives, and what they were
// made from (TreeCommit).
//
// The module zip serves both modes: it holds the release's tree, the module
// proxy is reachable wherever the internet is, and online then differs from
// offline only where it must (images pulled instead of built). Get fetches
// what only a URL serves (online: release assets, chart repositories).
package sources
