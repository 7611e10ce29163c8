"""Every reason code of quick play (tickets, the matchmaker, ratings reads),
in one place: stable UPPER_SNAKE strings that clients branch on."""

from __future__ import annotations

from typing import Final

BAD_SEAT_COUNTS: Final = "BAD_SEAT_COUNTS"
"""The acceptable seat counts are not a range the variant can deal."""
BAD_TICKET_PROPERTIES: Final = "BAD_TICKET_PROPERTIES"
"""Too many properties, or a key or value too long or not printable."""
BAD_PLAYER_NAME: Final = "BAD_PLAYER_NAME"
BAD_BOUND_SEAT: Final = "BAD_BOUND_SEAT"
"""A seat bound to a player at creation must be a person's, with a name."""
TOO_MANY_TICKETS: Final = "TOO_MANY_TICKETS"
"""The player holds the most tickets the server allows at once."""
TICKET_NOT_FOUND: Final = "TICKET_NOT_FOUND"
"""No such ticket, or another player's (not told apart)."""
PLAYER_REQUIRED: Final = "PLAYER_REQUIRED"
"""Quick play needs a verified player (the host's player token)."""
BAD_PAGE: Final = "BAD_PAGE"
"""A leaderboard or history read with a bad page size or page token."""
BAD_TICKET_NAME: Final = "BAD_TICKET_NAME"
"""Not a ``tickets/{ticket}`` name."""
BAD_GAME_NAME: Final = "BAD_GAME_NAME"
"""Not a ``games/{game}`` name."""
TOO_MANY_TICKET_STREAMS: Final = "TOO_MANY_TICKET_STREAMS"
"""The player holds the most ticket streams a replica allows at once."""
GAME_NOT_FINISHED: Final = "GAME_NOT_FINISHED"
"""A game's whole record is given once it has finished."""

ALL: Final = (
    BAD_SEAT_COUNTS,
    BAD_TICKET_PROPERTIES,
    BAD_PLAYER_NAME,
    BAD_BOUND_SEAT,
    TOO_MANY_TICKETS,
    TICKET_NOT_FOUND,
    PLAYER_REQUIRED,
    BAD_PAGE,
    BAD_TICKET_NAME,
    BAD_GAME_NAME,
    TOO_MANY_TICKET_STREAMS,
    GAME_NOT_FINISHED,
)
