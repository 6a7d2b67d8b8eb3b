"""A room: two people playing a series of games on one board, as pure values.

A room has two seats. An online room's first seat is its host's, and the second is
taken by whoever opens the invite link first; anyone else watches. Once a player has
left, their seat is taken only on purpose (``take_free_seat``), never by opening the
link, and the series they played stays as the room's last score, under their name,
until it is; whoever takes it begins a new series, and the room says whose seat they
took until that series' second game begins. A room on one device seats the same player
twice, and allows taking a move back. Who plays X in the first game is a coin toss (the
caller's), and X alternates after that. A finished game counts in the room's tally once
both seats agree to a rematch; until then the score shown counts it too.

Time is passed in (``now``, seconds) and stored as the room's last change, from which
its expiry is judged; nothing here reads a clock.
"""

from __future__ import annotations

import dataclasses
import unicodedata
from dataclasses import dataclass, field
from typing import Any, Literal, cast, get_args

from .board import Board, Cell, Mark, RuleError
from .position import Ending, Position, board_mask, full_lines, is_dead
from .variant import CLASSIC, Variant, variant_named

Kind = Literal["online", "local"]
Seat = Literal[0, 1]
Status = Literal["waiting", "playing", "over"]
KINDS: tuple[Kind, ...] = get_args(Kind)
SEATS: tuple[Seat, Seat] = (0, 1)
SCHEMA = 2  # 2: names and the seat left (0.5.0); 1 (0.4.0) still loads
# Since 0.6.0 a format 2 record may hold two optional keys, ``former`` and ``taken``,
# written only while the room speaks of a player who left: 0.5.0 reads it, ignoring them.
# A room on another rule set than classic holds a ``variant`` key (its name); without
# it a room is classic, as every room stored before variants was.
NAME_CHARS = 20  # the default longest name, in code points after NFC
# Bidirectional controls reorder the text around them: a name could disguise another.
BIDI_CONTROLS = frozenset(
    "\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
)


class RoomError(RuleError):
    """A refused room action; ``code`` is stable for clients."""


@dataclass(frozen=True)
class Tally:
    """Finished games of a series: wins by seat, wins by mark, and draws."""

    seat_wins: tuple[int, int] = (0, 0)
    x_wins: int = 0
    o_wins: int = 0
    draws: int = 0

    def add(self, winner: Seat | None, mark: Mark | None) -> Tally:
        """The tally with one more game: won by ``winner`` playing ``mark``, or drawn."""
        if winner is None:
            return dataclasses.replace(self, draws=self.draws + 1)
        wins = list(self.seat_wins)
        wins[winner] += 1
        x, o = (self.x_wins + 1, self.o_wins) if mark == "X" else (self.x_wins, self.o_wins + 1)
        return Tally(seat_wins=(wins[0], wins[1]), x_wins=x, o_wins=o, draws=self.draws)


