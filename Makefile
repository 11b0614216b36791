# gitops-conformance: reproduce GitOps integration bugs on kind with real ArgoCD.
# `make help` lists the targets.

SHELL := /bin/bash
GO ?= go
# The suite's Go is go.mod's toolchain line (go1.27.3; ArgoCD 3.6's API types
# need Go 1.27): GOTOOLCHAIN=auto takes it from the module proxy, once, where
# this machine's Go is older. The go command verifies a toolchain against the
# checksum database and refuses under GOSUMDB=off ("checksum database disabled
# by GOSUMDB=off"), so the database is on and GONOSUMDB=* leaves every module
# out of it, as GOSUMDB=off did. The image recipes set their own Go
# (GOTOOLCHAIN=local, or a release's approved toolchain: images/argocd/gotoolchain.sh).
export GOTOOLCHAIN := auto
export GOSUMDB := sum.golang.org
export GONOSUMDB := *
# -trimpath: compiled packages do not depend on where the module cache is, so
# the build cache serves a run whose GOMODCACHE is new (CI starts each run on
# an empty one) instead of recompiling every dependency.
export GOFLAGS := $(strip $(GOFLAGS) -trimpath)
# What the Makefile takes from pkg/catalog/catalog.yaml, read by the CLI
# (bin/conformance catalog defaults, catalog.MakeDefaults) into $(CATALOG_MK),
# which make remakes when the catalog or its reader changes and then reads
# again: SOURCE_DEFAULTS, CATALOG_SMOKE_ARGOCD, CATALOG_KUBERNETES, CATALOG_KIND,
# CATALOG_ARGOCD. make help and make clean alone do without it.
CATALOG_MK ?= bin/catalog.mk
# make conform without CHART is refused here, before the include below compiles the CLI
ifneq ($(filter conform,$(MAKECMDGOALS)),)
ifeq ($(strip $(CHART)),)
$(error make conform: CHART= names the chart to check (a chart directory, a .tgz, or a chart repository URL with CHART_NAME and CHART_VERSION))
endif
endif
ifneq ($(filter-out help clean,$(or $(MAKECMDGOALS),help)),)
include $(CATALOG_MK)
endif
CATALOG_INPUTS ?= pkg/catalog/catalog.yaml $(wildcard pkg/catalog/*.go) cmd/conformance/catalog.go
$(CATALOG_MK): $(CATALOG_INPUTS)
	@mkdir -p $(@D) && $(GO) build -o $(CLI) ./cmd/conformance && $(CLI) catalog defaults > $@.tmp && mv $@.tmp $@

# Offline sources the user provides (docs/offline-online.md): each
# `sources: {env: VAR, ..., default: PATH}` of the catalog exports VAR, when
# unset, as PATH from the checkout if it exists (OPENKRUISE_CHARTS,
# KARGO_SOURCES, ARGOCD_SOURCES; catalog.Sources.Default). A new source needs
# its catalog entry only; TestMakefileSourceDefaults checks this reading.
source_default = export $(1) ?= $(if $(wildcard $(2)),$(abspath $(2)))
$(foreach d,$(SOURCE_DEFAULTS),$(eval $(call source_default,$(firstword $(subst =, ,$(d))),$(lastword $(subst =, ,$(d))))))

SCENARIO ?=
VARIANT ?=
ARGOCD ?=
COMPONENT_VERSION ?=
# Kubernetes versions (or minors: v1.35) of the catalog's axis; empty: each scenario's
KUBERNETES ?=
MODE ?= auto
# online: a registry mirror (host:port) the nodes pull docker.io, quay.io, ghcr.io,
# gcr.io, registry.k8s.io, reg.kyverno.io and public.ecr.aws through
REGISTRY_MIRROR ?=
# the node image: empty for the mode's, "built" for the suite's own build, or an image
NODE_IMAGE ?=
# offline: how built images reach the nodes: load (kind load) or registry (the suite's registry)
DELIVER ?= load
REPEAT ?= 1
# the axes not named: quick (each scenario's quick tier, suites/matrix.yaml) or full (every axis);
# make matrix runs full
TIER ?= quick
# kind clusters the cells run on at once (one process each, one report): a number, or auto:
# as many as this machine runs side by side (cores, memory, inotify) where the plan's estimate
# is shorter for it
PARALLEL ?= auto
MATRIX_PARALLEL ?= auto
# a cell no measured expectation covers: ok (listed in the report) or fail
UNMEASURED ?= ok
KEEP ?= 0
CLUSTER ?= gitops-conformance
# only these cells (IDs as the report names them, comma-separated)
CELLS ?=
FROM ?=
TO ?=
# make e2e's time limit: auto (derived from the plan's cold estimate) or a duration, which a
# plan whose estimate exceeds it is refused against; the other targets' limit is E2E_LIMIT
E2E_TIMEOUT ?= auto
E2E_LIMIT = $(if $(filter auto,$(E2E_TIMEOUT)),170m,$(E2E_TIMEOUT))
# make test's end-to-end smoke: the quickest real scenario, the bug and one mitigation.
SMOKE_SCENARIO ?= kubeovn-argocd
SMOKE_VARIANT ?= bug,ignore-differences
SMOKE_ARGOCD ?= $(CATALOG_SMOKE_ARGOCD)
# the smoke and the tests built on it run on the catalog's default Kubernetes
SMOKE_KUBERNETES ?= $(CATALOG_KUBERNETES)

CLI := bin/conformance
# The e2e test binary (go test -c -tags e2e ./suites): make runs it directly so
# its exit status reaches the caller's script unchanged (go test folds every
# failure into 1): 0 every cell as expected, 1 a cell ERROR, FLAKY or
# unexpected, 2 bad input (nothing started), 130 interrupted. make itself turns
# any failure into 2: run $(E2E) directly (same flags) where the status matters.
E2E := bin/e2e.test
KEEP_FLAG := $(if $(filter 1 true yes,$(KEEP)),-keep,)
PULL = -registry-mirror "$(REGISTRY_MIRROR)" -node-image "$(NODE_IMAGE)" -deliver "$(DELIVER)"
SELECTION = -scenario "$(SCENARIO)" -variant "$(VARIANT)" -argocd "$(ARGOCD)" -version "$(COMPONENT_VERSION)" -kubernetes "$(KUBERNETES)" -tier "$(TIER)" -mode "$(MODE)" -unmeasured "$(UNMEASURED)" $(PULL)
RUN_E2E = cd suites && ../$(E2E) -test.v -test.count=1 -test.timeout $(E2E_LIMIT)
# make e2e's settings, from the CLI's check of the plan (E2E_LIMIT=, E2E_CLUSTERS=): one file
# per cluster name, as runs side by side in one checkout each have their own CLUSTER (a shared
# one gave a run another's time limit, run 20261127-003339-2)
RUN_FILE = bin/e2e.run.$(CLUSTER)

.PHONY: docs help test unit unit-online e2e conform conform-smoke conform-validate upgrade-check-apps upgrade-check-fleet bench-upgrade-check argocd-check matrix list plan bisect sweep smoke fault-test interrupt-test verify bench clean cluster-delete
.PHONY: FORCE ci-cold bench-probe bench-builds bench-quick report-merge report-render report-diff report-history releases tested-ranges lint-workflows merge-check mirror-check bench-delivery bench-infra repro

help: ## list the targets
	@awk -v full=$(if $(FULL),1,0) -f hack/help.awk $(MAKEFILE_LIST)

# The two binaries: make asks the go command every time, and it decides what is stale (every
# package, embedded file, go.mod and go.sum they compile from; a list of sources here left out
# internal/ and fixtures/, and make ran the old binary). With nothing new, a build takes about 2s.
# TestMakeRebuildsOnEveryInput (cmd/conformance) checks an edit to any input rebuilds them.
$(CLI): FORCE
	@$(GO) build -o $(CLI) ./cmd/conformance

$(E2E): FORCE
	@test -e $(E2E) || echo "building the e2e test binary (a few minutes on a cold machine)"
	@$(GO) test -c -tags e2e -o $(E2E) ./suites

FORCE:

# make test's steps, run one after the other by hack/phases.sh, which prints
# each one's wall time and the machine's CPU-seconds (make ci-cold's table)
TEST_STEPS := unit unit-online lint-workflows smoke merge-check conform-smoke upgrade-check-smoke mirror-check fault-test interrupt-test
test: ## unit tests (the online ones too), workflow lint, one real end-to-end scenario on kind, the nightly merge step on its report, make conform on the clean chart, make upgrade-check on it, the online pull path through a registry mirror, the API-fault and interrupt tests (what .ci/run calls)
	@MAKE="$(MAKE)" ./hack/phases.sh $(TEST_STEPS)

# The unit tests' binaries are linked without DWARF (-w; stack traces and the
# race detector's reports do not need it): linking them is most of make unit's
# time, and -w takes about 40% off it. go test runs as many packages at once
# as there are cores (-p); a test run holds its slot while it mostly waits (a
# race binary's start, a script's child processes), so at least 4 keep 2 cores
# busy (make unit about 20% shorter there).
UNIT_FLAGS := -count=1 -race -ldflags=-w -p $(shell n=$$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 1); echo $$(( n > 4 ? n : 4 )))
# The packages holding a test that -short leaves out (it calls testing.Short()).
ONLINE_PACKAGES = $(patsubst %/,./%,$(sort $(dir $(shell grep -rl --include='*_test.go' 'testing.Short()' cmd pkg internal scenarios suites hack docs))))

unit: ## unit tests, -short -race: offline (no network, nothing from ../shared, no Docker)
	$(GO) test -short $(UNIT_FLAGS) ./...

unit-online: ## the unit tests -short leaves out, on purpose: those that ask the Go module proxy (module zips, releases) or render real charts from the sources the Makefile exports (../shared/upstream); each fails, saying what to provide, without them
	$(GO) test $(UNIT_FLAGS) $(ONLINE_PACKAGES)

smoke: $(CLI) ## the end-to-end smoke: cluster checks and kubeovn-argocd on one ArgoCD release
	@$(CLI) check -scenario $(SMOKE_SCENARIO) -variant $(SMOKE_VARIANT) -argocd $(SMOKE_ARGOCD) -kubernetes $(SMOKE_KUBERNETES) -mode $(MODE) $(PULL)
	@$(MAKE) --no-print-directory $(E2E)
	$(RUN_E2E) -test.run 'TestCluster|TestMatrix' \
	  -scenario $(SMOKE_SCENARIO) -variant $(SMOKE_VARIANT) -argocd $(SMOKE_ARGOCD) -kubernetes $(SMOKE_KUBERNETES) -mode $(MODE) $(PULL) \
	  -repeat $(REPEAT) -cluster $(CLUSTER) $(KEEP_FLAG) -command "make smoke"

# make e2e: E2E_REPORTS=dir writes the run's report under dir (make bench-quick gives each run one
# of its own, to read the report that run wrote); its estimate still reads the times under reports/
E2E_REPORTS ?=

# make e2e: the plan is checked and printed, with its estimate, before the e2e test binary is
# compiled or anything built; bad input ends there (exit 2)
e2e: $(CLI) ## run cells: SCENARIO=a[,b] [VARIANT=..] [ARGOCD=tag[,tag]] [COMPONENT_VERSION=v[,v]] [KUBERNETES=v[,v]] [TIER=quick|full] [CELLS=id[,id]] [REPEAT=N] [PARALLEL=N|auto] [KEEP=1] [MODE=offline|online]
	@$(CLI) check $(SELECTION) -repeat $(REPEAT) -cells "$(CELLS)" -parallel $(PARALLEL) -limit $(E2E_TIMEOUT) -run-file $(RUN_FILE)
	@$(MAKE) --no-print-directory $(E2E)
	. ./$(RUN_FILE) && $(RUN_E2E) -test.timeout $$E2E_LIMIT -test.run TestMatrix $(SELECTION) \
	  -repeat $(REPEAT) -clusters $$E2E_CLUSTERS -cells "$(CELLS)" -cluster $(CLUSTER) $(KEEP_FLAG) $(if $(E2E_REPORTS),-reports "$(abspath $(E2E_REPORTS))" -costs "$(CURDIR)/reports") \
	  -command "$(or $(E2E_COMMAND),make e2e SCENARIO=$(SCENARIO) VARIANT=$(VARIANT) ARGOCD=$(ARGOCD) COMPONENT_VERSION=$(COMPONENT_VERSION)$(if $(KUBERNETES), KUBERNETES=$(KUBERNETES)) TIER=$(TIER) REPEAT=$(REPEAT) PARALLEL=$(PARALLEL)$(if $(CELLS), CELLS=$(CELLS)))"

# make conform: the chart to check and how it is installed (docs/conform.md)
CHART ?=
CHART_NAME ?=
CHART_VERSION ?=
CHART_DIGEST ?=
VALUES ?=
NAMESPACE ?=
NAMESPACE_LABELS ?=
RELEASE ?=
EXTRA ?=
CHECKS ?=
IMAGES ?=
IMAGE_RECIPES ?=
SYNC_OPTIONS ?=
# make conform: check=REPRODUCED,... expected instead of NOT_REPRODUCED (a finding known and accepted)
EXPECT ?=
CONFORM = -chart "$(CHART)" -chart-name "$(CHART_NAME)" -chart-version "$(CHART_VERSION)" -chart-digest "$(CHART_DIGEST)" \
  -values "$(VALUES)" -namespace "$(NAMESPACE)" -namespace-labels "$(NAMESPACE_LABELS)" -release "$(RELEASE)" -extra "$(EXTRA)" \
  -checks "$(CHECKS)" -images "$(IMAGES)" -image-recipes "$(IMAGE_RECIPES)" -sync-options "$(SYNC_OPTIONS)" -ignore-differences "$(IGNORE_DIFFERENCES)" -argocd-cmd-params "$(ARGOCD_CMD_PARAMS)" -expect "$(EXPECT)" -expect-why "$(EXPECT_WHY)"

conform: $(E2E) ## the bug classes the scenarios reproduced, checked on a chart, each a cell of the report: CHART=dir|.tgz|repo-url [CHART_VERSION=v] [CHART_NAME=n] [VALUES=file] [NAMESPACE=ns] [NAMESPACE_LABELS=k=v] [EXTRA=dir] [ARGOCD=tag] [KUBERNETES=v] [CHECKS=a,b] [IMAGES=img,img] (docs/conform.md)
	$(RUN_E2E) -test.run TestConform $(CONFORM) -argocd "$(ARGOCD)" -kubernetes "$(KUBERNETES)" -mode $(MODE) $(PULL) \
	  -repeat $(REPEAT) -cluster $(CLUSTER) $(KEEP_FLAG)

conform-smoke: $(E2E) ## make conform on the suite's clean chart (fixtures/charts/conform-clean) on SMOKE_ARGOCD: every check must come out NOT_REPRODUCED (about 11 minutes with its ArgoCD install: run 20261129-082116, every check of that day)
	$(RUN_E2E) -test.run TestConform -chart fixtures/charts/conform-clean -namespace conform-clean -argocd $(SMOKE_ARGOCD) -kubernetes $(SMOKE_KUBERNETES) -mode $(MODE) $(PULL) \
	  -cluster $(CLUSTER) $(KEEP_FLAG) -command "make conform-smoke"

# make conform, make upgrade-check: EXPECT_WHY says where EXPECT's outcomes come from
EXPECT_WHY ?=
# make upgrade-check: the Applications (a YAML file or directory; default: the seed charts as the
# suite installs them, written under UPGRADE_APPS by bin/conformance upgrade-check apps), and the
# argocd-cm settings they run with (a ConfigMap manifest or a map of its data)
APPS ?=
# make upgrade-check: the argocd-cmd-params-cm settings ArgoCD runs with (a ConfigMap manifest or a map of its data)
ARGOCD_CMD_PARAMS ?=
IGNORE_DIFFERENCES ?=
# make upgrade-check's settings (METHOD, SELF_SYNC_OPTIONS, OVERLAY, METRICS, CHANGE, DURING_SYNC,
# WEBHOOK, SHARD, REPO, REPOS, ISOLATE, LIFECYCLE, ARGOCD_CM) are declared once, in
# pkg/upgrade/spec/settings.go: the CLI and the e2e test binary read them from the environment, where
# make puts its command line's variables (`bin/conformance upgrade-check settings` lists them)
UPGRADE = -from "$(FROM)" -to "$(TO)" -images "$(IMAGES)" -image-recipes "$(IMAGE_RECIPES)" -argocd-cmd-params "$(ARGOCD_CMD_PARAMS)" \
  -expect "$(EXPECT)" -expect-why "$(EXPECT_WHY)" -kubernetes "$(KUBERNETES)" -mode $(MODE) $(PULL)

upgrade-check: $(CLI) ## FROM=tag TO=tag [APPS=file|dir] [REPO=checkout] [SETTING=value ..: bin/conformance upgrade-check settings] [EXPECT=app=SAFE|CHANGED|BROKEN|RACE]: each Application through an in-place ArgoCD upgrade, a cell of the report (docs/upgrade-check.md)
	@test -n "$(FROM)" && test -n "$(TO)" || { echo "make upgrade-check: FROM= and TO= name the ArgoCD releases (e.g. FROM=v3.4.7 TO=v3.5.1); APPS= your Applications (default: the seed charts)"; exit 2; }
	$(if $(APPS)$(REPO)$(REPOS),,@$(CLI) upgrade-check apps -out "$(UPGRADE_APPS)" $(if $(ONLY),-only "$(ONLY)"))
	@$(CLI) upgrade-check check -apps "$(APPS_USED)" $(UPGRADE)
	@$(MAKE) --no-print-directory $(E2E)
	$(RUN_E2E) -test.run TestUpgradeCheck -apps "$(APPS_USED)" $(UPGRADE) -repeat $(REPEAT) -cluster $(CLUSTER) $(KEEP_FLAG)

# make upgrade-check-fleet: where the fleet fixture's checkout is written
FLEET_REPO ?= bin/team-gitops
upgrade-check-fleet: $(CLI) ## FROM=tag TO=tag: make upgrade-check on the fleet fixture (fixtures/fleet/team-gitops written as a git checkout with history into FLEET_REPO: ApplicationSets with Git, Matrix and List generators, a multi-source Application with a $$values file, an app-of-apps parent, a kustomize Application, a platform guard whose webhook refuses another's Pods), served as REPO, on one ArgoCD
	@test -n "$(FROM)" && test -n "$(TO)" || { echo "make upgrade-check-fleet: FROM= and TO= name the ArgoCD releases (e.g. FROM=v3.4.7 TO=v3.5.1)"; exit 2; }
	@$(CLI) upgrade-check fleet-repo -out "$(FLEET_REPO)"
	@$(MAKE) --no-print-directory upgrade-check FROM=$(FROM) TO=$(TO) REPO="$(FLEET_REPO)" APPS="$(FLEET_REPO)/apps"

# make bench-upgrade-check: the fleet's size, the upgrade it goes through (FROM and TO when
# given), and where its checkout is written
N ?= 200
# (the releases make e2e SCENARIO=knative-argocd builds: warm after the main job)
BENCH_FROM ?= v2.14.11
BENCH_TO ?= v3.6.1
BENCH_FLEET ?= bin/bench-fleet
# the bench measures the render tier; LIFECYCLE=changed or all adds the syncs and the deletion
BENCH_LIFECYCLE ?= none
bench-upgrade-check: $(CLI) ## N=200 [FROM=tag TO=tag]: make upgrade-check's fleet throughput: N Applications generated by ApplicationSets (the fleet fixture's chart with differing values, plain directories) from a repository served with its history, rendered on FROM and TO (default BENCH_FROM -> BENCH_TO) on one ArgoCD upgraded in place; prints each phase's seconds and Applications per second (also reports/latest/bench-upgrade-check.md)
	@$(CLI) upgrade-check fleet-repo -out "$(BENCH_FLEET)" -n $(N)
	@$(MAKE) --no-print-directory upgrade-check FROM=$(or $(FROM),$(BENCH_FROM)) TO=$(or $(TO),$(BENCH_TO)) REPO="$(BENCH_FLEET)" APPS="$(BENCH_FLEET)/apps" METRICS=none LIFECYCLE=$(or $(LIFECYCLE),$(BENCH_LIFECYCLE)); \
	  rc=$$?; $(CLI) upgrade-check bench reports/latest | tee reports/latest/bench-upgrade-check.md; \
	  echo "bench-upgrade-check: make upgrade-check exited $$rc (its verdicts: reports/latest)"

# make upgrade-check's Applications: APPS, else the seeds' written under UPGRADE_APPS. Each
# step is a line of its own, so make -n runs none of them but the sub-make (which -n reaches).
APPS_USED = $(or $(APPS),$(if $(REPO)$(REPOS),,$(UPGRADE_APPS)))

# make upgrade-check-smoke: SMOKE_ARGOCD upgraded in place to the next release of the default axis
UPGRADE_SMOKE_TO ?= v2.14.21

upgrade-check-smoke: $(CLI) ## make upgrade-check on the suite's clean chart as a team's exported Application (suites/upgrade-check/smoke-apps.yaml), SMOKE_ARGOCD -> UPGRADE_SMOKE_TO: it must come through SAFE (about 6 minutes)
	@$(MAKE) --no-print-directory upgrade-check FROM=$(SMOKE_ARGOCD) TO=$(UPGRADE_SMOKE_TO) APPS=suites/upgrade-check/smoke-apps.yaml KUBERNETES=$(SMOKE_KUBERNETES)

upgrade-check-validate: $(CLI) $(E2E) ## make upgrade-check's known answers (suites/upgrade-check-validate.yaml: upgrade paths, some in the fleet, from argo-cd#27875 and #27344 to client-side apply of 3.3, 3.0's orphans, a CronJob's failed run, Helm 4's null defaults, a webhook keeping ArgoCD's Pods out), each one make upgrade-check run expecting the verdicts measured there, PARALLEL runs side by side (auto: as many clusters as this machine runs), each on a cluster of its own; writes docs/upgrade-check-validation.md, fails when an answer differs [ONLY=name,name] [KEEP=1]
	$(CLI) upgrade-check validate -e2e $(E2E) -cluster $(CLUSTER) -parallel $(PARALLEL) $(KEEP_FLAG) -only "$(ONLY)" -- -kubernetes "$(KUBERNETES)" -mode $(MODE) $(PULL)

# make conform-validate, make upgrade-check-validate: only these validations; make upgrade-check-apps:
# only these Applications of suites/upgrade-check.yaml (names, comma-separated)
ONLY ?=
# make upgrade-check-apps: where make upgrade-check's default APPS are written
UPGRADE_APPS ?= bin/upgrade-check-apps

conform-validate: $(CLI) $(E2E) ## make conform on the charts the scenarios measured (suites/conform.yaml), each against its known answers, one run each on one cluster; writes docs/conform-validation.md, fails when an answer differs [ONLY=name,name] [KEEP=1]
	$(CLI) conform validate -e2e $(E2E) -cluster $(CLUSTER) $(KEEP_FLAG) -only "$(ONLY)" -- -mode $(MODE) $(PULL)

upgrade-check-apps: $(CLI) ## write make upgrade-check's default APPS, the seeds' charts as their scenarios install them on ArgoCD 3.4/3.5 (suites/upgrade-check.yaml): an Application (NAME.yaml) and its chart (NAME/) each, into UPGRADE_APPS (default bin/upgrade-check-apps) [ONLY=name,name]
	@$(CLI) upgrade-check apps -out "$(UPGRADE_APPS)" -only "$(ONLY)"

argocd-check: $(CLI) ## install each ArgoCD release of the axis, sync a fixture, upgrade the oldest in place [ARGOCD=..]
	@$(CLI) check -scenario $(SMOKE_SCENARIO) -argocd "$(ARGOCD)" -kubernetes "$(or $(KUBERNETES),$(SMOKE_KUBERNETES))" -mode $(MODE) $(PULL)
	@$(MAKE) --no-print-directory $(E2E)
	$(RUN_E2E) -test.run 'TestArgoCD' \
	  -argocd "$(ARGOCD)" -kubernetes "$(or $(KUBERNETES),$(SMOKE_KUBERNETES))" -mode $(MODE) $(PULL) -cluster $(CLUSTER) $(KEEP_FLAG) -command "make argocd-check ARGOCD=$(ARGOCD)"

matrix: ## every scenario and variant, the full tier (every axis), on PARALLEL clusters at once (default auto); REPEAT=N for k/N
	@$(MAKE) --no-print-directory e2e SCENARIO= VARIANT= COMPONENT_VERSION= TIER=full ARGOCD="$(ARGOCD)" KUBERNETES="$(KUBERNETES)" \
	  PARALLEL=$(MATRIX_N) E2E_COMMAND="make matrix ARGOCD=$(ARGOCD)$(if $(KUBERNETES), KUBERNETES=$(KUBERNETES)) REPEAT=$(REPEAT) PARALLEL=$(MATRIX_N) DELIVER=$(DELIVER)"

# make matrix's clusters: PARALLEL when given, else MATRIX_PARALLEL
MATRIX_N = $(if $(filter command line environment,$(origin PARALLEL)),$(PARALLEL),$(MATRIX_PARALLEL))

list: $(CLI) ## each scenario's quick tier, cell by cell ID, with the outcome measured [WIDE=1: every axis, offline and online, ArgoCD's support]
	@$(CLI) list $(if $(WIDE),-wide)

# make releases: also write the JSON (the nightly's matrix) to this file
RELEASES_JSON ?=

releases: $(CLI) ## the releases a run can test now: the supported ArgoCD lines' patches, the seed pins, each component's newest release, what this mode cannot build or pull and why, the nightly's shards [MODE=online] [RELEASES_JSON=file]
	@$(CLI) releases -mode $(MODE) $(if $(RELEASES_JSON),-o "$(RELEASES_JSON)")

tested-ranges: $(CLI) ## record the Kubernetes versions each ArgoCD release suites/matrix.yaml names was tested on, read from its own docs/operator-manual/tested-kubernetes-versions.md (module zip), into pkg/argocd/tested.yaml, for the pages make docs writes
	@$(CLI) tested-ranges

plan: $(CLI) ## what make e2e with the same selection runs and costs (cells, SKIPPED and why, clusters, installs, builds still needed, warm and cold estimate), on 1..8 clusters, and estimate against actual of the newest runs in reports/ [SCENARIO=.. VARIANT=.. ARGOCD=.. TIER=.. REPEAT=N PARALLEL=N|auto]
	@$(CLI) plan $(SELECTION) -repeat $(REPEAT) -cells "$(CELLS)" -parallel $(PARALLEL)

BISECT = @$(CLI) check -scenario "$(SCENARIO)" -variant "$(VARIANT)" -version "$(COMPONENT_VERSION)" -kubernetes "$(KUBERNETES)" -argocd "$(FROM),$(TO)" -mode $(MODE) && \
	$(MAKE) --no-print-directory $(E2E) && $(RUN_E2E) -test.run TestBisect -scenario "$(SCENARIO)" -variant "$(VARIANT)" -version "$(COMPONENT_VERSION)" -kubernetes "$(KUBERNETES)" \
	  -argocd "$(FROM),$(TO)" -from "$(FROM)" -to "$(TO)" -mode $(MODE) -cluster $(CLUSTER) $(KEEP_FLAG)

bisect: $(CLI) ## SCENARIO=s VARIANT=v FROM=tag TO=tag [KUBERNETES=v]: where the outcome changes (says which releases it did not run)
	$(BISECT) -command "make bisect SCENARIO=$(SCENARIO) VARIANT=$(VARIANT) FROM=$(FROM) TO=$(TO)$(if $(KUBERNETES), KUBERNETES=$(KUBERNETES))"

sweep: $(CLI) ## SCENARIO=s VARIANT=v FROM=tag TO=tag: run every release between, report every change
	$(BISECT) -sweep -command "make sweep SCENARIO=$(SCENARIO) VARIANT=$(VARIANT) FROM=$(FROM) TO=$(TO)$(if $(KUBERNETES), KUBERNETES=$(KUBERNETES))"

# make repro: the kind cluster each bundle's repro.sh creates (after the cell's own is gone)
REPRO_CLUSTER ?= repro-bundle

repro: $(CLI) ## SCENARIO=s VARIANT=v ARGOCD=t [COMPONENT_VERSION=c]: run the cell, then its bundle's repro.sh on a new kind cluster (REPRO_CLUSTER); prints the bundle and whether it reached the cell's verdict
	@$(CLI) check $(SELECTION)
	@$(MAKE) --no-print-directory $(E2E)
	-$(RUN_E2E) -test.run TestMatrix $(SELECTION) -repeat 1 -cluster $(CLUSTER) -reports "$(REPRO_REPORTS)" -costs "$(CURDIR)/reports" \
	  -command "make repro SCENARIO=$(SCENARIO) VARIANT=$(VARIANT) ARGOCD=$(ARGOCD) COMPONENT_VERSION=$(COMPONENT_VERSION)$(if $(KUBERNETES), KUBERNETES=$(KUBERNETES))"
	@$(CLI) repro run -cluster $(REPRO_CLUSTER) \
	  -command "make repro SCENARIO=$(SCENARIO) VARIANT=$(VARIANT) ARGOCD=$(ARGOCD) COMPONENT_VERSION=$(COMPONENT_VERSION)$(if $(KUBERNETES), KUBERNETES=$(KUBERNETES))" \
	  "$(REPRO_REPORTS)/latest"

# make repro's cell writes its report into a directory of its own, so the bundle replayed is that run's
REPRO_REPORTS := $(CURDIR)/reports/repro-$(shell date -u +%Y%m%d-%H%M%S)

# The harness's self-tests (conformance selftest fault|interrupt|mirror, cmd/conformance/internal/selftest), each on
# a kind cluster of its own: make fault-test: FAULT=kill|pause, FAULT_PAUSE seconds;
# make interrupt-test: INTERRUPT_CASES (at-build,at-cell,parallel), INTERRUPT_BUILD_TAG (a release no
# run builds to the end here), INTERRUPT_EXIT_LIMIT seconds; make mirror-check: REGISTRY_NAME,
# KEEP_REGISTRY=1 keeps the registry
FAULT_CLUSTER ?= fault-test
FAULT ?= kill
FAULT_PAUSE ?= 20
INTERRUPT_CLUSTER ?= interrupt-test
INTERRUPT_CASES ?=
INTERRUPT_BUILD_TAG ?= v2.14.5
INTERRUPT_EXIT_LIMIT ?= 60
MIRROR_CLUSTER ?= mirror-check
REGISTRY_NAME ?= gitops-conformance-mirror-check
KEEP_REGISTRY ?= 0

fault-test: $(CLI) $(E2E) ## kill kube-apiserver during a verdict's hold: the cell must end ERROR (could not tell) or REPRODUCED, never NOT_REPRODUCED [FAULT=kill|pause FAULT_PAUSE=s FAULT_CLUSTER=name]
	@$(CLI) selftest fault -e2e $(E2E) -cluster $(FAULT_CLUSTER) -fault $(FAULT) -pause $(FAULT_PAUSE)s -argocd $(SMOKE_ARGOCD) -kubernetes $(SMOKE_KUBERNETES)

mirror-check: $(CLI) $(E2E) ## the online pull path for real: the suite's registry as REGISTRY_MIRROR, holding its own builds; the smoke cell with MODE=online pulls through it [MIRROR_CLUSTER=name KEEP_REGISTRY=1]
	@$(CLI) selftest mirror -e2e $(E2E) -cluster $(MIRROR_CLUSTER) -registry $(REGISTRY_NAME) $(if $(filter 1 true yes,$(KEEP_REGISTRY)),-keep-registry) \
	  -argocd $(SMOKE_ARGOCD) -kubernetes $(SMOKE_KUBERNETES)

interrupt-test: $(CLI) $(E2E) ## Ctrl-C a real run at a build, at a cell and a parallel run at its cells: exit 130, no process or container left, the report says so [INTERRUPT_CASES=a,b INTERRUPT_CLUSTER=name]
	@$(CLI) selftest interrupt -e2e $(E2E) -cluster $(INTERRUPT_CLUSTER) -cases "$(INTERRUPT_CASES)" -build-argocd $(INTERRUPT_BUILD_TAG) \
	  -limit $(INTERRUPT_EXIT_LIMIT)s -argocd $(SMOKE_ARGOCD) -kubernetes $(SMOKE_KUBERNETES)

# The benchmarks (conformance bench quick|matrix|infra|delivery, cmd/conformance/internal/bench): BENCH_SCENARIO,
# BENCH_VARIANT and BENCH_ARGOCD narrow them, BENCH_CLUSTER names their clusters (each its own
# default), BENCH_PARALLEL, BENCH_DELIVER, BENCH_BUDGET (minutes), BENCH_CELLS, BENCH_COLD=1;
# BENCH_PLAN=1 prints what one runs and runs nothing
BENCH_SCENARIO ?=
BENCH_VARIANT ?=
BENCH_ARGOCD ?=
BENCH_CLUSTER ?=
BENCH_PARALLEL ?=
BENCH_DELIVER ?=
BENCH_BUDGET ?= 15
BENCH_CELLS ?= bug,ignore-differences
BENCH_COLD ?= 0
BENCH_PLAN ?= 0
BENCH_FLAGS = $(if $(BENCH_CLUSTER),-cluster "$(BENCH_CLUSTER)") $(if $(filter 1 true yes,$(BENCH_PLAN)),-plan)

bench: $(CLI) $(E2E) ## the matrix sequential (PARALLEL=1, kind load) vs make matrix's default, in one run: wall times, ratio, per-scenario times, every verdict compared [BENCH_SCENARIO= BENCH_VARIANT= BENCH_ARGOCD= narrow both]
	@$(CLI) bench matrix -e2e $(E2E) -scenario "$(BENCH_SCENARIO)" -variant "$(BENCH_VARIANT)" -argocd "$(BENCH_ARGOCD)" \
	  -parallel $(or $(BENCH_PARALLEL),$(if $(filter auto,$(MATRIX_PARALLEL)),3,$(MATRIX_PARALLEL))) -deliver $(or $(BENCH_DELIVER),$(DELIVER)) $(BENCH_FLAGS)

bench-quick: $(CLI) ## each scenario's quick tier as make e2e runs it: the plan's estimate, the wall time and each cell's phases (build, cluster, install, steps, waits, holds, evidence, teardown); writes reports/benchmarks/<time>-quick.md, exit 1 over BENCH_BUDGET (15 min) [BENCH_SCENARIO=a,b BENCH_PARALLEL=auto]
	@$(CLI) bench quick -scenario "$(BENCH_SCENARIO)" -parallel $(or $(BENCH_PARALLEL),auto) -budget $(BENCH_BUDGET)m $(BENCH_FLAGS)

bench-infra: $(CLI) $(E2E) ## benchmarks: node image, cluster create, ArgoCD image and install, cluster reuse [BENCH_ARGOCD=a,b BENCH_CELLS=v,v BENCH_COLD=1]
	@$(CLI) bench infra -e2e $(E2E) -argocd "$(BENCH_ARGOCD)" -kubernetes $(SMOKE_KUBERNETES) -cells "$(BENCH_CELLS)" \
	  $(if $(filter 1 true yes,$(BENCH_COLD)),-cold) $(BENCH_FLAGS)

ci-cold: ## .ci/run as on a new machine: a fresh clone of HEAD, empty Go and suite caches, no Docker images (CI_COLD_WIPE=1 removes an engine's), the engine stopped; prints wall, machine CPU-seconds and each phase, writes reports/benchmarks/<time>-ci-cold.md
	@./hack/ci-cold.sh

bench-probe: $(CLI) ## the CPU probe the plan scales build figures measured on another machine by (pkg/runner/coldcost.yaml): N probes and their median, against each machine there [N=5]
	@$(CLI) bench probe -n $(or $(N),5)

bench-builds: $(CLI) ## each component release of BENCH_BUILDS (component@version, comma-separated) built as on a new machine, one after the other (its images removed, empty Go caches): the figures pkg/runner/coldcost.yaml prices builds by; writes reports/benchmarks/<time>-builds.md [BENCH_BUILDS=kargo@v1.11.2,..]
	@$(CLI) bench builds $(if $(BENCH_BUILDS),-builds "$(BENCH_BUILDS)") $(if $(filter 1 true yes,$(BENCH_PLAN)),-plan)

bench-delivery: $(CLI) ## offline images to a node, per ArgoCD release per cluster: kind load vs push once + pull through the suite's registry [BENCH_ARGOCD=..]
	@$(CLI) bench delivery -argocd "$(BENCH_ARGOCD)" $(BENCH_FLAGS)

# make docs: the pages generated from the code and the data (hack/docgen)
REPORT ?=
GENERATED_DOCS := vocabulary.md results.md writing-scenarios.md design.md running.md conform.md reports.md upgrade-check-findings.md upgrade-check-changes.md

docs: $(CLI) ## docs/vocabulary.md, docs/results.md, each scenario README's tested-range section, the example in docs/writing-scenarios.md, docs/design.md's table of packages, docs/running.md's table of costs, docs/conform.md's table of checks, docs/reports.md's tables of report.json's fields, docs/upgrade-check-findings.md (suites/upgrade-check-validate.yaml's known answers and their findings), docs/upgrade-check-changes.md (the behaviour changes a verdict names: pkg/upgrade/changes) and README.md's tables of scenarios and checks, from the code and suites/matrix.yaml; docs/cli.md from the CLI's command table [REPORT=dir: a merged run's results into results.md]
	$(GO) run ./hack/docgen -out docs $(if $(REPORT),-report "$(REPORT)")
	$(CLI) help -markdown > docs/cli.md

verify: $(CLI) ## generated docs current (docs/cli.md too), gofmt, go vet, golangci-lint (.golangci.yml), shellcheck, actionlint, go mod tidy check; installs the linters it lacks (what .ci/run calls before make test)
	@out=$$(mktemp -d -t docs-verify.XXXXXX) && trap 'rm -rf "$$out"' EXIT && $(GO) run ./hack/docgen -out "$$out" -readme "$$out/README.md" -findings "$$out" && \
	  for f in $(GENERATED_DOCS:%=docs/%) README.md $(wildcard scenarios/*/README.md); do cmp -s "$$out/$${f#docs/}" "$$f" || { diff -u "$$f" "$$out/$${f#docs/}" | head -20; \
	    echo "$$f is stale: run make docs and commit it"; exit 1; }; done
	@$(CLI) help -markdown | cmp -s - docs/cli.md || { echo "docs/cli.md is stale: run make docs and commit it"; exit 1; }
	@test -z "$$(gofmt -l cmd pkg internal fixtures suites scenarios hack docs)" || { gofmt -l cmd pkg internal fixtures suites scenarios hack docs; echo "gofmt: files above need formatting"; exit 1; }
	$(GO) vet ./... && $(GO) vet -tags e2e ./suites
	./hack/golangci-lint.sh
	./hack/shellcheck.sh
	./hack/actionlint.sh
	@cp go.mod /tmp/go.mod.verify && cp go.sum /tmp/go.sum.verify && $(GO) mod tidy && \
	  if ! diff -q go.mod /tmp/go.mod.verify >/dev/null || ! diff -q go.sum /tmp/go.sum.verify >/dev/null; then \
	    echo "go mod tidy changed go.mod/go.sum: commit the result"; exit 1; fi

