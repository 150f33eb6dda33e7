# The two commands of the README. Both install what they need first.
#   make dev   run svc locally against a real local control plane, with demo data
#              (CLUSTERS=2: a second control plane registered as a remote cluster)
#   make test  lint, format and type checks, then every test (unit and integration)

SHELL := bash
# npm installs Node 24 into node_modules/.bin (the system Node may be older); Go builds the control plane.
export PATH := $(CURDIR)/node_modules/.bin:$(PATH):/usr/local/go/bin

.PHONY: dev test install controlplane helm postgres chromium node-deps dashboard check crds docs images reliability audit kwok bench-fleet

CLUSTERS ?= 1

dev: install controlplane node-deps dashboard images
	SVC_DEV_CLUSTERS=$(CLUSTERS) node packages/cli/src/main.ts dev

# The system packages first (apt, one at a time), then what the tests need side by side: the Go
# builds, the images, the dashboard's production build (the browser tests' global set-up would
# build it otherwise, after the control plane starts) and the checks took 4 minutes of a fresh
# clone one after another.
test: install postgres chromium node-deps
	$(MAKE) --no-print-directory --output-sync=target -j5 controlplane helm images dashboard check
	vitest run

# The faults and load suites alone (make test runs them too, after every other test):
# docs/reliability.md. The faults need the local node, so root, as make dev does.
reliability: install controlplane postgres chromium node-deps images
	vitest run --project reliability

# Known vulnerabilities of the production dependencies, high or critical, from the npm registry's
# advisories (not in make test: the registry mirror of the project's machine refuses that
# endpoint, docs/security.md "Open").
audit:
	npm audit --omit=dev --audit-level=high

install: node_modules/.install-stamp

node_modules/.install-stamp: package.json package-lock.json $(wildcard packages/*/package.json)
	npm ci --no-audit --no-fund
	touch $@

controlplane:
	hack/controlplane/build.sh

# The container images the local node runs (pause, svc, sidecar, demo app), built with buildah
# from deploy/Dockerfile on Debian-package bases into .cache/images/*.tar; unchanged ones are
# skipped. docs/container-images.md.
images: install
	hack/images/build.sh

# helm, for the chart's tests, built from its pinned Go module like the control plane; with it,
# what the chart's observability test checks its monitoring objects with: Prometheus's PromQL
# parser (hack/promql) and Prometheus Operator's CRDs (hack/prometheus-operator), both pinned
# and fetched from the Go module proxy.
helm:
	hack/helm/build.sh
	hack/promql/build.sh
	hack/prometheus-operator/fetch-crds.sh

# kwok (simulated nodes and pods), for the fleet benchmark only, built from its pinned Go module
# like helm. The benchmark is no test: neither target is a prerequisite of `make test`.
kwok:
	hack/kwok/build.sh

# The fleet benchmark (bench/fleet/run.ts; sizes: FLEET_ARGS="--clusters 2 --workloads 200").
bench-fleet: install controlplane kwok
	node bench/fleet/run.ts $(FLEET_ARGS)

# The integration tests start a real PostgreSQL server (Debian's package); install it only when
# no server binaries are there (needs root, as on CI).
postgres:
	@ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || \
		{ apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends postgresql; }

# The web dashboard, built by Vite into packages/dashboard/dist when its sources changed. Its
# target is the stamp only a production build writes (packages/dashboard/production-build.ts), so
# a dist built otherwise is never taken as up to date; NODE_ENV is set whatever the caller's is.
DASHBOARD_SOURCES := $(shell find packages/dashboard/app packages/core/src -type f) \
	packages/dashboard/vite.config.ts packages/dashboard/production-build.ts packages/dashboard/src/build-output.ts
dashboard: install packages/dashboard/dist/.production

packages/dashboard/dist/.production: $(DASHBOARD_SOURCES)
	cd packages/dashboard && NODE_ENV=production vite build --mode production --logLevel warn

# The local node (packages/localkube/src/local-node.ts) runs pods with Debian's containerd,
# runc and CNI plugins, and images are built with buildah; install them only when missing and
# only as root (as on CI). Without them the tests that need a node are reported as skipped.
NODE_PACKAGES := containerd runc containernetworking-plugins iptables iproute2 buildah
node-deps:
	@missing=""; for c in containerd runc iptables ip buildah; do command -v $$c >/dev/null || missing=1; done; \
	test -x /usr/lib/cni/bridge || missing=1; \
	if [ -n "$$missing" ]; then \
		if [ "$$(id -u)" = 0 ]; then apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends $(NODE_PACKAGES); \
		else echo "node-deps: not root, so $(NODE_PACKAGES) are not installed: the tests that need a node will be skipped"; fi; \
	fi

# The browser tests drive Debian's Chromium (never a downloaded browser); install it only when
# it is not there (needs root, as on CI).
chromium:
	@test -x /usr/bin/chromium || \
		{ apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends chromium; }

check: install
	tsc -p tsconfig.json --noEmit
	tsc -p packages/dashboard/app/tsconfig.json --noEmit
	eslint --max-warnings 0 .
	prettier --check .
	node hack/import-cycles.ts

crds: install
	node packages/core/scripts/generate-crds.ts

# docs/configuration.md, from the commands' own settings (a test fails when it is stale).
docs: install
	node packages/cli/scripts/generate-config-docs.ts
