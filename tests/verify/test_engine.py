import numpy as np
import pytest
import torch

from analytic.errors import InputError
from verify.engine import Context, log_checkpoints, resolve_device


def test_same_seed_same_numbers_and_streams_independent():
    a = Context(seed=3, check_id="x.c01")
    b = Context(seed=3, check_id="x.c01")
    ra = torch.randn(5, generator=a.generator("s"), dtype=torch.float64)
    assert torch.equal(ra, torch.randn(5, generator=b.generator("s"), dtype=torch.float64))
    assert not torch.equal(ra, torch.randn(5, generator=a.generator("t"), dtype=torch.float64))
    assert not torch.equal(ra, torch.randn(5, generator=a.for_check("x.c02").generator("s"), dtype=torch.float64))
    assert not torch.equal(ra, torch.randn(5, generator=Context(seed=4, check_id="x.c01").generator("s"), dtype=torch.float64))
    assert a.numpy_rng("s").integers(1 << 30) == b.numpy_rng("s").integers(1 << 30)


def test_no_global_seeding():
    torch.manual_seed(123)
    before = torch.randn(3)
    torch.manual_seed(123)
    Context(seed=9).generator("x")
    assert torch.equal(before, torch.randn(3))


def test_context_validation_names_the_parameter():
    for kwargs, name in [({"replicates": 0}, "replicates"), ({"seed": -1}, "seed"),
                         ({"fidelity": "medium"}, "fidelity"), ({"device": "tpu"}, "device")]:
        with pytest.raises(InputError) as info:
            Context(**kwargs)
        assert info.value.param == name


def test_defaults_float64_auto_device_and_reps():
    c = Context()
    assert c.device == "auto" and c.dtype == torch.float64
    assert c.torch_device.type == ("cuda" if torch.cuda.is_available() else "cpu")
    assert c.reps(10, 50) == 10 and Context(fidelity="full").reps(10, 50) == 50
    assert Context(replicates=17).reps(10, 50) == 17
    assert resolve_device("auto").type in ("cpu", "cuda")


def test_log_checkpoints():
    cp = log_checkpoints(1000, 10)
    assert cp[0] == 1 and cp[-1] == 1000 and np.all(np.diff(cp) > 0)
    assert log_checkpoints(5, 10, include_zero=True).tolist() == [0, 1, 2, 3, 4, 5]
    with pytest.raises(InputError):
        log_checkpoints(0)
