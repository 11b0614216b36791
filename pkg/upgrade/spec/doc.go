// Package spec is what a make upgrade-check run checks, read before
// anything starts: its settings (Options, each declared once in Settings:
// its make variable, flag, validation key and help), the Applications of
// APPS or of a team's repository (REPO, REPOS: the fleet) with their
// sources, CHANGE's patches and SHARD's part, resolved into a Spec
// (Options.Resolve). A user error is one line naming the setting.
package spec