@dataclass(frozen=True)
class Room:
    """One room: its seats, the game on its board, the series so far, and its version."""

    id: str
    kind: Kind
    seats: tuple[str | None, str | None]
    updated: float
    version: int = 0
    game_number: int = 0  # 0 while the room waits for its second player
    x_seat: Seat = 0
    moves: tuple[Cell, ...] = ()
    resigned: Seat | None = None
    rematch: frozenset[Seat] = frozenset()
    tally: Tally = field(default_factory=Tally)
    names: tuple[str | None, str | None] = (None, None)
    left: Seat | None = None  # the seat whose player left, until someone takes it
    former: str | None = None  # the name of the player who left it, while it is spoken of
    taken: Seat | None = None  # the seat a newcomer took, until their series' second game
    variant: Variant = CLASSIC  # the rule set of every game in the room

    @property
    def board(self) -> Board:
        """The classic board after the moves of this game (for the classic engine)."""
        board = Board()
        for cell in self.moves:
            board = board.apply_move(cell)
        return board

    @property
    def position(self) -> Position:
        """The position of the room's variant after the moves of this game."""
        position = Position.empty(self.variant)
        for cell in self.moves:
            position = position.apply_move(cell)
        return position

    @property
    def status(self) -> Status:
        """Waiting for a second player, a game under way, or a game over."""
        if self.game_number == 0:
            return "waiting"
        if self.resigned is not None or self.position.is_over():
            return "over"
        return "playing"

    @property
    def to_move(self) -> Mark:
        """The side to move as a mark: X for whoever moved first (in Notakto too)."""
        return "X" if len(self.moves) % 2 == 0 else "O"

    def seat_of_mark(self, mark: Mark) -> Seat:
        """The seat playing ``mark`` in this game."""
        return self.x_seat if mark == "X" else other_seat(self.x_seat)

    @property
    def turn(self) -> Seat | None:
        """The seat to move, or None when no game is under way."""
        if self.status != "playing":
            return None
        return self.seat_of_mark(self.to_move)

    @property
    def winner(self) -> Seat | None:
        """The seat that won this game (by the variant's rule or a resignation), or None:
        a line wins, or loses under misère; in Notakto who kills the last board loses."""
        if self.resigned is not None:
            return other_seat(self.resigned)
        ending = self.position.ending()
        if ending is None or ending is Ending.DRAW:
            return None
        mover = self.seat_of_mark(self.to_move)
        return mover if ending is Ending.MOVER_WON else other_seat(mover)

    @property
    def line(self) -> tuple[Cell, ...] | None:
        """The cells of the line that ended this game, or None (Notakto's end is no line)."""
        position = self.position
        if self.variant.notakto or not position.is_over():
            return None
        last = position.o if position.first_to_move else position.x
        lines = full_lines(self.variant, last)
        return tuple(i for i in range(self.variant.cells) if lines[0] >> i & 1) if lines else None

    @property
    def dead_boards(self) -> tuple[int, ...]:
        """The Notakto boards with three in a row, on which no one plays (none elsewhere)."""
        if not self.variant.notakto:
            return ()
        x = self.position.x
        boards = range(self.variant.boards)
        return tuple(b for b in boards if is_dead(self.variant, board_mask(self.variant, x, b)))

    @property
    def score(self) -> Tally:
        """The series so far, this game included once it is over."""
        if self.status != "over":
            return self.tally
        winner = self.winner
        mark = None if winner is None else ("X" if winner == self.x_seat else "O")
        return self.tally.add(winner, cast("Mark | None", mark))

    def seats_of(self, player: str) -> tuple[Seat, ...]:
        """The seats ``player`` holds: none for a spectator, both on one device."""
        return tuple(seat for seat in SEATS if self.seats[seat] == player)

    @property
    def empty(self) -> bool:
        """No one holds a seat any more."""
        return self.seats == (None, None)


def other_seat(seat: Seat) -> Seat:
    """The other seat."""
    return 1 if seat == 0 else 0


def _bump(room: Room, now: float, **changes: Any) -> Room:
    return dataclasses.replace(room, version=room.version + 1, updated=now, **changes)


def open_room(
    room_id: str, host: str, *, kind: Kind, now: float, variant: Variant = CLASSIC
) -> Room:
    """A new room on ``variant``: online, waiting for a friend; or on one device, its
    first game begun."""
    if kind not in KINDS:
        raise RoomError("bad_payload", f"kind must be one of {', '.join(KINDS)}")
    if kind == "local":
        return Room(
            room_id, kind, (host, host), updated=now, version=1, game_number=1, variant=variant
        )
    return Room(room_id, kind, (host, None), updated=now, version=1, variant=variant)


def change_variant(room: Room, variant: Variant, *, now: float) -> Room:
    """The room on one device played on ``variant`` from now on: a new series begins."""
    if room.kind != "local":
        raise RoomError("not_allowed", "a room with a friend keeps the rules it was made with")
    if variant == room.variant:
        return room
    return _bump(
        room,
        now,
        variant=variant,
        game_number=1,
        x_seat=0,
        moves=(),
        resigned=None,
        rematch=frozenset(),
        tally=Tally(),
    )


def take_seat(room: Room, player: str, *, coin: Seat, now: float) -> Room:
    """``player`` opens the link: they take the free seat of a room that has never lost
    a player; otherwise (or if they hold one, or none is free) the room is unchanged."""
    if room.left is not None:
        return room
    return _seated(room, player, coin=coin, now=now)


def take_free_seat(room: Room, player: str, *, coin: Seat, now: float) -> Room:
    """``player`` asks for the free seat (unchanged if they hold one already)."""
    if room.kind == "local":
        raise RoomError("not_allowed", "a room on this device has no seat to take")
    if not room.seats_of(player) and None not in room.seats:
        raise RoomError("no_free_seat", "both seats are taken: you can watch")
    return _seated(room, player, coin=coin, now=now)


def _seated(room: Room, player: str, *, coin: Seat, now: float) -> Room:
    """``player`` in the free seat; with both seats held a new series begins, and
    ``coin`` says which seat plays X first."""
    if room.seats_of(player) or None not in room.seats or room.kind == "local":
        return room
    free = room.seats.index(None)
    seats = (player, room.seats[1]) if free == 0 else (room.seats[0], player)
    if None in seats:
        return _bump(room, now, seats=seats, left=None, former=None, taken=None)
    return _bump(
        room,
        now,
        seats=seats,
        game_number=1,
        x_seat=coin,
        moves=(),
        resigned=None,
        tally=Tally(),
        left=None,
        former=room.former if room.left is not None else None,
        taken=free if room.left is not None else None,
    )


