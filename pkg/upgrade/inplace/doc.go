// Package inplace upgrades a running ArgoCD in place the way a team does it
// (the method: client-side or server-side apply of the release's
// install.yaml), then waits for the new release to run, and when it cannot
// finish says so at once, with the cause the cluster gave and whose object
// it is: the cell concludes BROKEN there (make upgrade-check).
package inplace
