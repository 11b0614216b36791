// Package sources fetches a component's files (CRDs, charts, manifests) at a
// pinned version from the component's Go module zip on the module proxy, in
// both modes: the zip holds the release's tree, the module proxy is reachable
// wherever the internet is, and online then differs from offline only where it
// must (images pulled instead of built). Get fetches what only a URL serves
// (online: release assets, chart repositories). Find is the one place a
// directory or an archive a user provides is searched: Trees finds in it the
// source trees of what the module proxy does not serve whole (Kargo, ArgoCD
// from 3.3), UserCharts and Charts the Helm charts; TreeCommit says what a
// tree was made from.
package sources
