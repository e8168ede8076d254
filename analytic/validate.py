"""The one place where fedverify's public functions check the numbers and sizes they are given.

Every public constructor and function that takes a number calls one of these, so a bad value ends in
:class:`analytic.errors.InputError` naming the parameter, never in a raw ``TypeError``/``ValueError``
from deep inside, and never in a silent NaN:

* :func:`real`    a finite real number (not a bool, not a string, not None), optionally bounded;
* :func:`integer` a whole number (``3``, ``np.int64(3)``, ``3.0``; not ``True``, ``'3'`` or ``3.5``),
  optionally bounded below (a count: ``minimum=0`` or ``1``);
* :func:`array`   a float64 array of numbers (a scalar or a list), no NaN;
* :func:`weights` a non-empty 1-d list of finite non-negative numbers, not all zero;
* :func:`probability` a level or a significance in the open interval (0, 1);
* :func:`tolerance` a finite number (or array of them) >= 0;
* :func:`measured` a number or an array of numbers that may be NaN or +-inf (a measurement that
  failed is data, decided ``inconclusive`` by its verdict rule, not bad input); an array of booleans
  (successes) counts as 0/1, a lone ``True`` does not;
* :func:`boolean` a ``bool`` (or numpy's), never ``1``, ``'yes'`` or ``None``;
* :func:`choice`  one of a fixed set of strings (a side, a kind, a verdict);
* :func:`memory`  an allocation of ``count`` items of ``itemsize`` bytes, refused up front when it
  exceeds the machine's physical memory (``os.sysconf``), with the memory it would need.

The checks are deliberately strict about types: ``True`` is an ``int`` to Python, but ``seed=True``
or ``n=True`` is a mistake, not a request for 1; ``'3'`` converts to 3.0, but a string reaching a
numerical function means the caller forgot to parse it.
"""
from __future__ import annotations

import math
import numbers
import operator
import os

import numpy as np

from analytic.errors import InputError

__all__ = ["real", "integer", "array", "weights", "probability", "tolerance", "measured", "boolean", "choice",
           "memory", "TooLarge", "physical_memory", "format_bytes"]


def _reject_non_numbers(value, param: str, what: str) -> None:
    if isinstance(value, (bool, np.bool_)):
        raise InputError(param, f"expected {what}, got the boolean {value!r}")
    if value is None or isinstance(value, (str, bytes, bytearray)):
        raise InputError(param, f"expected {what}, got {value!r}")


def real(value, param: str, *, minimum: float | None = None, maximum: float | None = None,
         strict: bool = False, allow_inf: bool = False) -> float:
    """``value`` as a float: finite (``+-inf`` too when ``allow_inf``), never NaN, not a bool or a
    string, and within ``[minimum, maximum]`` (open at ``minimum`` when ``strict``)."""
    _reject_non_numbers(value, param, "a number")
    if isinstance(value, numbers.Complex) and not isinstance(value, numbers.Real):
        raise InputError(param, f"expected a real number, got {value!r}")
    try:
        v = float(value)
    except (TypeError, ValueError, OverflowError):
        raise InputError(param, f"expected a number, got {value!r}") from None
    if math.isnan(v):
        raise InputError(param, f"expected a number, got NaN ({value!r})")
    if math.isinf(v) and not allow_inf:
        raise InputError(param, f"must be finite, got {value!r}")
    if minimum is not None and (v <= minimum if strict else v < minimum):
        raise InputError(param, f"must be {'>' if strict else '>='} {minimum:g}, got {value!r}")
    if maximum is not None and v > maximum:
        raise InputError(param, f"must be <= {maximum:g}, got {value!r}")
    return v


def _show(v: int) -> str:
    """An integer for a message: ``12345`` as it is, a 400-digit one as ``1.00e+400``."""
    text = str(abs(v))
    sign = "-" if v < 0 else ""
    return sign + (text if len(text) <= 20 else f"{text[0]}.{text[1:3]}e+{len(text) - 1}")


def integer(value, param: str, *, minimum: int | None = None, maximum: int | None = None) -> int:
    """``value`` as an int: an integer type or a whole finite float, not a bool or a string, at least
    ``minimum`` (a count of things: ``minimum=0``; a size: ``minimum=1``) and at most ``maximum``."""
    _reject_non_numbers(value, param, "an integer")
    if isinstance(value, numbers.Integral):
        v = int(value)
    elif isinstance(value, numbers.Real):
        f = float(value)
        if not (math.isfinite(f) and f.is_integer()):
            raise InputError(param, f"expected an integer, got {value!r}")
        v = int(f)
    else:
        try:  # a 0-d integer tensor or array
            v = operator.index(value)
        except TypeError:
            raise InputError(param, f"expected an integer, got {value!r}") from None
    if minimum is not None and v < minimum:
        raise InputError(param, f"must be an integer >= {minimum}, got {_show(v)}")
    if maximum is not None and v > maximum:
        raise InputError(param, f"must be an integer <= {maximum}, got {_show(v)}")
    return v


def _as_numeric_array(values, param: str, what: str) -> np.ndarray:
    """``values`` as a numeric numpy array; a bool or a string anywhere in it is refused (numpy would
    silently read ``[1.0, False]`` as ``[1.0, 0.0]``)."""
    _reject_non_numbers(values, param, what)
    if isinstance(values, (list, tuple)):
        for v in values:
            if isinstance(v, (bool, np.bool_, str, bytes)) or v is None:
                raise InputError(param, f"expected {what}, got the entry {v!r}")
    try:
        items = values.detach().cpu().numpy() if hasattr(values, "detach") else values
        arr = np.asarray(items)
        if arr.dtype == bool or arr.dtype.kind not in "iuf":
            raise TypeError
        return arr.astype(np.float64)
    except (TypeError, ValueError, OverflowError):
        raise InputError(param, f"expected {what}, got {values!r}") from None


