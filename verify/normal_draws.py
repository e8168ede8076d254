"""Standard normal draws from a ``torch.Generator``: ``torch.randn``'s numbers, bit for bit, faster for large tensors.

:func:`randn` takes ``torch.randn``'s arguments. A float64 CPU tensor of at least :data:`FAST_MIN` entries is filled by
the C kernel ``verify/normal_draws.c``: it reads the generator's state, draws what torch's ``normal_fill`` draws
(MT19937 uniforms, then Box-Muller with glibc's ``log`` and ``sincos`` on blocks of 16) and writes the advanced state
back, so the tensor and the generator end exactly where ``torch.randn`` would leave them. Its MT19937 runs over the
whole state array at a time instead of a call per 32-bit word: 1.2x side by side with ``torch.randn``
(``benchmarks/bench_kernels.py``), and 1.1x over the quick suite's 39,640 float64 draws replayed (2.2 CPU-s of about
20); the rest is glibc's ``sincos`` and ``log``, which must stay to keep every bit. Everything else (float32, CUDA,
small tensors, no generator, the library not built or ``FEDVERIFY_TC_C=0``) is ``torch.randn`` itself.

Before its first use in a process the kernel is compared with ``torch.randn`` on a scratch generator (sizes 16 to
1,000 with a tail, and a state mid-way through its 624 words); on any difference, as a future torch might bring,
this process keeps ``torch.randn``. Like ``torch.randn`` on a generator that another thread also draws from, a
draw here is not atomic across threads (the toolkit gives each check its own generators).
"""
from __future__ import annotations

from functools import lru_cache

import torch

from verify.native import library as native_library

#: below this many entries the state's round trip (get_state/set_state, about 5 us) costs more than the kernel
#: saves (measured: 0.9x at 1,024, 1.4x at 4,096)
FAST_MIN = 2048


def randn(*size, generator: torch.Generator | None = None, dtype: torch.dtype | None = None,
          device: torch.device | str | None = None) -> torch.Tensor:
    """``torch.randn(*size, generator=generator, dtype=dtype, device=device)``, the same tensor and the same
    generator state after it; see the module docstring for when the C kernel draws it."""
    shape = tuple(size[0]) if len(size) == 1 and isinstance(size[0], (tuple, list, torch.Size)) else size
    if generator is not None and (dtype or torch.get_default_dtype()) == torch.float64 \
            and generator.device.type == "cpu" and (device is None or torch.device(device).type == "cpu"):
        n = 1
        for s in shape:
            n *= int(s)
        if n >= FAST_MIN:
            out = torch.empty(shape, dtype=torch.float64)
            if _fill(out, generator):
                return out
    return torch.randn(*size, generator=generator, dtype=dtype, device=device)


def _fill(out: torch.Tensor, generator: torch.Generator) -> bool:
    """``out`` (contiguous float64, >= 16 entries) filled by the kernel, ``generator`` advanced; False (nothing
    drawn) where the kernel is unavailable or refuses the state."""
    lib = _checked_library()
    return lib is not None and _kernel_fill(lib, out, generator)


def _kernel_fill(lib, out: torch.Tensor, generator: torch.Generator) -> bool:
    """``lib``'s kernel fills ``out`` from ``generator``'s state and the advanced state goes back to it; False (the
    generator untouched) where the kernel refuses."""
    state = generator.get_state()
    if lib.normal_draws_f64(state.data_ptr(), state.numel(), out.data_ptr(), out.numel()) != 0:
        return False
    generator.set_state(state)
    return True


@lru_cache(maxsize=1)
def _agrees_with_torch(lib) -> bool:
    """Whether the kernel gives ``torch.randn``'s numbers and final state on a scratch generator."""
    g_torch, g_c = torch.Generator().manual_seed(20261129), torch.Generator().manual_seed(20261129)
    for n in (16, 1000, 619, 37):  # 2,000 words first, so that the later draws start mid-array
        want = torch.randn(n, generator=g_torch, dtype=torch.float64)
        got = torch.empty(n, dtype=torch.float64)
        if not (_kernel_fill(lib, got, g_c) and torch.equal(want, got)):
            return False
    return torch.equal(g_torch.get_state(), g_c.get_state())


def _checked_library():
    """The C library when it is built, switched on and agrees with this torch (:func:`_agrees_with_torch`)."""
    lib = native_library()
    return lib if lib is not None and _agrees_with_torch(lib) else None
