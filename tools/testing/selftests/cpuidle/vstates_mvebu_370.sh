#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# vstates_suite.sh against cpuidle_vstates emulating the mvebu-370 table;
# arguments name the governors (default: rteo teo menu).
exec sh "$(dirname "$0")/vstates_suite.sh" mvebu-370 "$@"
