package repro

import (
	"archive/tar"
	"compress/gzip"
	"context"
	"encoding/base64"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// cell is a bug cell whose record holds a push, an Application, a sync, a
// precondition, a branch the cell did not take and a verdict.
func cell(t *testing.T) (Cell, *Log) {
	t.Helper()
	ctx, log := WithLog(context.Background())
	key := "-----BEGIN EC PRIVATE KEY-----\nMHcCAQEE\n-----END EC PRIVATE KEY-----\n"
	if v := Generate(ctx, key, "tls_part s svc ns tls.key"); v != "REPRO_GENERATED_1" {
		t.Fatalf("Generate = %q", v)
	}
	steps := []Step{
		{Kind: Do, What: "push repository kube-ovn-crd", Shell: "push kube-ovn-crd repos/kube-ovn-crd",
			Files: map[string]string{"repos/kube-ovn-crd/crd.yaml": "kind: CustomResourceDefinition\n"}},
		{Kind: Do, What: "apply the webhook certificate", Shell: "apply manifests/cert.yaml",
			Files: map[string]string{"manifests/cert.yaml": "data:\n  tls.key: " + base64.StdEncoding.EncodeToString([]byte(key)) + "\n"}},
		{Kind: Do, What: "sync application kube-ovn-crd", Shell: `sync_app kube-ovn-crd '[]'`},
		{Kind: Wait, What: "application kube-ovn-crd sync Succeeded", Timeout: 3 * time.Minute, Check: OperationPhaseIs("kube-ovn-crd", "Succeeded")},
	}
	for _, s := range steps {
		if !Record(ctx, s) {
			t.Fatalf("%s: not to be carried out outside a branch", s.What)
		}
	}
	Ended(ctx, "sync OutOfSync, health Healthy, operation Succeeded", "held")
	branch, done := InBranch(ctx, "scale the manager", JSONPathIs("deployment", "ns", "m", "{.status.availableReplicas}", "1"), true, false)
	if Record(branch, Step{Kind: Do, What: "scale deployment ns/m to 0", Shell: "kubectl scale deployment m -n ns --replicas=0"}) {
		t.Fatal("a step of a branch the cell did not take must not be carried out")
	}
	done()
	Record(ctx, Step{Kind: Symptom, What: "application kube-ovn-crd OutOfSync", Hold: 20 * time.Second,
		Check: All(ApplicationField("kube-ovn-crd", "{.status.sync.status}", "OutOfSync"), Accepted("kind: ConfigMap\n"))})
	Ended(ctx, "sync OutOfSync", "held")
	Record(ctx, Step{Kind: Observe, What: "the project's deletion in the timeline", Check: Unscripted()})
	c := Cell{ID: "kubeovn-argocd_bug_v2.14.11", Run: "20261123-000000", Scenario: "kubeovn-argocd", Variant: "bug",
		Component: "kube-ovn", ComponentVersion: "v1.14.10", ArgoCD: "v2.14.11", Kubernetes: "v1.33.13", Kind: "v0.27.0",
		NodeImage: "kindest/node:v1.33.1", Outcome: "REPRODUCED", Reason: "application kube-ovn-crd OutOfSync",
		ArgoCDConfig: map[string]string{"timeout.reconciliation": "15s"}, GitServer: "kind: Deployment\n",
		GitNamespace: "git", GitProbeURL: "git://gitserver.git.svc.cluster.local/probe.git", PushScript: "set -e\ntar -x\n"}
	return c, log
}

func TestScriptFollowsTheRecord(t *testing.T) {
	c, log := cell(t)
	s := Script(c, log)
	for _, want := range []string{
		"EXPECTED=REPRODUCED\nMITIGATION=false\n",
		`ARGOCD_CONFIG='{"data":{"timeout.reconciliation":"15s"}}'`,
		"create_cluster\npreload_images\ninstall_argocd \"$ARGOCD_VERSION\"\n",
		"REPRO_GENERATED_1=$(tls_part s svc ns tls.key)",
		"step 'push repository kube-ovn-crd'\npush kube-ovn-crd repos/kube-ovn-crd\n",
		"check_1() { jsonpath_is applications.argoproj.io argocd kube-ovn-crd '{.status.operationState.phase}/{.operation.initiatedBy.username}' Succeeded/; }",
		"wait_for 'application kube-ovn-crd sync Succeeded' 180 check_1\n",
		"if check_2; then  # scale the manager (the cell did not take it)\n  step 'scale the manager'\n  step 'scale deployment ns/m to 0'\n  kubectl scale deployment m -n ns --replicas=0\nelse\n",
		"verdict_holds 'application kube-ovn-crd OutOfSync' 20 check_3\n",
		"unscripted_observation 'the project'\\''s deletion in the timeline'\n",
		"finish\n",
	} {
		if !strings.Contains(s, want) {
			t.Errorf("repro.sh lacks %q", want)
		}
	}
	if strings.Index(s, "push kube-ovn-crd") > strings.Index(s, "sync_app kube-ovn-crd") {
		t.Error("steps out of the record's order")
	}
	if _, err := exec.LookPath("bash"); err == nil {
		cmd := exec.Command("bash", "-n")
		cmd.Stdin = strings.NewReader(s)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("bash -n: %v: %s", err, out)
		}
	}
}

