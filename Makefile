# Shortcuts for the commands the README and docs/ give; each target runs exactly that command.
.PHONY: build test quickstart bench lint deb deb-try deb-try-docs image image-try check-packaging

build:
	swift build

# Every test, as CI runs it: installs what is missing, starts a private PostgreSQL (.ci/run).
test:
	bash .ci/run

# authlog on its embedded PostgreSQL, the app's loop with curl, a checkpoint, verify and reports.
quickstart:
	bash deploy/quickstart

# The benchmarks in release mode against a private PostgreSQL (.ci/bench).
bench:
	bash .ci/bench

lint:
	swift format lint --strict --recursive Sources Tests Package.swift

# The Debian package in .build-pkg/: the release binary with the Swift standard library linked in, the unit,
# the configuration, the roles script and the docs (deploy/package/build-deb; docs/operations.md, "Installing").
deb:
	bash deploy/package/build-deb

# The package installed with dpkg -i on a fresh Debian 12 root (debootstrap) and serving against a private
# PostgreSQL (deploy/package/try-deb).
deb-try:
	bash deploy/package/try-deb

# docs/operations.md's installation commands, as written, on a fresh Debian 12 machine with PostgreSQL
# (deploy/package/try-install-docs).
deb-try-docs:
	bash deploy/package/try-install-docs

# The OCI image localhost/authlog, and .build-pkg/authlog-image_VERSION.tar, from the package on the
# debootstrap root, with buildah and no registry (deploy/package/build-image).
image:
	bash deploy/package/build-image

# The image run with podman against a private PostgreSQL (deploy/package/try-image).
image-try:
	bash deploy/package/try-image

# The unit's systemd-analyze verify and security score, and the package's layout, in seconds.
check-packaging:
	bash .ci/check-packaging
