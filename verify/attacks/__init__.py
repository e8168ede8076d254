"""Byzantine attacks: what the f malicious clients send, batched.

Interface (every attack): ``attack(honest, f, *, generator=None, **context) -> Tensor``, ``honest`` of
shape ``[R, h, d]`` (the honest clients' vectors this round), the result ``[R, f, d]`` in the same
dtype and device. ``context`` carries what an omniscient attacker may also know (the server's current
model ``reference``, the aggregator's radius, ...); an attack documents which keys it reads. Random
attacks take an explicit ``generator``; none touches a global random state.

Each module registers its attacks with ``@attack("name")``; the package imports all its modules.
Data-poisoning attacks (label flips) change the malicious clients' data instead and live with the
problem they poison.
"""
from __future__ import annotations

from verify.named import import_submodules, named_registry

ATTACKS, attack = named_registry("attack")
import_submodules(__name__)
