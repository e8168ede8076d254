"""Scratch buffers kept between calls, one set per thread.

A fresh large temporary costs a page fault per 4 KiB on every call (the allocator returns big blocks to the system
when they are freed), often more than the arithmetic done in it: su2022's residual moments spent most of their time
so on 20-100 MB products. A kernel that writes such a temporary with ``out=`` into :func:`workspace` pays for the
pages once per process. A Dask worker started with several threads runs checks at once, so each thread has its own
buffers.
"""
from __future__ import annotations

import math
import threading

import torch

_KEPT = threading.local()
#: buffers up to this many elements (128 MiB in float64) are kept between calls; larger ones are allocated each time
KEPT_MAX_ELEMENTS = 1 << 24


def workspace(name: str, shape, like: torch.Tensor) -> torch.Tensor:
    """A contiguous ``shape`` view of this thread's buffer ``name`` (``like``'s dtype and device), grown when too
    small. The view is overwritten by the next call with the same name in the same thread: for temporaries only."""
    numel = math.prod(shape)
    kept = _KEPT.__dict__
    buf = kept.get(name)
    if buf is None or buf.numel() < numel or buf.dtype != like.dtype or buf.device != like.device:
        buf = torch.empty(numel, dtype=like.dtype, device=like.device)
        if numel <= KEPT_MAX_ELEMENTS:
            kept[name] = buf
    return buf[:numel].view(shape)
