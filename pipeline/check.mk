# SPDX-License-Identifier: GPL-2.0
#
# make check's parts as make targets, from the table pipeline/parts:
#
#   make -k -j -f pipeline/check.mk RESULTS=DIR ARCHES="x86_64 armv7 ..."
#
# One target a part, DIR/PART.json, made by pipeline/part.sh (which always
# writes it, whatever the part's outcome); DIR/PART.ok exists for a part
# that passed, and is what the parts that need it wait for.  A part whose
# need failed never runs and leaves no DIR/PART.json: pipeline/summary.py
# counts it failed.
TOP := $(abspath $(dir $(lastword $(MAKEFILE_LIST)))/..)
TABLE ?= $(TOP)/pipeline/parts
ARCHES ?= x86_64 armv7 ppc64le arm64
RESULTS ?= $(error RESULTS=DIR is not given)

# the rows of the table, a line each, its blanks turned to "|"
ROWS := $(shell awk '!/^\#/ && NF >= 7 { c = $$7; for (i = 8; i <= NF; i++) c = c "~" $$i; \
	print $$1 "|" $$2 "|" $$3 "|" $$4 "|" $$5 "|" $$6 "|" c }' $(TABLE))
col = $(word $(2),$(subst |, ,$(1)))
PARTS := $(foreach r,$(ROWS),$(if $(filter - $(ARCHES),$(call col,$(r),2)),$(call col,$(r),1)))
ifeq ($(strip $(PARTS)),)
$(error no part of $(TABLE) for ARCHES="$(ARCHES)")
endif
# (a need or an after among the selected parts)
sel = $(filter $(PARTS),$(subst $(comma), ,$(1)))
comma := ,

.PHONY: all
all: $(foreach p,$(PARTS),$(RESULTS)/$(p).json)

define part_rule
$(RESULTS)/$(call col,$(1),1).json: $(foreach n,$(call sel,$(call col,$(1),3)),$(RESULTS)/$(n).ok) | $(foreach n,$(call sel,$(call col,$(1),4)),$(RESULTS)/$(n).json)
	@$(TOP)/pipeline/part.sh $(RESULTS) $(call col,$(1),1) $(call col,$(1),5) $(call col,$(1),6) $(subst ~, ,$(call col,$(1),7))
$(RESULTS)/$(call col,$(1),1).ok: $(RESULTS)/$(call col,$(1),1).json
	@test -f $$@
endef
$(foreach r,$(ROWS),$(if $(filter $(call col,$(r),1),$(PARTS)),$(eval $(call part_rule,$(r)))))
