// Package cell is one Application of make upgrade-check through an
// in-place ArgoCD upgrade on a cluster of its own (Feature). On ArgoCD
// FROM the Application is created through the suite's git server, synced
// (or left to ArgoCD's own sync), its render read, deleted with cascade
// (the deletion's baseline), created and synced again, a commit pushed;
// ArgoCD is upgraded in place to TO; TO's controller compares it by
// itself; a removal and a change are pushed, what ArgoCD does with each
// asked nothing; TO's render is compared with FROM's object by object, and
// the cascading deletion tried again. What it read is an Observed, whose
// Reading verdict.Grade turns into the verdict.
package cell
