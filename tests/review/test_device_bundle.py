"""The review page loads static/js/review-device.min.js, built from the device scripts by
`make device-js`: it must be built from the sources as they are (a source edited without a
rebuild would ship old code), and stay small (tests/e2e/test_page_weight.py allows the review
page 26 KB for it)."""

import hashlib
import re
from pathlib import Path

JS = Path(__file__).resolve().parents[2] / "static" / "js"
BUNDLE = JS / "review-device.min.js"


def test_the_bundle_is_built_from_the_sources_as_they_are():
    header = BUNDLE.read_text().splitlines()[0]
    found = re.match(r"/\* review-device: (.+) sha256:([0-9a-f]{64}) \*/$", header)
    assert found, header
    digest = hashlib.sha256()
    for name in found.group(1).split():
        digest.update((JS / name).read_bytes())
    assert digest.hexdigest() == found.group(2), "static/js changed: run `make device-js`"


def test_the_bundle_stays_under_26_kb():
    assert BUNDLE.stat().st_size < 26 * 1024
