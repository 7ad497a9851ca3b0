#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# pseries_suite.sh: dedicated table, no extended CEDE states (as upstream).
exec sh "$(dirname "$0")/pseries_suite.sh" plain
