"""Dice: a die is the tuple of its faces; rolling asks chance for one face."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Generic, TypeVar

from snail_envs.core.chance import Chance

Face = TypeVar("Face")


@dataclass(frozen=True)
class Die(Generic[Face]):
    """A fair die: every face is equally likely."""

    faces: tuple[Face, ...]

    def roll(self, chance: Chance) -> Face:
        return chance.show(self.faces)


def roll_all(dice: Sequence[Die[Face]], chance: Chance) -> list[Face]:
    """Roll several dice at once; the faces come back in the order of the dice."""
    return [die.roll(chance) for die in dice]
