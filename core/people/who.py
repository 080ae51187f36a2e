"""Who did something: the one shape a person takes in a record (docs/architecture.md "People").

A :class:`Who` is what the floor keeps of a person once they have acted: the employee number, the
name and the role, as the ``employees`` row held them when the record was read.  Every record
that names a person (a win slip's signers, a hit's decisions, a void, a machine check, a poker-room
step, a surveillance event) carries one; each prints it the same way (:meth:`Who.label`, or
:meth:`Who.short` where the role is shown elsewhere); a sentence recording an approval names the
approver by role (:meth:`Who.by_role`: ``approved by executive X1 (Exe Cutive)``).  An
authenticated swipe (:class:`core.people.auth.Swiper`) is a different thing, a card just
checked, with its keyed hash and whether its PIN was typed; its
:attr:`~core.people.auth.Swiper.who` is the person it names.

The ledger keeps people two ways, and this is the one place that reads and writes both: a foreign
key to ``employees`` (read back with :meth:`Who.of` on the row), and, in the poker room's
``recorded_by`` text columns, ``"<number> <name>"`` (:meth:`Who.recorded`).  JSON documents carry
``{"number", "name", "role"}`` (:meth:`Who.to_json`).

Imports nothing of core but the kernel: every layer above may use it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol


class _Person(Protocol):
    """Anything that names an employee: an ``employees`` row, a swipe, a desk pass."""

    @property
    def number(self) -> str: ...

    @property
    def name(self) -> str: ...

    @property
    def role(self) -> str: ...


@dataclass(frozen=True)
class Who:
    """A person who did something: employee number, name and role (never a card)."""

    number: str
    name: str
    role: str

    @classmethod
    def of(cls, person: _Person) -> Who:
        """The person an ``employees`` row (or anything with a number, name and role) names."""
        return cls(person.number, person.name, person.role)

    def label(self) -> str:
        """How slips, pages, forms and screens name the person:
        ``Dana Reyes #1001 (supervisor)``."""
        return f"{self.name} #{self.number} ({self.role})"

    __str__ = label

    def short(self) -> str:
        """The label without the role, where the role is shown elsewhere or not at all (a
        desk's header, a register's column): ``Dana Reyes #1001``."""
        return f"{self.name} #{self.number}"

    def by_role(self) -> str:
        """The person named by the role they acted in, as the sentences that record an
        approval say it (``approved by executive X1 (Exe Cutive)``, ``floor change approved:
        ..., by executive X1 (Exe Cutive) on ...``): ``executive X1 (Exe Cutive)``.  Those
        sentences are kept in logs, Activity and the command's output, and read by people and
        tests in these words, so they keep them; a slip, page or screen uses :meth:`label`."""
        return f"{self.role} {self.number} ({self.name})"

    def recorded(self) -> str:
        """The text the poker room's ledger rows keep in ``recorded_by`` (and shows back as it
        was written): ``1001 Dana Reyes``."""
        return f"{self.number} {self.name}"

    def to_json(self) -> dict[str, str]:
        return {"number": self.number, "name": self.name, "role": self.role}

    @classmethod
    def from_json(cls, doc: Any) -> Who:
        """The person a JSON document's ``{"number", "name", "role"}`` names; ValueError naming
        the field when one is missing or not text."""
        if not isinstance(doc, dict):
            raise ValueError("who: must be an object with number, name and role")
        parts: list[str] = []
        for key in ("number", "name", "role"):
            v = doc.get(key)
            if not isinstance(v, str) or not v.strip():
                raise ValueError(f"who.{key}: must be non-empty text")
            parts.append(v)
        return cls(*parts)


# The signer of a pay no person authorized (a floor set to pay without a swipe): its slip says so.
AUTO_SIGNER_NAME = "Auto-paid (no secondary verification)"
NOBODY = Who("AUTO", AUTO_SIGNER_NAME, "system")
