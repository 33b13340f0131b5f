"""How long the per-passage models of a run will take, logged before they start, so a first run
says up front what it is in for (``Encoding 7,512 passages ... about 2 min``).

The rates are the slowest measured on the project's 2-core machines (AMD EPYC, idle), in
passages a second: an idle machine of that kind or better finishes within the estimate; a loaded
one is slower. Where no rate was measured (a GPU, Apple's MPS, the TagMe API) nothing is
estimated.
"""
from __future__ import annotations

import os

from kgp_kedro.models.encoders import PACKAGED_MINILM

# encoder (all-MiniLM-L6-v2, batch 64) passages a second per torch CPU thread, by the dtype its
# weights run in and torch's CPU capability: fp32 59/s on 2 AVX2-only threads (the whole bundled
# set, 2026-11-24), 130/s on 2 AVX512 threads and bf16 240/s on the same 2 threads with
# AVX512-BF16 (docs/install.md, load ~1), each rounded down; a capability not listed (ARM, an
# older x86) is estimated at the AVX2 rate
ENCODE_RATES_PER_THREAD = {("float32", "AVX512"): 60.0, ("float32", "AVX2"): 29.0,
                           ("bfloat16", "AVX512"): 100.0}
# offline entity linker (spaCy en_core_web_sm NER + gazetteer) passages a second, one process:
# 23,329 passages in 2 min 14 s on 2 AVX2-only cores (2026-11-24)
LINK_RATE = 170.0


def _span(seconds: float) -> str:
    """``'40 s'``, ``'3 min'``, ``'1 h 5 min'``, rounded up (to 5 s under a minute)."""
    if seconds < 60:
        return f"{max(5, 5 * -(-int(seconds) // 5))} s"
    minutes = -(-int(seconds) // 60)
    return f"{minutes} min" if minutes < 60 else f"{minutes // 60} h {minutes % 60} min"


def estimated_duration(seconds: float) -> str:
    """``'about 3 min'``, and, when the machine is busier than its CPUs (1-minute load average
    above the CPU count: each thread gets a share of a core), what that load makes of it."""
    text = f"about {_span(seconds)}"
    try:
        load, cpus = os.getloadavg()[0], os.cpu_count() or 1
    except OSError:   # no load average on this platform
        return text
    if load > cpus:
        text += (f" idle, up to {_span(seconds * load / cpus)} at this load ({load:.1f} on "
                 f"{cpus} CPUs)")
    return text


def encoding_estimate(n_texts: int, device: str, dtype: str, threads: int,
                      capability: str, model: str = "all-MiniLM-L6-v2") -> str:
    """What encoding ``n_texts`` passages will take, as a phrase for a log line; ``capability``
    is ``torch.backends.cpu.get_cpu_capability()`` (``AVX2``, ``AVX512``, ...). The rates are
    all-MiniLM-L6-v2's: another ``model`` (mpnet, E5) gets no estimate."""
    if device != "cpu":
        return f"no estimate on {device}"
    if model not in PACKAGED_MINILM:
        return f"no estimate for {model}"
    rate = ENCODE_RATES_PER_THREAD.get((dtype, capability),
                                       ENCODE_RATES_PER_THREAD[("float32", "AVX2")])
    seconds = n_texts / (rate * max(threads, 1))
    return (f"{estimated_duration(seconds)}; {threads} CPU thread{'s' * (threads != 1)} ({capability}) "
            f"in {dtype}, at {rate:.0f} passages/s a thread")


def linking_estimate(n_texts: int, backend: str) -> str:
    """What the entity linker will take on ``n_texts`` passages, as a phrase for a log line."""
    if backend != "offline":
        return f"no estimate for the {backend} linker"
    return f"{estimated_duration(n_texts / LINK_RATE)}; at {LINK_RATE:.0f} passages/s"