def array(values, param: str, *, allow_inf: bool = True) -> np.ndarray:
    """``values`` (a number or a list of numbers) as a float64 array without NaN (nor +-inf unless
    ``allow_inf``); booleans, strings and None are refused like in :func:`real`."""
    arr = _as_numeric_array(values, param, "a number or a list of numbers")
    if np.any(np.isnan(arr)):
        raise InputError(param, "expected numbers, got NaN")
    if not allow_inf and np.any(np.isinf(arr)):
        raise InputError(param, "every entry must be finite")
    return arr


def weights(values, param: str) -> np.ndarray:
    """A non-empty 1-d float64 array of finite, non-negative numbers with a positive sum (client
    sizes, mixing weights): an empty list, a negative size or all zeros has no meaningful ratio."""
    arr = _as_numeric_array(values, param, "a list of numbers")
    if arr.ndim != 1 or arr.size == 0:
        raise InputError(param, f"expected a non-empty 1-d list, got shape {arr.shape}")
    if not np.all(np.isfinite(arr)):
        raise InputError(param, "every entry must be finite")
    if np.any(arr < 0):
        raise InputError(param, f"entries must be >= 0, got {float(arr.min()):g}")
    if not arr.sum() > 0:
        raise InputError(param, "at least one entry must be positive (all are zero)")
    return arr


def probability(value, param: str) -> float:
    """A confidence level or a significance: a real number strictly between 0 and 1."""
    v = real(value, param, minimum=0.0, strict=True)
    if not v < 1.0:
        raise InputError(param, f"must be < 1, got {value!r}")
    return v


def tolerance(value, param: str, *, allow_inf: bool = False):
    """A tolerance (or an array of them, one per point): >= 0 and finite (``+inf`` too when ``allow_inf``:
    "no limit"). A scalar comes back as a float, an array as a float64 array."""
    if np.ndim(value) == 0 and not isinstance(value, np.ndarray):
        return real(value, param, minimum=0.0, allow_inf=allow_inf)
    arr = array(value, param, allow_inf=allow_inf)
    if np.any(arr < 0):
        raise InputError(param, f"must be >= 0, got {float(arr.min()):g}")
    return arr


def measured(values, param: str, *, minimum: float | None = None) -> np.ndarray:
    """Measured numbers as a float64 array: NaN and +-inf are kept (a failed computation is for the
    verdict rule to call inconclusive), but a bool, a string, None or an empty array is refused;
    ``minimum``: every non-NaN entry must be at least this (a standard error: 0)."""
    if isinstance(values, (bool, np.bool_)):
        raise InputError(param, f"expected a number or an array of numbers, got the boolean {values!r}")
    if getattr(values, "dtype", None) is not None and str(values.dtype) in ("bool", "torch.bool"):
        values = np.asarray(values.detach().cpu().numpy() if hasattr(values, "detach") else values, dtype=float)
    arr = _as_numeric_array(values, param, "a number or an array of numbers")
    if arr.size == 0:
        raise InputError(param, "expected at least one number, got an empty array")
    if minimum is not None and np.any(arr[~np.isnan(arr)] < minimum):
        raise InputError(param, f"entries must be >= {minimum:g}, got {float(np.nanmin(arr)):g}")
    return arr


def boolean(value, param: str) -> bool:
    """A flag: ``True`` or ``False`` (Python's or numpy's); ``1``, ``'no'`` or ``None`` is a mistake."""
    if not isinstance(value, (bool, np.bool_)):
        raise InputError(param, f"expected True or False, got {value!r}")
    return bool(value)


def choice(value, param: str, options) -> str:
    """``value`` as one of the strings ``options`` (a str-valued enum member counts as its value)."""
    text = getattr(value, "value", value)
    if not isinstance(text, str) or text not in tuple(options):
        raise InputError(param, f"expected one of {', '.join(map(str, options))}; got {value!r}")
    return text


# -- sizes ----------------------------------------------------------------------------------------
def physical_memory() -> int:
    """Bytes of physical memory of this machine (``os.sysconf``); a large default where unknown."""
    try:
        return int(os.sysconf("SC_PAGE_SIZE")) * int(os.sysconf("SC_PHYS_PAGES"))
    except (AttributeError, ValueError, OSError):  # pragma: no cover - not POSIX
        return 1 << 40


def format_bytes(n: float) -> str:
    """``7.28 TiB``, ``512 MiB``: binary units, three significant digits."""
    for unit in ("B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"):
        if n < 1024 or unit == "EiB":
            return f"{n:.3g} {unit}"
        n /= 1024.0
    return f"{n:.3g} EiB"  # pragma: no cover


class TooLarge(InputError):
    """An allocation refused up front by :func:`memory`: bad input of a size the user chose (the command
    line reports it with exit code 2, like every bad input, wherever in a run it was found)."""

    def __reduce__(self):  # picklable across worker processes
        return (TooLarge, (self.param, self.message))


def memory(param: str, count, itemsize: int = 8, what: str = "") -> int:
    """Refuse, before allocating, ``count`` items of ``itemsize`` bytes (a float64 by default) that
    cannot fit in this machine's physical memory; return the bytes otherwise.

    The cap is the physical memory itself: an allocation larger than it can only swap or be killed
    (the issue's ``--replicates 1e12`` tried 7.3 TiB), so refusing it costs no run that could finish.
    """
    need = int(count) * int(itemsize)
    have = physical_memory()
    if need > have:
        tail = f" for {what}" if what else ""
        raise TooLarge(param, f"would need {format_bytes(need)}{tail}, more than this machine's "
                                f"{format_bytes(have)} of memory; choose a smaller value")
    return need