def check_name(name: object, *, max_chars: int = NAME_CHARS) -> str | None:
    """A player's name as kept: NFC, trimmed, None when blank; or RoomError("bad_name")."""
    if not isinstance(name, str):
        raise RoomError("bad_name", "a name is text")
    kept = unicodedata.normalize("NFC", name).strip()
    if len(kept) > max_chars:
        raise RoomError("bad_name", f"a name is at most {max_chars} characters")
    for char in kept:
        if char in BIDI_CONTROLS or unicodedata.category(char) in ("Cc", "Zl", "Zp"):
            raise RoomError("bad_name", "a name cannot hold control or direction characters")
    return kept or None


def set_name(room: Room, player: str, name: object, *, now: float, max_chars: int) -> Room:
    """``player`` names themselves in this online room (None or blank: no name)."""
    seats = room.seats_of(player)
    if not seats:
        raise RoomError("not_seated", "only the players of this room give their names")
    if room.kind == "local":
        raise RoomError("not_allowed", "names are for rooms with a friend")
    kept = check_name(name, max_chars=max_chars)
    names = (kept, room.names[1]) if seats[0] == 0 else (room.names[0], kept)
    return room if names == room.names else _bump(room, now, names=names)


def _mover(room: Room, player: str) -> Seat:
    """The seat ``player`` moves for now, or the reason they cannot."""
    if not room.seats_of(player):
        raise RoomError("not_seated", "you are watching this room: only its players move")
    if room.status == "waiting":
        raise RoomError("not_your_turn", "waiting for your friend to join")
    if room.status == "over":
        raise RoomError("game_over", "this game is over: press Rematch for another")
    turn = cast(Seat, room.turn)
    if room.seats[turn] != player:
        raise RoomError("not_your_turn", "it is your friend's turn")
    return turn


def room_move(room: Room, player: str, cell: object, *, now: float) -> Room:
    """``player`` plays ``cell`` for the seat whose turn it is."""
    _mover(room, player)
    room.position.apply_move(cell)  # refuses a bad, taken or dead cell with its own code
    return _bump(room, now, moves=(*room.moves, room.variant.check_cell(cell)))


def take_back(room: Room, player: str, *, now: float) -> Room:
    """Undo the last move of the game on one device, even the one that ended it."""
    if room.kind != "local":
        raise RoomError("not_allowed", "moves can be taken back only on one device")
    if not room.seats_of(player):
        raise RoomError("not_seated", "only the players of this room can take a move back")
    if not room.moves or room.resigned is not None:
        raise RoomError("not_allowed", "there is no move to take back")
    return _bump(room, now, moves=room.moves[:-1], rematch=frozenset())


def resign(room: Room, player: str, *, now: float) -> Room:
    """``player`` gives up the game under way; the other seat wins it."""
    seats = room.seats_of(player)
    if not seats:
        raise RoomError("not_seated", "you are watching this room: only its players resign")
    if room.status != "playing":
        raise RoomError("game_over", "there is no game under way to resign")
    loser = cast(Seat, room.turn) if len(seats) == 2 else seats[0]
    return _bump(room, now, resigned=loser)


def rematch(room: Room, player: str, *, now: float) -> Room:
    """``player`` asks for the next game; it begins once both seats have asked.

    The finished game goes into the tally, and the other seat plays X.
    """
    seats = room.seats_of(player)
    if not seats:
        raise RoomError("not_seated", "you are watching this room: only its players ask")
    if room.status != "over":
        raise RoomError("game_not_over", "a rematch can start once this game is over")
    votes = room.rematch | frozenset(seats)
    if votes != frozenset(SEATS):
        return room if votes == room.rematch else _bump(room, now, rematch=votes)
    return _bump(
        room,
        now,
        tally=room.score,
        game_number=room.game_number + 1,
        x_seat=other_seat(room.x_seat),
        moves=(),
        resigned=None,
        rematch=frozenset(),
        former=None,
        taken=None,
    )


def leave(room: Room, player: str, *, now: float, erased: bool = False) -> Room:
    """``player`` leaves for good, freeing their seat and their name; a game under way
    is lost by them (a forfeit: ``ended_game``). The series stays as the room's last
    score, the leaver's name as ``former`` (not if ``erased``: they asked for their data
    to be deleted), and the one who stays waits for someone to take the seat, when a new
    series begins."""
    seats = room.seats_of(player)
    if not seats:
        raise RoomError("not_seated", "you are not playing in this room")
    if room.status == "playing" and room.kind == "online":
        room = dataclasses.replace(room, resigned=seats[0])
    remaining = tuple(None if holder == player else holder for holder in room.seats)
    names = tuple(
        None if holder == player else name
        for holder, name in zip(room.seats, room.names, strict=True)
    )
    return _bump(
        room,
        now,
        seats=cast("tuple[str | None, str | None]", remaining),
        names=cast("tuple[str | None, str | None]", names),
        game_number=0,
        moves=(),
        resigned=None,
        rematch=frozenset(),
        tally=room.score,
        left=seats[0] if len(seats) == 1 else None,
        former=room.names[seats[0]] if len(seats) == 1 and not erased else None,
        taken=None,
    )


