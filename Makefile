# Shortcuts for the commands the README and docs/ give; each target runs exactly that command.
.PHONY: build test quickstart bench lint

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
