"""verify/normal_draws.py: torch.randn's float64 numbers and generator state, bit for bit, from the C kernel."""
from __future__ import annotations

import ctypes

import numpy as np
import pytest
import torch

from verify import native
from verify import normal_draws
from verify.normal_draws import FAST_MIN, randn


@pytest.fixture
def kernel(monkeypatch):
    monkeypatch.setenv("FEDVERIFY_TC_C", "1")
    if native.build() is None or native.library() is None:
        pytest.skip("no C compiler")
    lib = normal_draws._checked_library()
    assert lib is not None, "the kernel disagrees with this torch's randn"
    return lib


def _kernel_draw(lib, n: int, g: torch.Generator) -> torch.Tensor:
    out = torch.empty(n, dtype=torch.float64)
    assert normal_draws._kernel_fill(lib, out, g)
    return out


def test_kernel_is_torch_randn_bit_for_bit_from_any_state(kernel):
    """Sizes 16 to 20,001 with and without a tail of 16, from fresh seeds and from states left mid-way through the 624
    words by uniform, integer and small normal draws (which also fill torch's cached normal): the same numbers and
    the same state afterwards."""
    rng = np.random.default_rng(0)
    sizes = [16, 17, 31, 32, 33, 311, 623, 624, 625, 1247, 1248, 1249, 4096, 5003, 20001]
    for seed in range(12):
        g_torch, g_c = torch.Generator().manual_seed(seed), torch.Generator().manual_seed(seed)
        for _ in range(12):
            k, m, n = int(rng.integers(0, 4)), int(rng.integers(1, 40)), int(rng.choice(sizes))
            for g in (g_torch, g_c):  # the same side draws on both, by torch's own kernels
                if k == 1:
                    torch.rand(m, generator=g, dtype=torch.float64)
                elif k == 2:
                    torch.randint(0, 7, (m,), generator=g)
                elif k == 3:
                    torch.randn(3, generator=g, dtype=torch.float64)  # the serial path: caches a normal
            want = torch.randn(n, generator=g_torch, dtype=torch.float64)
            got = _kernel_draw(kernel, n, g_c)
            assert torch.equal(want, got), (seed, n)
            assert torch.equal(g_torch.get_state(), g_c.get_state()), (seed, n)
        # both generators go on alike: the next draws of torch's own kernels agree too
        assert torch.equal(torch.randn(5, generator=g_torch, dtype=torch.float64),
                           torch.randn(5, generator=g_c, dtype=torch.float64))


def test_randn_takes_torch_randn_arguments_and_gives_its_numbers(kernel):
    """Every call form the toolkit uses: shapes as ints, a tuple or a torch.Size, large and small, float64 and
    float32, with a device named; the generators stay in step throughout."""
    g1, g2 = torch.Generator().manual_seed(3), torch.Generator().manual_seed(3)
    calls = [((4, 700), {}), ((torch.Size([3, 5, 200]),), {}), ((FAST_MIN,), {}), ((FAST_MIN - 1,), {}),
             ((7, 11), {}), (((2, 3000),), {"device": "cpu"}), ((6, 1000), {"dtype": torch.float32}),
             ((0, 5000), {}), ((50, 50), {"device": torch.device("cpu")})]
    for size, kw in calls:
        want = torch.randn(*size, generator=g1, **{"dtype": torch.float64, **kw})
        got = randn(*size, generator=g2, **{"dtype": torch.float64, **kw})
        assert want.dtype == got.dtype and want.shape == got.shape and torch.equal(want, got), size
        assert torch.equal(g1.get_state(), g2.get_state()), size


def test_randn_without_the_kernel_is_torch_randn(monkeypatch):
    """FEDVERIFY_TC_C=0 (or no library): torch.randn itself, the same numbers."""
    monkeypatch.setenv("FEDVERIFY_TC_C", "0")
    g1, g2 = torch.Generator().manual_seed(9), torch.Generator().manual_seed(9)
    assert torch.equal(torch.randn(40, 100, generator=g1, dtype=torch.float64),
                       randn(40, 100, generator=g2, dtype=torch.float64))


def test_kernel_refuses_what_it_cannot_draw(kernel):
    """n < 16 (torch's serial path), a state of the wrong size and an impossible MT19937 position: -1 and nothing
    written; randn then falls back on torch.randn."""
    g = torch.Generator().manual_seed(1)
    state = g.get_state()
    out = torch.full((20,), 7.0, dtype=torch.float64)
    assert kernel.normal_draws_f64(state.data_ptr(), state.numel(), out.data_ptr(), 15) == -1
    assert kernel.normal_draws_f64(state.data_ptr(), state.numel() - 8, out.data_ptr(), 20) == -1
    bad = state.clone()
    bad[16:24] = torch.tensor(list((700).to_bytes(8, "little")), dtype=torch.uint8)  # next = 700 > 624 words
    assert kernel.normal_draws_f64(bad.data_ptr(), bad.numel(), out.data_ptr(), 20) == -1
    assert torch.equal(out, torch.full((20,), 7.0, dtype=torch.float64)) and torch.equal(g.get_state(), state)


def test_a_kernel_that_disagrees_with_torch_is_not_used(kernel, monkeypatch):
    """The first-use comparison catches a kernel whose numbers differ from torch.randn's (as a changed torch would
    make it): randn then draws with torch.randn."""

    class Wrong:
        @staticmethod
        def normal_draws_f64(state_ptr, state_bytes, out_ptr, n):
            ctypes.memmove(out_ptr, (ctypes.c_double * n)(*[0.5] * n), 8 * n)
            return 0

    wrong = Wrong()
    assert normal_draws._agrees_with_torch(kernel) and not normal_draws._agrees_with_torch(wrong)
    monkeypatch.setattr(normal_draws, "native_library", lambda: wrong)
    g1, g2 = torch.Generator().manual_seed(2), torch.Generator().manual_seed(2)
    assert torch.equal(randn(4000, generator=g1, dtype=torch.float64),
                       torch.randn(4000, generator=g2, dtype=torch.float64))
