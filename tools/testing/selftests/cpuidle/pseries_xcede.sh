#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# pseries_suite.sh: dedicated table with three injected extended CEDE states.
exec sh "$(dirname "$0")/pseries_suite.sh" xcede