func TestBundleHoldsNoGeneratedValue(t *testing.T) {
	c, log := cell(t)
	dir := t.TempDir()
	if err := Write(dir, c, log, nil); err != nil {
		t.Fatal(err)
	}
	cert, err := os.ReadFile(filepath.Join(dir, BundleDir, "manifests/cert.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if string(cert) != "data:\n  tls.key: ${REPRO_GENERATED_1_B64}\n" {
		t.Fatalf("the key must be replaced by the script's own: %q", cert)
	}
	f, err := os.Open(filepath.Join(dir, Archive))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	gz, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]bool{}
	tr := tar.NewReader(gz)
	for {
		h, err := tr.Next()
		if err != nil {
			break
		}
		names[h.Name] = true
	}
	for _, want := range []string{"repro/README.md", "repro/repro.sh", "repro/repos/kube-ovn-crd/crd.yaml", "repro/git-server.yaml", "repro/record.json", "repro/bundle.json"} {
		if !names[want] {
			t.Errorf("repro.tar.gz lacks %s (has %v)", want, names)
		}
	}
	if names["repro/verification.json"] {
		t.Error("a bundle never run has no verification")
	}
	if _, l, v, err := Read(dir); err != nil || v != nil || len(l.Steps) != len(log.Steps) {
		t.Fatalf("Read: %v, verification %v, %d steps", err, v, len(l.Steps))
	}
}

func TestReadmeSaysWhetherTheBundleRan(t *testing.T) {
	c, log := cell(t)
	r := README(c, log, nil)
	for _, want := range []string{"| Kubernetes | v1.33.13 (kind v0.27.0) |", "| ArgoCD | v2.14.11 ([install.yaml](https://raw.githubusercontent.com/argoproj/argo-cd/v2.14.11/manifests/install.yaml)) |",
		"| kube-ovn | v1.14.10 |", "**Never run.**", `Expected (no bug): not "application kube-ovn-crd OutOfSync"`,
		"verdict: application kube-ovn-crd OutOfSync\n      held -> sync OutOfSync", "(the cell did not take this branch)"} {
		if !strings.Contains(r, want) {
			t.Errorf("README lacks %q", want)
		}
	}
	v := &Verification{At: time.Date(2026, 11, 23, 1, 0, 0, 0, time.UTC), Command: "make repro", Outcome: "REPRODUCED", Reached: true, Seconds: 200, Output: "repro-run.log"}
	if r := README(c, log, v); !strings.Contains(r, "**reached the cell's verdict, REPRODUCED.**") || strings.Contains(r, "Never run") {
		t.Errorf("README of a verified bundle:\n%s", r)
	}
}

func TestChecksCombineAndQuote(t *testing.T) {
	if got := Quote("it's"); got != `'it'\''s'` {
		t.Errorf("Quote = %s", got)
	}
	if got := Quote("kube-ovn-crd"); got != "kube-ovn-crd" {
		t.Errorf("Quote = %s", got)
	}
	a := Any(Exists("job", "n", "j"), All(Missing("job", "n", "j"), RolledOut("n")))
	if a.Shell != "{ exists job n j || { missing job n j && rolled_out n; }; }" {
		t.Errorf("Any(All) = %s", a.Shell)
	}
	if s := Not(All(Exists("a", "", "b"), Missing("c", "", "d"))).Shell; s != "! { exists a '' b && missing c '' d; }" {
		t.Errorf("Not = %s", s)
	}
	if s := Not(Unscripted()).Shell; s != "" {
		t.Errorf("Not of a look kubectl cannot take: %q", s)
	}
	if All().Shell != "true" || Any().Shell != "false" {
		t.Errorf("All() = %q, Any() = %q: every one of none holds, none of none does", All().Shell, Any().Shell)
	}
	if s := All(Exists("a", "", "b"), Unscripted()).Shell; s != "" {
		t.Errorf("a combination with a look kubectl cannot take is not scriptable: %q", s)
	}
	if c := Rejected("kind: ConfigMap\n", `failed calling webhook "x"`); len(c.Files) != 1 || !strings.HasPrefix(c.Shell, "rejected probes/") {
		t.Errorf("Rejected = %+v", c)
	}
}

func TestScriptHelpersJudgeLikeTheSuite(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("no bash")
	}
	// the verdict helpers alone, with looks that hold or not
	script := header[strings.Index(header, "holds_for()"):strings.Index(header, "# --- environment ---")]
	run := func(body string) string {
		out, _ := exec.Command("bash", "-c", `VERDICT=""; sleep() { :; }; error() { echo "ERROR $*"; }; `+script+body+`; echo "verdict=$VERDICT"`).CombinedOutput()
		return string(out)
	}
	if out := run("verdict_holds x 0 true"); !strings.Contains(out, "verdict=yes") {
		t.Errorf("a holding symptom: %s", out)
	}
	if out := run("verdict_holds x 0 false; verdict_holds y 0 true"); !strings.Contains(out, "verdict=no") {
		t.Errorf("a negative verdict sticks: %s", out)
	}
	if out := run("verdict_occurs x 0 false"); !strings.Contains(out, "verdict=no") {
		t.Errorf("an event that does not occur: %s", out)
	}
	if out := run("verdict_unsettled x 0 0 true"); !strings.Contains(out, "verdict=no") {
		t.Errorf("a clean state that settles is no sign of the class: %s", out)
	}
	if out := run("verdict_unsettled x 0 0 false"); !strings.Contains(out, "verdict=yes") {
		t.Errorf("a clean state that never comes is the class: %s", out)
	}
	// event_matches over kubectl's output: the regex, not a substring
	events := header[strings.Index(header, "event_matches()"):strings.Index(header, "rolled_out()")]
	match := func(re string) bool {
		err := exec.Command("bash", "-c", `kubectl() { printf '%s
' 'kruise-daemon: Error creating: failed calling webhook "mpod.kb.io": no endpoints'; }; `+events+` event_matches kruise-system DaemonSet FailedCreate "$1"`, "-", re).Run()
		return err == nil
	}
	if !match(`^kruise-daemon: .*webhook "(mpod\.kb\.io|vpod\.kb\.io)"`) || match(`^kruise-manager: `) {
		t.Error("event_matches: a regular expression over the object: message lines")
	}
}
