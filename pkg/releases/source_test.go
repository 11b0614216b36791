package releases

import "testing"

func TestAnswerKeepsWhatTheServerSaid(t *testing.T) {
	for in, want := range map[string]string{
		"module github.com/kubeovn/kube-ovn: reading https://proxy.example/github.com/kubeovn/kube-ovn/@v/list: 403 Forbidden\n\tserver response: This module version is not available.":                                                                                        "403 Forbidden (This module version is not available.)",
		"go: module github.com/kyverno/kyverno: git ls-remote -q --end-of-options https://github.com/kyverno/kyverno in /root/go/pkg/mod/cache/vcs/3e0e: exit status 128:\n\tfatal: unable to access 'https://github.com/kyverno/kyverno/': Could not resolve host: github.com": "git (unable to access 'https://github.com/kyverno/kyverno/': Could not resolve host: github.com)",
		"github.com/x/y@v1.2.3: reading https://proxy.example/github.com/x/y/@v/v1.2.3.info: 404 Not Found":                                                                                                                                                                     "404 Not Found",
	} {
		if got := answer(in); got != want {
			t.Errorf("answer(%q)\n = %q\nwant %q", in, got, want)
		}
	}
}
