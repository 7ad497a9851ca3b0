# SPDX-License-Identifier: GPL-2.0
"""pytest's fixtures for the tests of evaluation/ and verdict/
(/usr/bin/python3 -m pytest, from the top of the tree)."""
import os

import pytest

from evaluation import paths


@pytest.fixture(scope="session")
def kunit_dir():
    """The kernel's tools/testing/kunit, whose kunit_parser.py the verdict
    uses (make setup extracts the tree)."""
    if not os.path.isfile(os.path.join(paths.KUNIT_DIR, "kunit_parser.py")):
        pytest.skip("no kunit_parser.py in %s: run make setup" % paths.KUNIT_DIR)
    return paths.KUNIT_DIR