cluster-delete: $(CLI) ## delete the suite's kind cluster (and a parallel run's CLUSTER-<n>) and its registry, if any (CLUSTER=name)
	@$(CLI) cluster delete -cluster $(CLUSTER)

clean: cluster-delete ## delete the cluster and local build outputs (image caches stay)
	rm -rf bin

OUT ?=
DIRS ?=
DIR ?=

report-merge: $(CLI) ## OUT=dir DIRS="a b": merge report directories into one report (evidence links point into each)
	@$(CLI) report merge -o "$(OUT)" $(DIRS)

report-render: $(CLI) ## DIR=reports/<run-id>: render report.md, report.html and junit.xml again from its report.json
	@$(CLI) report render "$(DIR)"

OLD ?=
NEW ?=
# make report-diff: the supported ArgoCD minor lines (3.4,3.5,3.6) a change fails on; empty: every line
SUPPORTED ?=
SITE ?=
MARKS ?= 14

report-diff: $(CLI) ## OLD=dir NEW=dir: every cell whose outcome changed, every new release that ran, every cell that stopped running [SUPPORTED=3.4,3.5,3.6] [SITE=dir: changes its nights reported do not fail again]; exit 1 when a change fails
	@$(CLI) report diff -supported "$(SUPPORTED)" $(if $(SITE),-history "$(SITE)") "$(OLD)" "$(NEW)"

report-history: $(CLI) ## SITE=dir: render SITE/index.html (per scenario, ArgoCD release x component version, a mark per night) and each night's page from SITE/nights/<night>/report.json [MARKS=14]
	@$(CLI) report history -marks $(MARKS) "$(SITE)"

lint-workflows: ## actionlint and shellcheck (installed when missing) on .github/workflows
	./hack/actionlint.sh

merge-check: $(CLI) ## the nightly's merge and job-summary step (conformance report nightly-merge) on the newest report under reports/
	@test -e reports/latest || { echo "merge-check: no reports/latest: run make smoke first"; exit 2; }
	@out=$$(mktemp -d -t merge-check.XXXXXX) && trap 'rm -rf "$$out"' EXIT && mkdir -p "$$out/shards/latest" && \
	  cp -r "reports/$$(readlink reports/latest)" "$$out/shards/latest/" && \
	  $(CLI) report nightly-merge -summary "$$out/summary.md" "$$out" && \
	  test -s "$$out/report.html" && echo "merge-check: merged $$(readlink reports/latest) into report.json/md/html/junit.xml; summary: $$(head -1 "$$out/summary.md")"
