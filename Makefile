# SPDX-License-Identifier: GPL-2.0
#
# rcpuidle: Rust CPU-idle drivers, governor and tests for Linux 7.3.
#
#   make              build the x86_64 kernel, boot it, show idle at work
#   make run ARCH=ppc64le   the same on pseries (real snooze/CEDE driver)
#   make run ARCH=arm64     the same on arm64 virt (PSCI driver, DT idle states)
#   make check        host tests + build/boot/KUnit/kselftests per arch
#   make check ARCH=x86_64|ppc64le|armv7|arm64   (the parts: pipeline/parts)
#   make kernel|modules [ARCH=..]   build only
#   make qemu [ARCH=..]             interactive guest shell
#   make patches                    git format-patch series against v7.3
#                                   (and the generic kselftests alone)
#   make generic-c                  the generic kselftests against the C
#                                   pseries driver on vanilla 7.3 (ppc64le)
#   make kit ARCH=..                out/kit/ARCH: kselftest tarball, series,
#                                   config fragment, README for a board
#   make verdict LOG=.. [ARCH=..]   judge a board's run_kselftest.sh output
#                                   or console log (LIST=: fewer tests)
#   make bisect                     x86_64 builds after every patch (also in check)
#   make setup                      toolchain and sources (idempotent)
#   make loc                        code lines of the product and the tooling
#   make sim                        governor simulator alone (seconds)
#   make evaluation-docs            Documentation/evaluation/ made again
#   make bench                      simulator + in-guest benchmarks + report
#   make seeds                      the seeds' measurements replicated in-guest + report
#   make record                     idle periods with wake-up sources, 3 boots -> corpus
#
# The kernel tree, builds and logs live in $(RCPUIDLE_CACHE)
# (default ~/.cache/rcpuidle).  When kbuild includes this directory for an
# out-of-tree build (make -C <kernel build> M=$PWD), it reads Kbuild.

ARCHES := x86_64 ppc64le armv7 arm64
# What `make check` runs without ARCH=: the rows of pipeline/parts of
# these arches (and those of every arch: the host tests).
CHECK_ARCHES ?= $(ARCHES)
ARCH ?=
P := $(CURDIR)/pipeline
E := $(CURDIR)/evaluation

.PHONY: all loc run check host-check kernel modules qemu patches generic-c kit verdict bisect setup clean clippy parity parity-coverage select-cost sim evaluation-docs bench seeds record

all: run

setup:
	@$(P)/setup.sh

loc:
	@python3 $(P)/loc.py

RUN_ARCH = $(if $(ARCH),$(ARCH),x86_64)
RUN_CPIO = $${RCPUIDLE_CACHE:-$$HOME/.cache/rcpuidle}/run-$(RUN_ARCH).cpio

run: setup
	@$(P)/build.sh $(RUN_ARCH)
	@$(P)/mkinitramfs.sh $(RUN_ARCH) $(RUN_CPIO)
	@echo "run: booting $(RUN_ARCH) under QEMU (TCG, 2 vCPUs); the guest shows each governor at work"
	@$(P)/boot.sh $(RUN_ARCH) run $(RUN_CPIO) \
		$${RCPUIDLE_CACHE:-$$HOME/.cache/rcpuidle}/logs/$(RUN_ARCH)-run.log 600 | \
		sed -n '/^== cpuidle ==/,/^rcpuidle: done/p' | grep -v '^full: '
	@echo "full per-CPU counters: the 'full:' lines of $${RCPUIDLE_CACHE:-$$HOME/.cache/rcpuidle}/logs/$(RUN_ARCH)-run.log"

check: setup
	@$(P)/check-all.sh $(if $(ARCH),$(ARCH),$(CHECK_ARCHES))

host-check:
	@$(P)/host-tests.sh

kernel: setup
	@$(P)/build.sh $(if $(ARCH),$(ARCH),x86_64) $(if $(filter ppc64le,$(ARCH)),vmlinux,$(if $(filter armv7,$(ARCH)),zImage,$(if $(filter arm64,$(ARCH)),Image,bzImage)))

modules: setup
	@$(P)/build.sh $(if $(ARCH),$(ARCH),x86_64) modules

qemu: setup
	@$(P)/build.sh $(if $(ARCH),$(ARCH),x86_64)
	@$(P)/mkinitramfs.sh $(if $(ARCH),$(ARCH),x86_64) /tmp/rcpuidle-shell.cpio
	@$(P)/boot.sh $(if $(ARCH),$(ARCH),x86_64) shell /tmp/rcpuidle-shell.cpio /dev/null

clippy: setup
	@KMAKE_EXTRA=CLIPPY=1 $(P)/build.sh $(if $(ARCH),$(ARCH),x86_64)

patches: setup
	@$(P)/patches.sh export $(CURDIR)/out/patches

generic-c: setup
	@$(CURDIR)/kit/generic-c.sh $(CURDIR)/out/generic-c

kit: setup
	@$(if $(ARCH),,echo "make kit: give ARCH=x86_64, armv7, ppc64le or arm64" >&2; exit 2)
	@$(CURDIR)/kit/kit.sh $(ARCH) $(CURDIR)/out/kit/$(ARCH)

verdict:
	@$(if $(LIST),LIST="$(LIST)") $(CURDIR)/verdict/verdict.sh "$(LOG)" $(ARCH)

bisect: setup
	@$(P)/graft.sh
	@$(P)/patches.sh bisect

parity: setup
	@$(E)/parity.sh --periods $(or $(PERIODS),2000000)

parity-coverage: setup
	@$(E)/parity-coverage.sh $(or $(PERIODS),400000)

select-cost: setup
	@$(E)/select-cost.sh $(or $(TABLE),x86-like) $(or $(PERIODS),200000)

sim: setup
	@/usr/bin/python3 -m evaluation sim $(CURDIR)/out/sim

evaluation-docs: setup
	@/usr/bin/python3 -m evaluation docs

bench: setup
	@/usr/bin/python3 -m evaluation bench $(CURDIR)/out/bench

seeds: setup
	@/usr/bin/python3 -m evaluation seeds $(CURDIR)/out/seeds

record: setup
	@/usr/bin/python3 -m evaluation record $(CURDIR)/out/record

clean:
	rm -rf out governors/target
