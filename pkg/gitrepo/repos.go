package gitrepo

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/gitops-conformance/suite/internal/gitserver"
	"github.com/gitops-conformance/suite/internal/shell"
	"github.com/gitops-conformance/suite/pkg/appcell"
)

// Repo is a team's git repository served by the suite's git server from a
// checkout, with its history: the Applications and ApplicationSets that
// name URL are pointed at Served.
type Repo struct {
	// URL is the repository as the team's Applications name it.
	URL string
	// Dir is the checkout (or, online, a clone of URL).
	Dir string
	// Name is the git server's repository (gitserver.URL).
	Name string
	// mention matches URL as a team writes it (NewRepo), compiled once:
	// Rewrite runs on every file, Application and source
	mention *regexp.Regexp
}

// NewRepo is the repository url, checked out in dir, served as name.
func NewRepo(url, dir, name string) Repo {
	return Repo{URL: url, Dir: dir, Name: name, mention: mention(url)}
}

// Served is the URL ArgoCD fetches the repository from.
func (r Repo) Served() string { return gitserver.URL(r.Name) }

// mention matches a repository's URL as a team writes it: https, ssh or
// scp-like, with or without .git and a trailing slash, any case of host;
// its group end is the character that ended it (a quote, a newline), or
// none at the end of the text.
func mention(url string) *regexp.Regexp {
	host, path := splitURL(url)
	return regexp.MustCompile(`(?i)(?:https?://|ssh://(?:[^@/\s"']+@)?|git://|[^@/\s"':]+@)` + regexp.QuoteMeta(host) +
		`(?::\d+)?[:/]` + `(?-i:` + regexp.QuoteMeta(path) + `)(?:\.git)?/?(?P<end>[^\w./-]|$)`)
}

// Rewrite points every mention of the repository in s at the served copy.
func (r Repo) Rewrite(s string) string {
	return r.mention.ReplaceAllString(s, strings.ReplaceAll(r.Served(), "$", "$$")+"${end}")
}

// Names says whether url names the repository.
func (r Repo) Names(url string) bool { return r.Rewrite(url) != url }

// splitURL is a repository URL's host and path, without scheme, user, port,
// .git or slashes at the ends.
func splitURL(u string) (host, path string) {
	u = strings.TrimSpace(u)
	if i := strings.Index(u, "://"); i >= 0 {
		u = u[i+3:]
	} else if at, colon := strings.Index(u, "@"), strings.Index(u, ":"); at >= 0 && colon > at {
		u = u[at+1:colon] + "/" + u[colon+1:] // git@host:path
	}
	if at := strings.Index(u, "@"); at >= 0 && at < strings.Index(u+"/", "/") {
		u = u[at+1:]
	}
	host, path, _ = strings.Cut(u, "/")
	if h, _, ok := strings.Cut(host, ":"); ok {
		host = h
	}
	path = strings.TrimSuffix(strings.Trim(path, "/"), ".git")
	return strings.ToLower(host), path
}

// ReadRepos reads REPO (a checkout, whose origin names its URL, or online a
// public git URL, cloned) and REPOS (url=dir,...).
func ReadRepos(ctx context.Context, repo, repos string, w appcell.Where) ([]Repo, error) {
	var out []Repo
	add := func(url, dir string) error {
		if _, path := splitURL(url); path == "" {
			return fmt.Errorf("%q: not a git repository's URL", url)
		}
		for _, r := range out {
			if r.Names(url) {
				return fmt.Errorf("%s named twice", url)
			}
		}
		base := filepath.Base(strings.TrimSuffix(strings.TrimSuffix(url, "/"), ".git"))
		out = append(out, NewRepo(url, dir, fmt.Sprintf("team-%d-%s", len(out)+1, sanitize(base))))
		return nil
	}
	if repo != "" {
		url, dir, err := checkout(ctx, repo, w)
		if err != nil {
			return nil, fmt.Errorf("REPO %q: %w", repo, err)
		}
		if err := add(url, dir); err != nil {
			return nil, fmt.Errorf("REPO: %w", err)
		}
	}
	for _, pair := range strings.Split(repos, ",") {
		if pair = strings.TrimSpace(pair); pair == "" {
			continue
		}
		url, dir, ok := strings.Cut(pair, "=")
		if !ok || url == "" || dir == "" {
			return nil, fmt.Errorf("REPOS %q: url=dir, the repository's URL as the Applications name it and its checkout", pair)
		}
		dir = w.Path(dir)
		if err := isCheckout(ctx, dir); err != nil {
			return nil, fmt.Errorf("REPOS %s: %w", url, err)
		}
		if err := add(url, dir); err != nil {
			return nil, fmt.Errorf("REPOS: %w", err)
		}
	}
	return out, nil
}

