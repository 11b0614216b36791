// Package gitrepo is a team's git repository as make upgrade-check takes
// it: a checkout (REPO, REPOS) served with its history (Repo.Bundle: every
// branch and tag, the served URL written where the repository's own files
// name it), the URLs the Applications name pointed at the served copy
// (Repo.Rewrite); the fleet fixture and make bench-upgrade-check's fleet
// written as checkouts with history (WriteTeamRepo, WriteBenchRepo); and
// the ArgoCD upgrade a pull request makes, read from the files it changes
// (FindBump: image tags, install URLs, the argo-cd chart's version), for
// the upgrade-check workflow. It runs git; pkg/upgrade does not.
package gitrepo
