package knative

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/gitops-conformance/suite/pkg/fixture"
)

const (
	servingModule = "knative.dev/serving"
	// Registry is where the release's images live; offline, images/knative/build.sh
	// builds them under these names, tagged with the module version.
	Registry = "gcr.io/knative-releases/knative.dev/serving/cmd/"
	// FlagEnv is the webhook's switch (Knative 1.16+, knative.dev/pkg webhook/env.go).
	FlagEnv = "WEBHOOK_DISABLE_NAMESPACE_OWNERSHIP"
)

// linked are the files of upstream's config/core that are symlinks into
// vendored modules; module zips drop symlinks, so they are read from those
// modules at the versions knative.dev/serving's go.mod requires.
var linked = map[string][2]string{
	"config/core/300-imagecache.yaml":                  {"knative.dev/caching", "config/image.yaml"},
	"config/core/300-resources/certificate.yaml":       {"knative.dev/networking", "config/certificate.yaml"},
	"config/core/300-resources/domain-claim.yaml":      {"knative.dev/networking", "config/domain-claim.yaml"},
	"config/core/300-resources/ingress.yaml":           {"knative.dev/networking", "config/ingress.yaml"},
	"config/core/300-resources/serverlessservice.yaml": {"knative.dev/networking", "config/serverlessservice.yaml"},
	"config/core/configmaps/network.yaml":              {"knative.dev/networking", "config/config-network.yaml"},
}

// Manifests is the fixture repository for a variant: serving-core.yaml (what
// the release's serving-core.yaml holds, CRDs included, without the Namespace),
// kustomization.yaml (with the flag patch when flag), and namespace.yaml, which
// the kustomization leaves out: the scenario applies it outside the Application.
func Manifests(version string, flag bool) fixture.Files {
	return fixture.FromModules("knative-serving "+version, func(read fixture.ModuleReader) (map[string]string, error) {
		return Render(read, version, flag)
	})
}

// Render is Manifests over a module reader (a pure function of the modules).
func Render(read fixture.ModuleReader, version string, flag bool) (map[string]string, error) {
	release, err := Release(version)
	if err != nil {
		return nil, err
	}
	core, err := read(servingModule, version, "config/core")
	if err != nil {
		return nil, err
	}
	gomod, err := read(servingModule, version, "go.mod")
	if err != nil {
		return nil, err
	}
	for path, src := range linked {
		v, err := Required(gomod["go.mod"], src[0])
		if err != nil {
			return nil, err
		}
		f, err := read(src[0], v, src[1])
		if err != nil {
			return nil, err
		}
		core[path] = f[src[1]]
	}
	var docs []string
	var namespace string
	paths := make([]string, 0, len(core))
	for p := range core {
		if strings.HasSuffix(p, ".yaml") {
			paths = append(paths, p)
		}
	}
	slices.Sort(paths) // ko resolve -R walks the tree in lexical order
	for _, p := range paths {
		doc := resolve(core[p], version, release)
		if p == "config/core/100-namespace.yaml" {
			namespace = doc
			continue
		}
		docs = append(docs, "# Source: "+p+"\n"+strings.TrimSpace(doc))
	}
	if namespace == "" {
		return nil, fmt.Errorf("%s@%s: no config/core/100-namespace.yaml", servingModule, version)
	}
	return map[string]string{
		"serving-core.yaml":  strings.Join(docs, "\n---\n") + "\n",
		"namespace.yaml":     namespace,
		"kustomization.yaml": Kustomization(flag),
	}, nil
}

var koRef = regexp.MustCompile(`ko://knative\.dev/serving/cmd/([a-z0-9-]+)`)

// resolve does what the release's ko resolve and label sed do: ko:// image
// references become the release's image names, version labels the release.
func resolve(doc, version, release string) string {
	doc = koRef.ReplaceAllString(doc, Registry+"${1}:"+version)
	return strings.ReplaceAll(doc, "app.kubernetes.io/version: devel", `app.kubernetes.io/version: "`+release+`"`)
}

// Kustomization renders serving-core.yaml, with the webhook's flag as a
// strategic-merge patch when flag (the way the write-up tells users to set it).
func Kustomization(flag bool) string {
	k := "# namespace.yaml is not a resource here: the Namespace is kept out of the Application\n" +
		"apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n- serving-core.yaml\n"
	if flag {
		k += `patches:
- target: {kind: Deployment, name: webhook, namespace: knative-serving}
  patch: |-
    apiVersion: apps/v1
    kind: Deployment
    metadata: {name: webhook, namespace: knative-serving}
    spec:
      template:
        spec:
          containers:
          - name: webhook
            env:
            - name: ` + FlagEnv + `
              value: "true"
`
	}
	return k
}

// Release is the Knative release of a knative.dev/serving module version:
// v0.N.P ships in Knative 1.(N-27).P (v0.43.0 is 1.16.0).
func Release(version string) (string, error) {
	var minor, patch int
	if _, err := fmt.Sscanf(version, "v0.%d.%d", &minor, &patch); err != nil || minor < 28 {
		return "", fmt.Errorf("%s %q: not a v0.N.P module version of Knative 1.x", servingModule, version)
	}
	return "1." + strconv.Itoa(minor-27) + "." + strconv.Itoa(patch), nil
}

// Required is the version go.mod requires of module (a replace of it is
// an error: none of Knative's releases replaces these modules).
func Required(gomod, module string) (string, error) {
	if regexp.MustCompile(`(?m)^\s*(replace\s+)?` + regexp.QuoteMeta(module) + `(\s+v\S+)?\s+=>`).MatchString(gomod) {
		return "", fmt.Errorf("go.mod of %s replaces %s; not supported", servingModule, module)
	}
	for _, line := range strings.Split(gomod, "\n") {
		f := strings.Fields(strings.TrimPrefix(strings.TrimSpace(line), "require "))
		if len(f) >= 2 && f[0] == module && strings.HasPrefix(f[1], "v") {
			return f[1], nil
		}
	}
	return "", fmt.Errorf("go.mod of %s requires no %s", servingModule, module)
}