// checkout is REPO's URL and checkout: a directory, whose remote origin
// names it; or a URL, cloned online.
func checkout(ctx context.Context, repo string, w appcell.Where) (url, dir string, err error) {
	if appcell.IsRepoURL(repo) || strings.HasPrefix(repo, "git@") || strings.HasPrefix(repo, "ssh://") {
		if !w.Online {
			return "", "", fmt.Errorf("a git URL needs the online mode (no git host is reachable here): clone it and name the checkout, REPO=dir")
		}
		dir = filepath.Join(w.CacheDir, "repos", sanitize(repo))
		_ = os.RemoveAll(dir)
		if _, err := shell.Run(ctx, shell.Cmd{Name: "git", Args: []string{"clone", "-q", "--mirror", repo, dir}}); err != nil {
			return "", "", err
		}
		return repo, dir, nil
	}
	dir = w.Path(repo)
	if err := isCheckout(ctx, dir); err != nil {
		return "", "", err
	}
	out, err := shell.Run(ctx, shell.Cmd{Name: "git", Args: []string{"-C", dir, "remote", "get-url", "origin"}})
	if err != nil || strings.TrimSpace(out) == "" {
		return "", "", fmt.Errorf("no remote origin names its URL: name it, REPOS=url=%s", repo)
	}
	return strings.TrimSpace(out), dir, nil
}

// isCheckout refuses a directory that is not a git repository.
func isCheckout(ctx context.Context, dir string) error {
	if _, err := os.Stat(dir); err != nil {
		return appcell.UnwrapPath(err)
	}
	if _, err := shell.Run(ctx, shell.Cmd{Name: "git", Args: []string{"-C", dir, "rev-parse", "--git-dir"}}); err != nil {
		return fmt.Errorf("%s is not a git checkout", dir)
	}
	return nil
}

var unsafeName = regexp.MustCompile(`[^a-z0-9-]+`)

func sanitize(s string) string {
	s = strings.Trim(unsafeName.ReplaceAllString(strings.ToLower(s), "-"), "-")
	return s[:min(len(s), 40)]
}

