package gitserver

import (
	"archive/tar"
	"bytes"
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/gitops-conformance/suite/internal/kube"
	"github.com/gitops-conformance/suite/internal/shell"
)

// probeTimeout bounds one reachability probe.
const probeTimeout = 10 * time.Second

// Namespace is where the server runs.
const Namespace = "gitops-conformance-git"

// Server is a running in-cluster git server.
type Server struct {
	client *kube.Client
}

const manifest = `apiVersion: v1
kind: Namespace
metadata:
  name: %[1]s
  labels: {app.kubernetes.io/part-of: gitops-conformance}
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: gitserver
  namespace: %[1]s
spec:
  replicas: 1
  selector: {matchLabels: {app: gitserver}}
  template:
    metadata: {labels: {app: gitserver}}
    spec:
      securityContext: {runAsUser: 999, runAsGroup: 999, fsGroup: 999}
      containers:
      - name: git
        image: %[2]s
        imagePullPolicy: IfNotPresent
        command: [git, daemon, --reuseaddr, --export-all, --enable=receive-pack, --base-path=/git, /git]
        env: [{name: HOME, value: /git}]
        ports: [{containerPort: 9418, name: git}]
        readinessProbe: {tcpSocket: {port: 9418}, periodSeconds: 2}
        volumeMounts: [{name: repos, mountPath: /git}]
      volumes: [{name: repos, emptyDir: {}}]
---
apiVersion: v1
kind: Service
metadata:
  name: gitserver
  namespace: %[1]s
spec:
  selector: {app: gitserver}
  ports: [{port: 9418, targetPort: 9418, name: git}]
`

// Start deploys the server with image (one that has git) and waits for it.
func Start(ctx context.Context, kubectl kube.Kubectl, client *kube.Client, image string) (*Server, error) {
	if err := kubectl.Apply(ctx, Manifest(image)); err != nil {
		return nil, fmt.Errorf("start git server: %w", err)
	}
	if _, err := kubectl.Run(ctx, "-n", Namespace, "rollout", "status", "deploy/gitserver", "--timeout=3m"); err != nil {
		return nil, fmt.Errorf("start git server: %w", err)
	}
	return &Server{client: client}, nil
}

// Manifest is the server's Namespace, Deployment and Service, running image.
func Manifest(image string) string { return fmt.Sprintf(manifest, Namespace, image) }

// URL is the clone URL of a repository, as ArgoCD sees it.
func URL(repo string) string {
	return fmt.Sprintf("git://gitserver.%s.svc.cluster.local/%s.git", Namespace, repo)
}

// PushScript replaces a repository's tree with the tar on stdin and commits it
// on main; it prints the new commit.
const PushScript = `set -e
repo=/git/$1.git msg=$2
[ -d "$repo" ] || git init -q --bare --initial-branch=main "$repo"
w=$(mktemp -d)
git init -q --initial-branch=main "$w"
cd "$w"
git fetch -q "$repo" main 2>/dev/null && git reset -q --soft FETCH_HEAD || true
git rm -rqf --cached . >/dev/null 2>&1 || true
find . -mindepth 1 -maxdepth 1 ! -name .git -exec rm -rf {} +
tar -x
git add -A
git -c user.name=gitops-conformance -c user.email=conformance@localhost commit -q --allow-empty -m "$msg"
git push -q "$repo" HEAD:main
git rev-parse HEAD
rm -rf "$w"
`

// Push makes files (path -> content) the tree of repo's main branch in a new
// commit, creating the repository on first use. It returns the commit.
func (s *Server) Push(ctx context.Context, repo, message string, files map[string]string) (string, error) {
	if s == nil { // the cell's error, not the run's crash
		return "", fmt.Errorf("push %q: no git server runs on this cluster", repo)
	}
	archive, err := tarball(files)
	if err != nil {
		return "", fmt.Errorf("push %q: %w", repo, err)
	}
	out, err := s.client.Exec(ctx, Namespace, "gitserver", bytes.NewReader(archive), "sh", "-c", PushScript, "push", repo, message)
	if err != nil {
		return "", fmt.Errorf("push %q: %w", repo, err)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	return lines[len(lines)-1], nil
}

// BundleScript makes repository $1 a mirror of the git bundle on stdin: its
// branches, tags and history, as the team's repository has them.
const BundleScript = `set -e
repo=/git/$1.git
b=$(mktemp)
cat > "$b"
rm -rf "$repo"
git clone -q --mirror "$b" "$repo"
rm -f "$b"
git -C "$repo" for-each-ref --format='%(refname)' | wc -l
`

// PushBundle makes repo a mirror of a git bundle (git bundle create - --all):
// a team's repository served with its history, so that a branch, a tag or
// a commit resolves as on the team's own server. It returns how many refs
// the served repository holds.
func (s *Server) PushBundle(ctx context.Context, repo string, bundle []byte) (int, error) {
	if s == nil {
		return 0, fmt.Errorf("serve %q: no git server runs on this cluster", repo)
	}
	out, err := s.client.Exec(ctx, Namespace, "gitserver", bytes.NewReader(bundle), "sh", "-c", BundleScript, "serve", repo)
	if err != nil {
		return 0, fmt.Errorf("serve %q: %w", repo, err)
	}
	var refs int
	if _, err := fmt.Sscan(shell.LastLine(out), &refs); err != nil {
		return 0, fmt.Errorf("serve %q: %q: %w", repo, shell.LastLine(out), err)
	}
	return refs, nil
}

func tarball(files map[string]string) ([]byte, error) {
	var buf bytes.Buffer
	w := tar.NewWriter(&buf)
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		if err := w.WriteHeader(&tar.Header{Name: n, Mode: 0o644, Size: int64(len(files[n]))}); err != nil {
			return nil, err
		}
		if _, err := w.Write([]byte(files[n])); err != nil {
			return nil, err
		}
	}
	if err := w.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// Attach returns the server already running in a reused cluster.
func Attach(client *kube.Client) *Server { return &Server{client: client} }

// Reachable reports whether a Deployment (e.g. argocd-repo-server in argocd)
// reaches the server through its Service: on a new cluster kube-proxy may not
// have programmed the Service yet when the Deployment is Available. A refusal
// for a repository that does not exist still proves the connection.
func (s *Server) Reachable(ctx context.Context, namespace, deployment string) (bool, string, error) {
	// git:// has no connect timeout: a first probe sent before kube-proxy
	// programmed the Service can hang for minutes (seen once in CI). Each probe
	// is bounded, inside the container (timeout) and here (the exec stream),
	// so the next poll tries again.
	ctx, cancel := context.WithTimeout(ctx, probeTimeout+5*time.Second)
	defer cancel()
	out, err := s.client.Exec(ctx, namespace, deployment, nil,
		"timeout", fmt.Sprint(probeTimeout.Seconds()), "git", "ls-remote", URL("reachability-probe"))
	switch {
	case err == nil, strings.Contains(out, "remote error"), strings.Contains(out, "not exported"):
		return true, "reachable", nil
	default:
		return false, shell.LastLine(out), nil
	}
}
