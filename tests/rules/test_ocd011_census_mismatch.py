"""OCD011 census-mismatch: a consistency check of the transfer census failed."""

from __future__ import annotations

import msgspec

from ortcopy_doctor.rules import census_mismatch
from rule_cases import findings_of, recorded_evidence

RULE = census_mismatch.RULE


def test_fires_when_the_traced_feed_differs_from_the_bytes_fed():
    evidence = recorded_evidence("conv_net")
    (feed,) = evidence.feeds
    # the census traced 24576 B for 'image' in each of runs 2, 3, 4
    evidence.feeds[0] = msgspec.structs.replace(feed, bytes=1000)
    findings = findings_of(RULE, evidence)
    assert [(f.rule, f.slug, f.severity, f.location) for f in findings] == [
        ("OCD011", "census-mismatch", "warning", "image"),
        ("OCD011", "census-mismatch", "warning", "(feed phase)"),
    ]
    image, unmatched = findings
    assert image.message == "input 'image': fed 1000 B, traced 0 B host→device before the first node (run 2, 3, 4)"
    assert image.details == {"check": "feed_bytes", "expected": 1000, "observed": 0}
    assert unmatched.message == ("a 24576 B host→device copy before the first node has the size of no input tensor "
                                 "(run 2, 3, 4)")
    assert unmatched.details == {"check": "feed_bytes", "expected": None, "observed": 24576}
    assert image.fix.startswith("The numbers of this report for it are not ground truth: trust the census")
    assert image.bytes_per_run is None


def test_silent_when_the_census_agrees():
    assert findings_of(RULE, recorded_evidence("conv_net")) == []


def test_silent_without_a_census():
    evidence = recorded_evidence("conv_net")
    evidence = msgspec.structs.replace(evidence, census=None)
    assert findings_of(RULE, evidence) == []
