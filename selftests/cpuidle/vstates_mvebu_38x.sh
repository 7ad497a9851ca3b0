#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# vstates_suite.sh against cpuidle_vstates emulating the mvebu-38x table, under
# rteo only (x86-like, mvebu-xp and pseries-xcede also run teo and menu).
exec sh "$(dirname "$0")/vstates_suite.sh" mvebu-38x rteo
