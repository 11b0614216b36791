package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/gitops-conformance/suite/pkg/argocd"
	"github.com/gitops-conformance/suite/pkg/catalog"
	"github.com/gitops-conformance/suite/pkg/matrix"
	"github.com/gitops-conformance/suite/pkg/runner"
)

// cli is what a command runs with: the catalog and the matrix main loaded,
// and where its output goes.
type cli struct {
	cat    *catalog.Catalog
	data   *matrix.Data
	stdout io.Writer
}

// command is one subcommand: its words after `conformance`, its usage and
// what runs it. Its help (-h) and docs/cli.md come from this table and its
// flag set, so a new command is listed, documented and tested by being here.
type command struct {
	name     string // "report diff"
	args     string // what follows the flags in its usage line: "OLD NEW"
	synopsis string
	// run declares the command's flags on fs, parses args with them
	// (parse) and runs. With -h, parse returns flag.ErrHelp before anything
	// is done, and the command's help is printed from fs.
	run func(ctx context.Context, c cli, fs *flag.FlagSet, args []string) error
}

// commands is the CLI: every subcommand, in the order help lists them.
func commands() []command {
	return []command{
		{name: "list", synopsis: "each scenario's quick tier by cell ID with its measured outcome; -wide: every axis (make list)",
			run: selectionCommand("list")},
		{name: "check", synopsis: "validate a selection (make e2e's flags); exit 2 with one line if invalid; with -limit, the plan and its estimate, and the run's settings for make (-run-file)",
			run: selectionCommand("check")},
		{name: "plan", synopsis: "a selection's cells and how long they take on 1..8 clusters, from the times measured in the reports (-reports, default reports/) (make plan)",
			run: selectionCommand("plan")},
		{name: "releases", synopsis: "the releases a run can test now, read from the module proxy (online also the modules' repositories): the supported ArgoCD lines' patches, the seed pins, each component's newest release, what this mode cannot build or pull and why, and the nightly's shards; a table, or JSON (make releases)",
			run: releasesCommand},
		{name: "tested-ranges", synopsis: "read the Kubernetes versions each ArgoCD release suites/matrix.yaml names was tested on, from the release's own " + argocd.TestedFile + " (its module zip), and write them to -o (make tested-ranges)",
			run: testedRangesCommand},
		{name: "report merge", args: "DIR...", synopsis: "merge the reports in DIR... (each holds report.json) into -o OUTDIR (make report-merge)",
			run: reportMerge},
		{name: "report render", args: "DIR", synopsis: "render report.md, report.html and junit.xml again from DIR/report.json (make report-render)",
			run: reportRender},
		{name: "report summary", args: "DIR", synopsis: "print DIR's report as a Markdown job summary (for $GITHUB_STEP_SUMMARY)",
			run: reportSummary},
		{name: "report phases", args: "DIR", synopsis: "where DIR's run spent its time: per cell and in all, by phase (build, cluster, install, steps, waits, holds, evidence, teardown), the run's setup and wall (make bench-quick)",
			run: reportPhases},
		{name: "report compare", args: "BASE OTHER", synopsis: "two runs of the same cells side by side (make bench): wall times, their ratio, per-scenario times, every cell's outcome; exit 1 when an outcome differs",
			run: reportCompare},
		{name: "report diff", args: "OLD NEW", synopsis: "what changed from one night's report to the next: every cell whose outcome changed, every new release that ran, every cell that stopped running (Markdown); exit 1 when a change fails the nightly: on a supported ArgoCD line (every line without -supported), not reported before in the site's nights (-history) (make report-diff)",
			run: diffCommand},
		{name: "report history", args: "SITE", synopsis: "render SITE's index.html (per scenario, ArgoCD release x component version, the outcome's history as a mark per night) and each night's page from SITE/nights/<night>/report.json (make report-history)",
			run: historyCommand},
		{name: "report nightly-merge", args: "OUT", synopsis: "the nightly's merge step: the reports the shards left under OUT/shards/<shard>/ merged into OUT; with -site, compared with the newest night there (OUT/diff.json, OUT/diff.md); the job summary (the comparison, the merged report's summary, the shards without a report); exit 1 when no shard left a report or a change fails the nightly (as report diff) (make merge-check)",
			run: nightlyMerge},
		{name: "report publish", args: "OUT SITE", synopsis: "the nightly's publish step: the merged report in OUT (with its diff) added to the published history SITE as a night, named by when it started (a re-run replaces it), nights beyond -keep-nights removed, and the site rendered again (report history); commits nothing",
			run: reportPublish},
		{name: "report night", args: "DIR", synopsis: "the name DIR's merged report has as a night of the published history (when it started, UTC)",
			run: reportNight},
		{name: "registry start", synopsis: "start the suite's local registry (built by images/registry) on the kind network; prints REGISTRY_MIRROR=<address> last",
			run: registryCommand("start")},
		{name: "registry push", args: "IMAGE...", synopsis: "push local images into the registry under their upstream paths",
			run: registryCommand("push")},
		{name: "registry stop", synopsis: "remove the registry's container (its data stays in the cache directory)",
			run: registryCommand("stop")},
		{name: "registry nodes", args: "NODE...", synopsis: "make kind nodes (containers) pull the upstream names through the registry",
			run: registryCommand("nodes")},
		{name: "registry containerd-patch", synopsis: "print the kind containerdConfigPatches entry that enables hosts.toml",
			run: registryCommand("containerd-patch")},
		{name: "repro run", args: "DIR...", synopsis: "run the reproduction bundle of each cell under DIR... (a report or a cell's evidence directory) on a new kind cluster, one at a time; write whether it reached the cell's verdict into its README (offline: the suite's images, node image, kind and install.yaml) (make repro)",
			run: reproRun},
		{name: "conform validate", args: "[-- TEST_BINARY_FLAGS...]", synopsis: "make conform-validate: each validation of suites/conform.yaml (a chart a scenario measured, installed as it installed it) one make conform run (the e2e test binary's TestConform) expecting its known answers, one after the other on one kind cluster kept between runs (-parallel N: N clusters); each run's report and output in a directory of its own under reports/conform-validate-<time>/; writes -table; exit 1 when an answer differs or a run wrote no report; the arguments go to the test binary (-mode, -registry-mirror ...)",
			run: conformAnswers().validate},
		{name: "upgrade-check validate", args: "[-- TEST_BINARY_FLAGS...]", synopsis: "make upgrade-check-validate: each validation of suites/upgrade-check-validate.yaml (an upgrade path, Applications and settings, the verdicts measured there) one make upgrade-check run (the e2e test binary's TestUpgradeCheck) expecting them, -parallel runs side by side each on a kind cluster of its own, each run's report and output in a directory of its own under reports/upgrade-check-validate-<time>/; writes -table (with -only: the selected validations' table, beside their reports); exit 1 when an answer differs or a run wrote no report; the arguments go to the test binary (-mode, -registry-mirror ...)",
			run: upgradeCheckAnswers().validate},
		{name: "table", args: "DIR...", synopsis: "a known-answers run's table again from its reports (make conform-validate's or make upgrade-check-validate's: each DIR a reports/conform-validate-<time>/ or reports/upgrade-check-validate-<time>/, one kind), for the validations they ran (a validation run in several: from the last DIR); exit 1 when an answer differs or has no report",
			run: answersTable},
		{name: "upgrade-check check", synopsis: "make upgrade-check's input checked before anything is built: the releases, the Applications and their sources; exit 2 with one line",
			run: upgradeCheckInput},
		{name: "upgrade-check settings", synopsis: "make upgrade-check's settings, declared once (pkg/upgrade/spec/settings.go): each one's make variable, flag, key in suites/upgrade-check-validate.yaml and meaning",
			run: upgradeCheckSettings},
		{name: "upgrade-check apps", synopsis: "make upgrade-check's default APPS (suites/upgrade-check.yaml): each seed's chart made as DIR/NAME/ and its Application written as DIR/NAME.yaml; a line per Application (its name, file and chart); exit 2 when one cannot be made (a variable unset, a module the proxy refuses)",
			run: upgradeCheckApps},
		{name: "upgrade-check fleet-repo", synopsis: "a fleet as a git checkout with history for make upgrade-check REPO=: the fleet fixture (fixtures/fleet/team-gitops: ApplicationSets with Git, Matrix and List generators, a multi-source Application with a $values file, an app-of-apps parent, a kustomize Application) or, with -n N, make bench-upgrade-check's fleet of N Applications; its Application and ApplicationSet files under DIR/apps",
			run: upgradeCheckFleetRepo},
		{name: "upgrade-check bench", args: "REPORT_DIR", synopsis: "make bench-upgrade-check's figures from a fleet run's report: each phase's seconds (the cluster and ArgoCD's install, the repositories served, the Applications created and generated, each release's settling and reads, the upgrade), the wall time and Applications per second, as Markdown",
			run: upgradeCheckBench},
		{name: "upgrade-check pr", synopsis: "the ArgoCD upgrade a pull request makes, for the upgrade-check workflow: the release the files it changes pin (an argocd image tag, upstream's install manifests' URL or remote base, the argo-cd chart's version through -chart-index) at -base and at -head of the checkout -repo, as from=, to= and files= lines ($GITHUB_OUTPUT's form); exit 2 with one line when it moves none, several or backwards",
			run: upgradeCheckPR},
		{name: "cluster delete", synopsis: "delete the suite's kind cluster, a parallel run's NAME-<n> and their registries, with the kind binary the suite built (make cluster-delete)",
			run: clusterDelete},
		{name: "selftest fault", synopsis: "make fault-test: the kubeovn-argocd bug cell on a cluster of its own, its API server taken away (-fault kill: kube-apiserver killed again and again; pause: the node frozen) during the verdict's hold; passes when the cell ends REPRODUCED (the outage waited out) or ERROR (could not tell), never NOT_REPRODUCED; last line \"fault-test: N passed, M failed\"",
			run: selftestFault},
		{name: "selftest interrupt", synopsis: "make interrupt-test: real runs on a cluster of their own sent SIGINT (as a terminal's Ctrl-C) at a build, at a cell, and a two-cluster run at its cells; each must exit 130 within -limit, leave no process of its session and no container of its cluster, and write a report that says interrupted (the cell ERROR, the rest not run); last line \"interrupt-test: N passed, M failed\"",
			run: selftestInterrupt},
		{name: "selftest mirror", synopsis: "make mirror-check: the online pull path for real: the suite's registry as the registry mirror, holding the smoke release's offline builds; the smoke cell online pulls through it; checks the report and the pulls (containerd's and the registry's logs, written to <report>/mirror-pulls.txt); the registry is removed at the end (not with -keep-registry)",
			run: selftestMirror},
		{name: "bench quick", synopsis: "make bench-quick: each scenario's quick tier as make e2e runs it (the binaries' build included), one after the other: the plan's estimate, the wall time and each cell's phases from the run's own report; written to reports/benchmarks/<time>-quick.md; exit 1 when a run fails, writes no report or takes longer than -budget",
			run: benchQuick},
		{name: "bench matrix", synopsis: "make bench: the matrix run twice, warm: sequential (one cluster, kind load) and on -parallel clusters with -deliver; wall times, their ratio, per-scenario times and every cell's outcome compared (report compare), written to reports/benchmarks/<time>-matrix.md; exit 1 when an outcome differs; -scenario, -variant, -argocd narrow both runs",
			run: benchMatrix},
		{name: "bench infra", synopsis: "make bench-infra: the node image assembled with its binaries cached, a cluster created to node Ready, per ArgoCD release its images, kind load and install to rolled out, and cluster reuse (the same cells on a fresh cluster each against one reused); written to reports/benchmarks/<time>.md",
			run: benchInfra},
		{name: "bench delivery", synopsis: "make bench-delivery: offline images to a node, per ArgoCD release per cluster: kind load against one push into the suite's registry plus a pull per node through it; written to reports/benchmarks/<time>-delivery.md",
			run: benchDelivery},
		{name: "bench probe", synopsis: "make bench-probe: the CPU probe the plan scales build figures measured on another machine by (pkg/runner/coldcost.yaml): -n probes, each the median of three rounds of a fixed piece of work on every core, the load average beside; then the median against each machine of coldcost.yaml",
			run: benchProbe},
		{name: "bench builds", synopsis: "make bench-builds: each component release of -builds (component@version) built as on a new machine, one after the other: its images and its recipe's base images removed, the recipe run as the prebuild runs it with empty Go build and module caches (the Go toolchain's download copied in) and an empty cache directory (the node image's Kubernetes binaries linked in: kyverno's hook image carries kubectl); the CPU probe before; written to reports/benchmarks/<time>-builds.md, where pkg/runner/coldcost.yaml's figures come from; a build that fails is a row saying so, the others go on, exit 1",
			run: benchBuilds},
		{name: "catalog defaults", synopsis: "what the Makefile takes from pkg/catalog/catalog.yaml (each source's default path, the smoke's ArgoCD release, the default Kubernetes version), as make assignments: make writes them to bin/catalog.mk and includes it",
			run: catalogDefaults},
		{name: "help", args: "[COMMAND...]", synopsis: "the commands, or one command's usage and flags; -markdown: the CLI reference (docs/cli.md)",
			run: helpCommand},
	}
}

