package check

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"sigs.k8s.io/yaml"

	"github.com/gitops-conformance/suite/pkg/lifecycle"
)

// Webhook is what a webhook configuration says about one of its webhooks:
// whom it calls, what it matches and what a failed call does.
type Webhook struct {
	// Config is the configuration holding it, as kubectl names its kind
	// (validatingwebhookconfiguration, mutatingwebhookconfiguration), and
	// ConfigName its name.
	Config            string                `json:"-"`
	ConfigName        string                `json:"-"`
	Name              string                `json:"name"`
	FailurePolicy     string                `json:"failurePolicy"`
	ClientConfig      WebhookClient         `json:"clientConfig"`
	Rules             []WebhookRule         `json:"rules"`
	NamespaceSelector *metav1.LabelSelector `json:"namespaceSelector"`
	ObjectSelector    *metav1.LabelSelector `json:"objectSelector"`
}

// ConfigRef is the webhook's configuration as kubectl names it: kind/name.
func (w Webhook) ConfigRef() string { return w.Config + "/" + w.ConfigName }

// ConfigObject is the webhook's configuration in the cluster.
func (w Webhook) ConfigObject() lifecycle.Object {
	kind := map[string]string{ValidatingWebhooks: "ValidatingWebhookConfiguration", MutatingWebhooks: "MutatingWebhookConfiguration"}[w.Config]
	return lifecycle.Object{Kind: w.Config, APIKind: kind, Name: w.ConfigName}
}

// ConfigRefs are the webhooks' configurations (ConfigRef), each once, in order.
func ConfigRefs(ws []Webhook) []string {
	var out []string
	for _, w := range ws {
		if r := w.ConfigRef(); !slices.Contains(out, r) {
			out = append(out, r)
		}
	}
	return out
}

// WebhookClient is where the API server sends a webhook's calls: a Service
// in the cluster, or a URL.
type WebhookClient struct {
	Service *WebhookService `json:"service"`
	URL     string          `json:"url"`
}

// WebhookService is the Service a webhook calls.
type WebhookService struct {
	Namespace string `json:"namespace"`
	Name      string `json:"name"`
}

// WebhookRule is one rule of a webhook: the operations on the resources it is called for.
type WebhookRule struct {
	APIGroups   []string `json:"apiGroups"`
	APIVersions []string `json:"apiVersions"`
	Operations  []string `json:"operations"`
	Resources   []string `json:"resources"`
}

// The kinds of webhook configuration, as kubectl names them.
const (
	ValidatingWebhooks = "validatingwebhookconfiguration"
	MutatingWebhooks   = "mutatingwebhookconfiguration"
)

// Webhooks are the webhooks of every webhook configuration in a manifest
// (documents separated by ---), in order. A missing namespaceSelector or
// objectSelector is the API server's default: everything.
func Webhooks(manifest string) ([]Webhook, error) {
	var out []Webhook
	for _, raw := range strings.Split("\n"+manifest, "\n---") {
		var doc struct {
			Kind     string `json:"kind"`
			Metadata struct {
				Name string `json:"name"`
			} `json:"metadata"`
			Webhooks []Webhook `json:"webhooks"`
		}
		if err := yaml.Unmarshal([]byte(raw), &doc); err != nil {
			return nil, fmt.Errorf("parse the manifest: %w", err)
		}
		kind := strings.ToLower(doc.Kind)
		if kind != ValidatingWebhooks && kind != MutatingWebhooks {
			continue
		}
		for _, w := range doc.Webhooks {
			w.Config, w.ConfigName = kind, doc.Metadata.Name
			if w.NamespaceSelector == nil {
				w.NamespaceSelector = &metav1.LabelSelector{}
			}
			if w.ObjectSelector == nil {
				w.ObjectSelector = &metav1.LabelSelector{}
			}
			out = append(out, w)
		}
	}
	return out, nil
}

// FindWebhook finds webhook name in a manifest (see Webhooks).
func FindWebhook(manifest, name string) (Webhook, error) {
	all, err := Webhooks(manifest)
	if err != nil {
		return Webhook{}, err
	}
	for _, w := range all {
		if w.Name == name {
			return w, nil
		}
	}
	return Webhook{}, fmt.Errorf("no webhook %s in the manifest", name)
}

// Selects tells whether sel selects an object (a namespace) with these
// labels: the webhook then applies to it.
func Selects(sel *metav1.LabelSelector, set map[string]string) (bool, error) {
	s, err := metav1.LabelSelectorAsSelector(sel)
	if err != nil {
		return false, err
	}
	return s.Matches(labels.Set(set)), nil
}

// SelectorText is a label selector as kubectl's -l takes it ("" for
// everything).
func SelectorText(sel *metav1.LabelSelector) string {
	s, err := metav1.LabelSelectorAsSelector(sel)
	if err != nil {
		return fmt.Sprintf("invalid selector: %v", err)
	}
	return s.String()
}

// SortedLabels is a label set as {k=v,...}, sorted.
func SortedLabels(l map[string]string) string {
	kv := make([]string, 0, len(l))
	for k, v := range l {
		kv = append(kv, k+"="+v)
	}
	sort.Strings(kv)
	return "{" + strings.Join(kv, ",") + "}"
}
