package check

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/gitops-conformance/suite/internal/kube"
	"github.com/gitops-conformance/suite/pkg/lifecycle"
)

// The reads below are what looks built outside this package (make
// conform's, from a chart's rendered objects) compose: one object, a
// selection, the cluster's webhooks, the nodes' images. Any failure is an
// error, a missing object included: lifecycle.NotFound tells "not there"
// from "could not tell", and a look returns assert.Unknown for the latter.

// Get reads one object.
func Get(ctx context.Context, obj lifecycle.Object) (*unstructured.Unstructured, error) {
	return lifecycle.Get(ctx, obj.Kind, obj.Namespace, obj.Name)
}

// List reads the objects of one kind a selection selects.
func List(ctx context.Context, sel lifecycle.Selection) (*unstructured.UnstructuredList, error) {
	return lifecycle.From(ctx).Kube.List(ctx, sel.Kinds, sel.Namespace, sel.Labels)
}

// Serves reports whether the cluster serves a kind (kind.group, as
// kubectl's command line names it): discovery asked again when it does not
// know it.
func Serves(ctx context.Context, kind string) (bool, error) {
	_, _, err := lifecycle.From(ctx).Kube.Resource(kind)
	if errors.Is(err, kube.ErrNoResourceType) {
		return false, nil
	}
	return err == nil, err
}

// LiveWebhooks are the webhooks of the cluster's webhook configurations.
func LiveWebhooks(ctx context.Context) ([]Webhook, error) {
	var docs []string
	for _, kind := range []string{ValidatingWebhooks, MutatingWebhooks} {
		list, err := List(ctx, lifecycle.Selection{Kinds: kind + "s.admissionregistration.k8s.io"})
		if err != nil {
			return nil, fmt.Errorf("list %ss: %w", kind, err)
		}
		for _, o := range list.Items {
			if o.GetKind() == "" {
				o.SetKind(map[string]string{ValidatingWebhooks: "ValidatingWebhookConfiguration", MutatingWebhooks: "MutatingWebhookConfiguration"}[kind])
			}
			data, err := json.Marshal(o.Object)
			if err != nil {
				return nil, err
			}
			docs = append(docs, string(data))
		}
	}
	return Webhooks(strings.Join(docs, "\n---\n"))
}

// NodeImages are the images the cluster's nodes report holding (the
// kubelet's status.images: tags and digests).
func NodeImages(ctx context.Context) ([]string, error) {
	nodes, err := List(ctx, lifecycle.Selection{Kinds: "nodes"})
	if err != nil {
		return nil, err
	}
	var out []string
	for _, n := range nodes.Items {
		imgs, _, _ := unstructured.NestedSlice(n.Object, "status", "images")
		for _, i := range imgs {
			m, _ := i.(map[string]any)
			names, _ := m["names"].([]any)
			for _, name := range names {
				if s, ok := name.(string); ok {
					out = append(out, s)
				}
			}
		}
	}
	return out, nil
}

// WebhookConfigs are the webhook configurations there now (ConfigRef): what
// was there before a chart, to tell the configurations its controllers
// register at run time from those of others.
func WebhookConfigs(ctx context.Context) (map[string]bool, error) {
	ws, err := LiveWebhooks(ctx)
	if err != nil {
		return nil, err
	}
	out := map[string]bool{}
	for _, w := range ws {
		out[w.ConfigRef()] = true
	}
	return out, nil
}