// Bundle is the repository as the git server serves it: every branch and
// tag of the checkout with its history (an origin's branch where the
// checkout has none of that name), each one whose files name a served
// repository given one more commit pointing them at the served copies (an
// app-of-apps parent's children, as ArgoCD creates them, fetch from the
// suite's git server too). notes say which refs were rewritten.
func (r Repo) Bundle(ctx context.Context, all []Repo) (bundle []byte, notes []string, err error) {
	work, err := os.MkdirTemp("", "gitops-conformance-repo-")
	if err != nil {
		return nil, nil, err
	}
	defer os.RemoveAll(work)
	bare := filepath.Join(work, "served.git")
	git := func(dir string, args ...string) (string, error) {
		return shell.Run(ctx, shell.Cmd{Name: "git", Args: append([]string{"-C", dir, "-c", "user.name=gitops-conformance", "-c", "user.email=conformance@localhost"}, args...)})
	}
	if _, err := shell.Run(ctx, shell.Cmd{Name: "git", Args: []string{"clone", "-q", "--bare", r.Dir, bare}}); err != nil {
		return nil, nil, fmt.Errorf("%s: %w", r.Dir, err)
	}
	// the checkout's origin branches it has no local branch of
	remote, err := git(r.Dir, "for-each-ref", "--format=%(refname:lstrip=3)", "refs/remotes/origin/")
	if err != nil {
		return nil, nil, err
	}
	for _, b := range strings.Fields(remote) {
		if b == "HEAD" {
			continue
		}
		if _, err := git(bare, "rev-parse", "--verify", "-q", "refs/heads/"+b); err == nil {
			continue
		}
		if _, err := git(bare, "fetch", "-q", r.Dir, "refs/remotes/origin/"+b+":refs/heads/"+b); err != nil {
			return nil, nil, err
		}
	}
	refs, err := git(bare, "for-each-ref", "--format=%(refname)", "refs/heads/", "refs/tags/")
	if err != nil {
		return nil, nil, err
	}
	for _, ref := range strings.Fields(refs) {
		rewritten, err := rewriteRef(ctx, git, bare, ref, all)
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %w", ref, err)
		}
		if rewritten > 0 {
			notes = append(notes, fmt.Sprintf("%s: %d file(s) naming a served repository pointed at the suite's git server, in one more commit", strings.TrimPrefix(strings.TrimPrefix(ref, "refs/heads/"), "refs/"), rewritten))
		}
	}
	out, err := shell.Run(ctx, shell.Cmd{Name: "git", Args: []string{"-C", bare, "bundle", "create", filepath.Join(work, "b"), "--all"}})
	if err != nil {
		return nil, nil, fmt.Errorf("git bundle: %w: %s", err, out)
	}
	bundle, err = os.ReadFile(filepath.Join(work, "b"))
	return bundle, notes, err
}

// rewriteRef gives ref one more commit in which the files naming a served
// repository name its served copy instead; it returns how many files.
func rewriteRef(ctx context.Context, git func(string, ...string) (string, error), bare, ref string, all []Repo) (int, error) {
	var files []string
	for _, r := range all {
		host, path := splitURL(r.URL)
		out, err := git(bare, "grep", "-l", "-i", "-F", "-e", host+"/"+path, "-e", host+":"+path, ref, "--")
		var exit *exec.ExitError
		switch {
		case errors.As(err, &exit) && exit.ExitCode() == 1:
			continue // git grep's answer for no file: nothing to rewrite
		case err != nil:
			return 0, err // a search that failed is not "none found"
		}
		for _, l := range strings.Fields(out) {
			if f := strings.TrimPrefix(l, ref+":"); !slices.Contains(files, f) {
				files = append(files, f)
			}
		}
	}
	if len(files) == 0 {
		return 0, nil
	}
	wt, err := os.MkdirTemp("", "gitops-conformance-wt-")
	if err != nil {
		return 0, err
	}
	defer os.RemoveAll(wt)
	if _, err := git(bare, "worktree", "add", "-q", "--detach", wt, ref); err != nil {
		return 0, err
	}
	defer git(bare, "worktree", "remove", "--force", wt) //nolint:errcheck // the directory goes with wt
	n := 0
	for _, f := range files {
		p := filepath.Join(wt, f)
		data, err := os.ReadFile(p)
		if err != nil {
			return 0, err
		}
		s := string(data)
		for _, r := range all {
			s = r.Rewrite(s)
		}
		if s != string(data) {
			if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
				return 0, err
			}
			n++
		}
	}
	if n == 0 {
		return 0, nil
	}
	if _, err := git(wt, "commit", "-q", "-a", "-m", "gitops-conformance: served repositories' URLs"); err != nil {
		return 0, err
	}
	head, err := git(wt, "rev-parse", "HEAD")
	if err != nil {
		return 0, err
	}
	_, err = git(bare, "update-ref", ref, strings.TrimSpace(head))
	return n, err
}
