"""Snail Sprint! tracks and race cards, as printed data.

Letters name the snails' symbols: Y star (yellow), P flower (purple), K circle (pink),
G cloverleaf (green), O triangle (orange), B square (blue). A space lists every symbol printed on
it. The printed HABA boards are not published, so these layouts are our defaults; any other layout
can be passed as the `board` option (24 spaces: 1–18, then 31–36) and `race_cards`.
"""

from __future__ import annotations

SNAIL_LETTERS = "YPKGOB"

BOARD_SPACES: dict[str, str] = {
    # spaces 1–18, then 31–36 (the tin is spaces 19–30)
    "A": "K G B Y O P Y P K O B G K B O G Y P" + " " + "K G P O B Y",
    "B": "YO P KGB PO YB KG YOB G PK YB O PKG YB PO KG YOB P KG" + " " + "YPB GO K GO P YKB",
}

TIN_SPACES = "Y K G B O P O B Y P K G"
"""Spaces 19–30 of both sides: 19–21 up the wall, 22–27 across the top, 28–30 down the wall."""

RACE_CARDS = "YOB PKB YPK YPG YPO YKG YKB PGO PGB KGO KOB GOB"
