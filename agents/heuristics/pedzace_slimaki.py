"""A rule-of-thumb player for Pędzące Ślimaki."""

from __future__ import annotations

import itertools
from collections.abc import Sequence

import numpy as np

from snail_envs.core.chance import SeededChance
from snail_envs.pedzace_slimaki.observer import PublicTable, public_table
from snail_envs.pedzace_slimaki.rules import (
    DEFAULT_CARDS,
    NUM_SNAILS,
    PedzaceSlimaki,
    PedzaceSlimakiOptions,
    parse_card,
)

Card = tuple[int, int]


class PedzaceSlimakiHeuristic:
    """Score points now, race your snails to the front or keep them at the back, end the race
    when it pays.

    Every die the roll offers is tried on the rules engine (`PedzaceSlimaki.preview`), and the
    move worth most is played:
    - points scored at once (pushes, a mushroom, the finish) count in full;
    - a move that ends the race is worth the place points it settles: for each snail, its
      points times how much it matters to me — 1 if it is on my card, less the chance that a
      given opponent holds it (the share of the cards I cannot see that name it). With the
      default cards a snail of mine counts ¾ and any other snail −½;
    - a move that does not end the race is worth half the place points the snails may expect
      from where they then stand, counted the same way. The guess, fitted to games of this
      bot against itself: with r the share of the race run (the leader's leaf over the last
      leaf), a snail gains (0.01 + 0.07 r) × the first-place points for each leaf it leads
      the others by (up to 4), or loses as much for each leaf it trails the leader by (up to
      6); a snail alone at the back keeps ⅔ r² × the last-place points, one sharing the back
      0.4 r². Since last place pays more than second, this pushes my leading snail on and
      leaves my trailing snail behind for the others to pass. Half weight played better
      than full weight: the guess is rough, points in hand are not;
    - in the game's last race, a finish that wins whatever cards the others hold is always
      played, and a finish that loses whatever they hold is never played when another move
      exists.

    Ties go to the lower die. What the observation does not show is taken as the rules'
    defaults unless given here: the cards (`cards`), the place points (`place_points`) and
    whether the snail face moves back (`snail_face_backwards`; also inferred whenever the mask
    forbids a rolled die, which only that variant does). The bot keeps no memory between
    moves, so it reads nothing into the others' play.
    """

    POSITION_WEIGHT = 0.5
    """How much a guessed place point is worth against a point in hand."""

    def __init__(
        self,
        *,
        cards: Sequence[Sequence[str]] = DEFAULT_CARDS,
        place_points: Sequence[int] = (5, 2, 3),
        snail_face_backwards: bool = False,
    ) -> None:
        self.cards: tuple[Card, ...] = tuple(parse_card(card) for card in cards)
        self.place_points = tuple(place_points)
        self.snail_face_backwards = snail_face_backwards
        self._engines: dict[tuple, PedzaceSlimaki] = {}
        self._weights: dict[tuple[int, ...], tuple[float, ...]] = {}
        self._worlds: dict[tuple, list[tuple[Card, ...]]] = {}

    def reset(self, seed: int | None = None) -> None:
        """Nothing to forget: every decision reads only the observation."""

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        table = public_table(observation)
        legal = np.flatnonzero(action_mask).tolist()
        if not legal:
            raise ValueError("no legal action: the mask is all zero")
        rolled = sum(face > 0 for face in table.faces)
        engine = self._engine(table, backwards=self.snail_face_backwards or len(legal) < rolled)
        weights = self._snail_weights(table.card)
        last = table.board_length
        final_race = table.race == table.rounds - 1
        best_key, best_die = None, legal[0]
        for die in legal:
            after, gained = engine.preview(table.leaves, die, table.faces[die])
            verdict = 1  # 2: a finish that surely wins, 0: one that surely loses
            if after[die] == last:
                places = engine.snail_places(after)
                worth = sum(p * w for p, w in zip(places, weights, strict=True))
                if final_race:
                    chance = self.chance_to_win(table, places, gained)
                    verdict = 2 if chance == 1.0 else 0 if chance == 0.0 else 1
            else:
                guess = self.expected_places(after, last)
                worth = self.POSITION_WEIGHT * sum(
                    p * w for p, w in zip(guess, weights, strict=True)
                )
            key = (verdict, round(gained + worth, 9))  # equal worths are ties, not float noise
            if best_key is None or key > best_key:
                best_key, best_die = key, die
        return best_die

    __call__ = act

    def expected_places(self, leaves: Sequence[int], last: int) -> list[float]:
        """A rough guess of each snail's place points at the end of a race still running."""
        first, second, rear = self.place_points
        progress = max(leaves) / last
        per_leaf = first * (0.01 + 0.07 * progress)
        alone_at_back = rear * progress * progress * 2 / 3
        shared_back = rear * progress * progress * 0.4
        mean = (first + second + rear) / NUM_SNAILS
        order = sorted(leaves)
        low, second_low, second_high, high = order[0], order[1], order[-2], order[-1]
        guesses = []
        for leaf in leaves:
            ahead = leaf - (second_high if leaf == high else high)
            behind = leaf - (second_low if leaf == low else low)
            back = alone_at_back if behind < 0 else shared_back if behind == 0 else 0.0
            guesses.append(mean + per_leaf * min(4, max(-6, ahead)) + back)
        return guesses

    def chance_to_win(self, table: PublicTable, places: Sequence[int], gained: int) -> float:
        """My expected game score (win 1, shared win ½) if the game ended now with `places`,
        over every way the cards I cannot see could be held by the others."""
        worlds = self._card_worlds(table.card, table.num_players)
        if not worlds:
            return 0.5  # more seats than the cards the bot was told about: no verdict
        mine = table.points[0] + gained + sum(places[snail] for snail in table.card)
        total = 0.0
        for world in worlds:
            best = max(
                table.points[seat] + places[a] + places[b]
                for seat, (a, b) in enumerate(world, start=1)
            )
            total += 1.0 if mine > best else 0.5 if mine == best else 0.0
        return total / len(worlds)

    def _engine(self, table: PublicTable, backwards: bool) -> PedzaceSlimaki:
        """A game with this table's board, kept only for its previews."""
        key = (table.board_length, table.mushrooms, backwards)
        engine = self._engines.get(key)
        if engine is None:
            options = PedzaceSlimakiOptions(
                board_length=table.board_length,
                mushrooms=table.mushrooms,
                snail_face_backwards=backwards,
                place_points=self.place_points,
            )
            engine = self._engines[key] = PedzaceSlimaki(options, SeededChance(0))
        return engine

    def _unseen_cards(self, card: tuple[int, ...]) -> list[Card]:
        unseen = list(self.cards)
        for held in (card, card[::-1]):
            if held in unseen:
                unseen.remove(held)
                break
        return unseen

    def _snail_weights(self, card: tuple[int, ...]) -> tuple[float, ...]:
        """How much each snail's place points matter to me: mine, less an opponent's share."""
        weights = self._weights.get(card)
        if weights is None:
            unseen = self._unseen_cards(card)
            weights = tuple(
                (snail in card) - sum(snail in other for other in unseen) / max(1, len(unseen))
                for snail in range(NUM_SNAILS)
            )
            self._weights[card] = weights
        return weights

    def _card_worlds(self, card: tuple[int, ...], num_players: int) -> list[tuple[Card, ...]]:
        """Every way to deal the cards I cannot see to the other seats (next seat first)."""
        key = (card, num_players)
        worlds = self._worlds.get(key)
        if worlds is None:
            worlds = list(itertools.permutations(self._unseen_cards(card), num_players - 1))
            self._worlds[key] = worlds
        return worlds
