package gitrepo

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"strings"

	"github.com/gitops-conformance/suite/fixtures"
	"github.com/gitops-conformance/suite/internal/shell"
	"github.com/gitops-conformance/suite/pkg/fixture"
)

// TeamURL is the fleet fixture's repository, as its Applications name it.
const TeamURL = "https://github.com/example-team/gitops.git"

// teamFixture is the fleet fixture in fixtures.Fleet.
const teamFixture = "fleet/team-gitops"

// WriteTeamRepo writes the fleet fixture (fixtures/fleet/team-gitops) into
// dir as a git checkout with history, as a team's clone has it: its remote
// origin TeamURL; a first commit tagged v1.0.0 and branched as release;
// then a commit on main changing the chart's default message, so that the
// tag, the branch and main render differently.
func WriteTeamRepo(ctx context.Context, dir string) error {
	files := map[string]string{}
	err := fs.WalkDir(fixtures.Fleet, teamFixture, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := fs.ReadFile(fixtures.Fleet, p)
		files[strings.TrimPrefix(p, teamFixture+"/")] = string(data)
		return err
	})
	if err != nil {
		return err
	}
	next := map[string]string{"charts/web/values.yaml": strings.Replace(files["charts/web/values.yaml"], "message: hello", "message: hello from main", 1)}
	return writeHistory(ctx, dir, TeamURL, []historyCommit{
		{message: "the team's fleet", files: files, tag: "v1.0.0", branch: "release"},
		{message: "web: a new default message", files: next},
	})
}

// WriteBenchRepo writes make bench-upgrade-check's fleet of n Applications
// into dir as a git checkout: the fleet fixture's chart and n/2 plain
// directories, each its own values; ApplicationSets generate the
// Applications (a List over the chart, a Git directory generator over the
// directories), none syncing by itself: the render tier, without the
// workloads of n Applications on one node.
func WriteBenchRepo(ctx context.Context, dir string, n int) error {
	if n < 2 {
		return fmt.Errorf("a fleet of %d: at least 2 Applications (N)", n)
	}
	files := map[string]string{}
	for _, f := range []string{"Chart.yaml", "values.yaml", "templates/configmap.yaml", "templates/deployment.yaml"} {
		data, err := fs.ReadFile(fixtures.Fleet, teamFixture+"/charts/web/"+f)
		if err != nil {
			return err
		}
		files["charts/web/"+f] = string(data)
	}
	charts, plain := n-n/2, n/2
	var elements strings.Builder
	for i := range charts {
		fmt.Fprintf(&elements, "          - {name: chart-%03d, env: env-%d, replicas: '%d'}\n", i, i%5, i%3)
	}
	for i := range plain {
		files[fmt.Sprintf("plain/dir-%03d/configmap.yaml", i)] = fmt.Sprintf("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings-%03d\ndata:\n  index: %q\n", i, fmt.Sprint(i))
		if i%4 == 0 {
			files[fmt.Sprintf("plain/dir-%03d/service.yaml", i)] = fmt.Sprintf("apiVersion: v1\nkind: Service\nmetadata:\n  name: svc-%03d\nspec:\n  selector: {app: dir-%03d}\n  ports: [{port: 80}]\n", i, i)
		}
	}
	files["apps/charts.yaml"] = fmt.Sprintf(`apiVersion: argoproj.io/v1alpha1
kind: ApplicationSet
metadata:
  name: bench-charts
  namespace: argocd
spec:
  generators:
    - list:
        elements:
%s  template:
    metadata:
      name: 'bench-{{name}}'
    spec:
      project: default
      source:
        repoURL: %s
        targetRevision: main
        path: charts/web
        helm:
          releaseName: '{{name}}'
          parameters:
            - {name: env, value: '{{env}}'}
            - {name: replicaCount, value: '{{replicas}}'}
      destination:
        server: https://kubernetes.default.svc
        namespace: 'bench-{{name}}'
`, elements.String(), TeamURL)
	files["apps/plain.yaml"] = fmt.Sprintf(`apiVersion: argoproj.io/v1alpha1
kind: ApplicationSet
metadata:
  name: bench-plain
  namespace: argocd
spec:
  generators:
    - git:
        repoURL: %s
        revision: main
        directories:
          - path: plain/*
  template:
    metadata:
      name: 'bench-{{path.basename}}'
    spec:
      project: default
      source:
        repoURL: %s
        targetRevision: main
        path: '{{path}}'
      destination:
        server: https://kubernetes.default.svc
        namespace: 'bench-{{path.basename}}'
`, TeamURL, TeamURL)
	return writeHistory(ctx, dir, TeamURL, []historyCommit{{message: fmt.Sprintf("a fleet of %d Applications", n), files: files}})
}

// historyCommit is one commit of a written repository: the files it writes (over
// the commit before), a tag and a branch made at it.
type historyCommit struct {
	message     string
	files       map[string]string
	tag, branch string
}

// writeHistory makes dir a new git checkout on main of the commits, its
// remote origin url (never fetched).
func writeHistory(ctx context.Context, dir, url string, commits []historyCommit) error {
	if err := os.RemoveAll(dir); err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	git := func(args ...string) error {
		_, err := shell.Run(ctx, shell.Cmd{Name: "git", Args: append([]string{"-C", dir, "-c", "user.name=example-team", "-c", "user.email=team@example.com"}, args...)})
		return err
	}
	if err := git("init", "-q", "--initial-branch=main"); err != nil {
		return err
	}
	if err := git("remote", "add", "origin", url); err != nil {
		return err
	}
	for _, c := range commits {
		if err := fixture.WriteTree(dir, c.files); err != nil {
			return err
		}
		if err := git("add", "-A"); err != nil {
			return err
		}
		if err := git("commit", "-q", "-m", c.message); err != nil {
			return err
		}
		if c.tag != "" {
			if err := git("tag", c.tag); err != nil {
				return err
			}
		}
		if c.branch != "" {
			if err := git("branch", c.branch); err != nil {
				return err
			}
		}
	}
	return nil
}
