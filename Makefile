# gitops-conformance: reproduce GitOps integration bugs on kind with real ArgoCD.
# `make help` lists the targets.

SHELL := /bin/bash
GO ?= go
export GOTOOLCHAIN := local
export GOSUMDB := off
# openkruise-webhook offline: where the kruise chart comes from (a directory holding
# versions/kruise/<version>/, an archive of one, or a directory of archives)
export OPENKRUISE_CHARTS ?= $(if $(wildcard ../shared/upstream/openkruise),$(abspath ../shared/upstream/openkruise))

SCENARIO ?=
VARIANT ?=
ARGOCD ?=
COMPONENT_VERSION ?=
MODE ?= auto
REPEAT ?= 1
KEEP ?= 0
CLUSTER ?= gitops-conformance
FROM ?=
TO ?=
E2E_TIMEOUT ?= 170m
# make test's end-to-end smoke: the quickest real scenario, the bug and one mitigation.
SMOKE_SCENARIO ?= kubeovn-argocd
SMOKE_VARIANT ?= bug,ignore-differences
SMOKE_ARGOCD ?= $(shell sed -n 's/^  smoke: //p' pkg/catalog/catalog.yaml)

CLI := bin/conformance
KEEP_FLAG := $(if $(filter 1 true yes,$(KEEP)),-keep,)
SELECTION = -scenario "$(SCENARIO)" -variant "$(VARIANT)" -argocd "$(ARGOCD)" -version "$(COMPONENT_VERSION)" -mode "$(MODE)"

.PHONY: help test unit e2e argocd-check matrix list bisect smoke verify bench clean cluster-delete

help: ## list the targets
	@awk 'BEGIN{FS=":.*## "} /^[a-z0-9-]+:.*## /{printf "  %-16s %s\n", $$1, $$2}' $(MAKEFILE_LIST)

$(CLI): $(shell find cmd pkg suites -name '*.go' -o -name '*.yaml' 2>/dev/null) go.mod
	@$(GO) build -o $(CLI) ./cmd/conformance

test: unit smoke ## unit tests, then one real end-to-end scenario on kind (what .ci/run calls)

unit: ## unit tests: seconds, no Docker
	$(GO) test -count=1 ./...

smoke: $(CLI) ## the end-to-end smoke: cluster checks and kubeovn-argocd on one ArgoCD release
	@$(CLI) check -scenario $(SMOKE_SCENARIO) -variant $(SMOKE_VARIANT) -argocd $(SMOKE_ARGOCD) -mode $(MODE)
	$(GO) test -tags e2e -count=1 -v -timeout $(E2E_TIMEOUT) ./suites -run 'TestCluster|TestMatrix' -args \
	  -scenario $(SMOKE_SCENARIO) -variant $(SMOKE_VARIANT) -argocd $(SMOKE_ARGOCD) -mode $(MODE) \
	  -repeat $(REPEAT) -cluster $(CLUSTER) $(KEEP_FLAG) -command "make smoke"

e2e: $(CLI) ## run cells: SCENARIO=a[,b] [VARIANT=..] [ARGOCD=tag[,tag]] [COMPONENT_VERSION=v[,v]] [REPEAT=N] [KEEP=1] [MODE=offline|online]
	@$(CLI) check $(SELECTION)
	$(GO) test -tags e2e -count=1 -v -timeout $(E2E_TIMEOUT) ./suites -run TestMatrix -args $(SELECTION) \
	  -repeat $(REPEAT) -cluster $(CLUSTER) $(KEEP_FLAG) \
	  -command "make e2e SCENARIO=$(SCENARIO) VARIANT=$(VARIANT) ARGOCD=$(ARGOCD) COMPONENT_VERSION=$(COMPONENT_VERSION) REPEAT=$(REPEAT)"

argocd-check: $(CLI) ## install each ArgoCD release of the axis, sync a fixture, upgrade the oldest in place [ARGOCD=..]
	@$(CLI) check -scenario $(SMOKE_SCENARIO) -argocd "$(ARGOCD)" -mode $(MODE)
	$(GO) test -tags e2e -count=1 -v -timeout $(E2E_TIMEOUT) ./suites -run 'TestArgoCD' -args \
	  -argocd "$(ARGOCD)" -mode $(MODE) -cluster $(CLUSTER) $(KEEP_FLAG) -command "make argocd-check ARGOCD=$(ARGOCD)"

matrix: ## every scenario and variant on the default ArgoCD axis (REPEAT=N for k/N)
	@$(MAKE) --no-print-directory e2e SCENARIO= VARIANT= COMPONENT_VERSION= ARGOCD="$(ARGOCD)"

list: $(CLI) ## scenarios, variants, ArgoCD and component versions
	@$(CLI) list

bisect: $(CLI) ## SCENARIO=s VARIANT=v FROM=tag TO=tag: where the outcome changes
	@$(CLI) bisect -scenario "$(SCENARIO)" -variant "$(VARIANT)" -from "$(FROM)" -to "$(TO)"
	@$(if $(KEEP_FLAG),,$(MAKE) --no-print-directory cluster-delete)

bench: ## benchmarks: node image, cluster create, ArgoCD image and install, cluster reuse
	./hack/bench.sh

verify: ## gofmt, go vet, golangci-lint, go mod tidy check
	@test -z "$$(gofmt -l cmd pkg suites scenarios)" || { gofmt -l cmd pkg suites scenarios; echo "gofmt: files above need formatting"; exit 1; }
	$(GO) vet ./... && $(GO) vet -tags e2e ./suites
	./hack/golangci-lint.sh
	@cp go.mod /tmp/go.mod.verify && cp go.sum /tmp/go.sum.verify && $(GO) mod tidy && \
	  if ! diff -q go.mod /tmp/go.mod.verify >/dev/null || ! diff -q go.sum /tmp/go.sum.verify >/dev/null; then \
	    echo "go mod tidy changed go.mod/go.sum: commit the result"; exit 1; fi

cluster-delete: ## delete the suite's kind cluster
	-@$(shell ls -1 $${XDG_CACHE_HOME:-$$HOME/.cache}/gitops-conformance/bin/kind-* 2>/dev/null | head -1) delete cluster --name $(CLUSTER)

clean: cluster-delete ## delete the cluster and local build outputs (image caches stay)
	rm -rf bin