// execute runs the command args name (conformance's arguments).
func execute(ctx context.Context, c cli, args []string) error {
	if len(args) == 0 || isHelp(args[0]) && args[0] != "help" {
		return helpCommand(ctx, c, flag.NewFlagSet("conformance help", flag.ContinueOnError), nil)
	}
	cmd, rest, ok := lookup(args)
	if !ok {
		subs := subcommands(args[0])
		if len(subs) == 0 {
			return &runner.BadInput{Err: fmt.Errorf("unknown command %q (valid: %s)", args[0], strings.Join(groups(), ", "))}
		}
		if len(args) > 1 && isHelp(args[1]) {
			_, err := io.WriteString(c.stdout, commandListing(subs))
			return err
		}
		if len(args) == 1 {
			return &runner.BadInput{Err: fmt.Errorf("%s: want %s", args[0], strings.Join(subs.last(), ", "))}
		}
		return &runner.BadInput{Err: fmt.Errorf("%s: unknown subcommand %q (valid: %s)", args[0], args[1], strings.Join(subs.last(), ", "))}
	}
	fs := flag.NewFlagSet("conformance "+cmd.name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	err := cmd.run(ctx, c, fs, rest)
	if !errors.Is(err, flag.ErrHelp) {
		return err
	}
	_, err = io.WriteString(c.stdout, usage(cmd, fs))
	return err
}

// parse parses a command's flags: -h is flag.ErrHelp (execute prints the
// help), any other error bad input.
func parse(fs *flag.FlagSet, args []string) error {
	err := fs.Parse(args)
	if err == nil || errors.Is(err, flag.ErrHelp) {
		return err
	}
	return &runner.BadInput{Err: fmt.Errorf("%s: %w", strings.TrimPrefix(fs.Name(), "conformance "), err)}
}

func isHelp(arg string) bool {
	return arg == "-h" || arg == "-help" || arg == "--help" || arg == "help"
}

// lookup finds the command args name and the arguments after its name.
func lookup(args []string) (command, []string, bool) {
	for _, cmd := range commands() {
		words := strings.Fields(cmd.name)
		if len(args) >= len(words) && slices.Equal(args[:len(words)], words) {
			return cmd, args[len(words):], true
		}
	}
	return command{}, nil, false
}

type commandList []command

// last is each command's last word: a group's subcommands.
func (l commandList) last() []string {
	var s []string
	for _, c := range l {
		s = append(s, c.name[strings.LastIndex(c.name, " ")+1:])
	}
	return s
}

// subcommands are the commands under group (report: report merge, ...).
func subcommands(group string) commandList {
	var l commandList
	for _, c := range commands() {
		if strings.HasPrefix(c.name, group+" ") {
			l = append(l, c)
		}
	}
	return l
}

// groups are the first words of the commands.
func groups() []string {
	var g []string
	for _, c := range commands() {
		if first, _, _ := strings.Cut(c.name, " "); !slices.Contains(g, first) {
			g = append(g, first)
		}
	}
	return g
}

// flagsOf is a command's flag set with its flags declared: its run with -h.
func flagsOf(cmd command) *flag.FlagSet {
	fs := flag.NewFlagSet("conformance "+cmd.name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	_ = cmd.run(context.Background(), cli{stdout: io.Discard}, fs, []string{"-h"})
	return fs
}

// usageLine is how a command is called.
func usageLine(cmd command, fs *flag.FlagSet) string {
	line := "conformance " + cmd.name
	fs.VisitAll(func(*flag.Flag) {
		if !strings.Contains(line, "[flags]") {
			line += " [flags]"
		}
	})
	if cmd.args != "" {
		line += " " + cmd.args
	}
	return line
}

// usage is a command's help: how it is called, what it does, its flags.
func usage(cmd command, fs *flag.FlagSet) string {
	var b strings.Builder
	fmt.Fprintf(&b, "usage: %s\n\n%s\n", usageLine(cmd, fs), wrap(cmd.synopsis, "", 100))
	n := 0
	fs.VisitAll(func(*flag.Flag) { n++ })
	if n == 0 {
		b.WriteString("\nno flags\n")
		return b.String()
	}
	b.WriteString("\nflags:\n")
	fs.SetOutput(&b)
	fs.PrintDefaults()
	fs.SetOutput(io.Discard)
	return b.String()
}

// commandListing is the commands, each with its synopsis.
func commandListing(cmds []command) string {
	var b strings.Builder
	b.WriteString("usage: conformance <command> [flags] [arguments]\n\ncommands (conformance <command> -h: its flags):\n")
	for _, cmd := range cmds {
		line := cmd.name
		if cmd.args != "" {
			line += " " + cmd.args
		}
		fmt.Fprintf(&b, "  %s\n%s\n", line, wrap(cmd.synopsis, "        ", 100))
	}
	b.WriteString("\nThe cells themselves, bisect and sweep run in the e2e test binary\n(make e2e, make bisect, make sweep), which takes the same flags as check.\n")
	return b.String()
}

// wrap breaks s into lines of at most width, each after indent.
func wrap(s, indent string, width int) string {
	var lines []string
	line := indent
	for _, w := range strings.Fields(s) {
		if line != indent && len(line)+1+len(w) > width {
			lines = append(lines, line)
			line = indent
		}
		if line != indent {
			line += " "
		}
		line += w
	}
	return strings.Join(append(lines, line), "\n")
}

// helpCommand prints the commands, or the help of the command its
// arguments name; -markdown, the CLI reference.
func helpCommand(_ context.Context, c cli, fs *flag.FlagSet, args []string) error {
	markdown := fs.Bool("markdown", false, "print the CLI reference as Markdown (docs/cli.md)")
	if err := parse(fs, args); err != nil {
		return err
	}
	if *markdown {
		_, err := io.WriteString(c.stdout, Reference())
		return err
	}
	if fs.NArg() == 0 {
		_, err := io.WriteString(c.stdout, commandListing(commands()))
		return err
	}
	if cmd, rest, ok := lookup(fs.Args()); ok && len(rest) == 0 {
		_, err := io.WriteString(c.stdout, usage(cmd, flagsOf(cmd)))
		return err
	}
	if subs := subcommands(fs.Arg(0)); len(subs) > 0 && fs.NArg() == 1 {
		_, err := io.WriteString(c.stdout, commandListing(subs))
		return err
	}
	return &runner.BadInput{Err: fmt.Errorf("help: no command %q (valid: %s)", strings.Join(fs.Args(), " "), strings.Join(groups(), ", "))}
}

// Reference is docs/cli.md: every command, how it is called, what it does
// and its flags, from the table.
func Reference() string {
	var b strings.Builder
	b.WriteString("# The conformance CLI\n\n" +
		"Generated by `bin/conformance help -markdown` (make docs) from the CLI's command table\n" +
		"(cmd/conformance/commands.go); make verify and TestCLIReference check it is current. The make\n" +
		"targets call these commands; `conformance <command> -h` prints the same.\n\n")
	for _, cmd := range commands() {
		fmt.Fprintf(&b, "- [`%s`](#%s)\n", cmd.name, strings.ReplaceAll(cmd.name, " ", "-"))
	}
	for _, cmd := range commands() {
		fs := flagsOf(cmd)
		fmt.Fprintf(&b, "\n## %s\n\n    %s\n\n%s\n", cmd.name, usageLine(cmd, fs), cmd.synopsis)
		n := 0
		fs.VisitAll(func(f *flag.Flag) {
			if n == 0 {
				b.WriteString("\n| flag | default | meaning |\n|---|---|---|\n")
			}
			n++
			def := ""
			if f.DefValue != "" && f.DefValue != "false" {
				def = "`" + f.DefValue + "`"
			}
			fmt.Fprintf(&b, "| `-%s` | %s | %s |\n", f.Name, def, strings.NewReplacer("|", `\|`, "<", `\<`).Replace(f.Usage))
		})
	}
	return b.String()
}

// flagSet reports whether the command line named the flag.
func flagSet(fs *flag.FlagSet, name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}