@dataclass(frozen=True)
class EndedGame:
    """A game of an online room that a change ended, for its players' history."""

    players: tuple[str | None, str | None]  # by seat, the one who left it included
    moves: tuple[Cell, ...]
    x_seat: Seat
    number: int
    winner: Seat | None
    resigned: Seat | None = None  # the seat that resigned it
    forfeit: Seat | None = None  # the seat whose player left it under way: cut short


def ended_game(before: Room, after: Room) -> EndedGame | None:
    """The game of an online room that the change from ``before`` to ``after`` ended: on
    the board, by a resignation, or cut short by a player who left it (a forfeit, which
    the other seat wins); None if it ended none."""
    if after.kind != "online":
        return None
    if before.status == "playing" and after.status == "waiting" and after.left is not None:
        left = after.left
        return EndedGame(
            before.seats,
            before.moves,
            before.x_seat,
            before.game_number,
            other_seat(left),
            forfeit=left,
        )
    if after.status != "over" or (
        before.status == "over" and before.game_number == after.game_number
    ):
        return None
    return EndedGame(
        after.seats,
        after.moves,
        after.x_seat,
        after.game_number,
        after.winner,
        resigned=after.resigned,
    )


def expired(room: Room, *, now: float, idle_seconds: float) -> bool:
    """Whether the room has been left unchanged for longer than ``idle_seconds``."""
    return now - room.updated > idle_seconds


def to_record(room: Room) -> dict[str, Any]:
    """The room as stored data, with its schema number."""
    return {
        "format": SCHEMA,
        "id": room.id,
        "kind": room.kind,
        "seats": list(room.seats),
        "updated": room.updated,
        "version": room.version,
        "game_number": room.game_number,
        "x_seat": room.x_seat,
        "moves": list(room.moves),
        "resigned": room.resigned,
        "rematch": sorted(room.rematch),
        "tally": dataclasses.asdict(room.tally),
        "names": list(room.names),
        "left": room.left,
        # Optional keys, so that 0.5.0 still reads every room (it ignores them).
        **({} if room.former is None else {"former": room.former}),
        **({} if room.taken is None else {"taken": room.taken}),
        **({} if room.variant == CLASSIC else {"variant": room.variant.name}),
    }


def from_record(data: dict[str, Any]) -> Room:
    """The room in stored data; raises RoomError("bad_state") if it is not one."""
    if not isinstance(data, dict) or data.get("format") not in (1, SCHEMA):
        raise RoomError("bad_state", f"not a room record of format 1 to {SCHEMA}")
    tally, names = data["tally"], data.get("names", [None, None])  # format 1 had no names
    try:
        variant = variant_named(data.get("variant", CLASSIC.name))
    except (RuleError, TypeError) as err:
        raise RoomError("bad_state", "a room's variant is not one of the named ones") from err
    room = Room(
        id=str(data["id"]),
        kind=data["kind"],
        seats=(data["seats"][0], data["seats"][1]),
        updated=float(data["updated"]),
        version=int(data["version"]),
        game_number=int(data["game_number"]),
        x_seat=data["x_seat"],
        moves=tuple(int(cell) for cell in data["moves"]),
        resigned=data["resigned"],
        rematch=frozenset(data["rematch"]),
        tally=Tally(tuple(tally["seat_wins"]), tally["x_wins"], tally["o_wins"], tally["draws"]),
        names=(names[0], names[1]),
        left=data.get("left"),
        former=data.get("former"),
        taken=data.get("taken"),
        variant=variant,
    )
    _check(room)
    return room


def _check(room: Room) -> None:
    if room.kind not in KINDS or room.x_seat not in SEATS or room.resigned not in (None, *SEATS):
        raise RoomError("bad_state", "a room's kind or seats are out of range")
    if room.left not in (None, *SEATS) or room.taken not in (None, *SEATS):
        raise RoomError("bad_state", "a room's seat left or taken is out of range")
    if len(room.names) != 2 or not isinstance(room.former, str | None):
        raise RoomError("bad_state", "a room's names are out of range")
    if not all(name is None or isinstance(name, str) for name in room.names):
        raise RoomError("bad_state", "a room's names are not text")
    if not room.rematch <= frozenset(SEATS) or len(room.tally.seat_wins) != 2:
        raise RoomError("bad_state", "a room's votes or tally are out of range")
    room.position  # replays the moves: raises on an illegal one  # noqa: B018
