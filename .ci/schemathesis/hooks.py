"""Schemathesis hooks for Tabula: real games and seat tokens for every case.

Generated ids are random UUIDs, and every operation that reads or changes a
game would only ever answer 404 with them. For each case whose `id` is a
well-formed UUID (positive data), this picks a real game that suits the
operation and sends that game's seat token, so the fuzzer reaches the code
behind the id and behind the token. Cases whose `id` is not a UUID (negative
data) keep it: those exercise the 404 path.

Nothing here filters, fixes or skips generated data: the body, the query, the
other headers stay as generated. Which game a case gets:

- moves: a hotseat game of the kind whose move shape the body has (a
  `{"column"}` body on a Connect Four game, `{"board", "cell"}` on Ultimate,
  `{"row", "col"}` on a 25x25 Gomoku game, the largest board, so that every
  schema-valid cell is on the board); the token plays both seats, so a move
  is refused only when the position refuses it;
- delete and join: a fresh game with an open seat, one per case (a delete
  removes it; a join fills it);
- offers: a fresh game between two people, one per case: to make an offer,
  X's token; to accept or decline one, O's token on a game where X has
  offered a draw; to withdraw one, X's token on such a game;
- notation and analysis: a hotseat game set up from a line of moves (at
  create, `moves`), of each kind in turn, so that an export has moves to
  write and an analysis a position that is not the empty board;
- everything else: a hotseat Connect Four game from a pool.

Tournaments, challenges and `/v1/players/me` want a player's key, not a seat
token: those cases get the key of one player made for the run, and a
tournament's `{id}` that is a well-formed UUID becomes a real tournament that
player made (a fresh one, one per case, for the routes that change it; else
one from a pool). A challenge goes to a second player made for the run (a
`to` that is a UUID becomes that player's id), and a challenge's `{id}` that
is a UUID becomes a fresh challenge to that player (accepted or declined with
that player's key).

Games are reused for a few cases and then replaced, so the fuzzer meets
fresh games, games with history, and finished ones.

An id that a response of this run handed out (a create, a join or a quick
match: the stateful phase follows those links) is kept, with the token that
came with it, so that a chain like create -> move -> delete -> get works on one game
(unless the case is a move of another kind's shape: that goes to a game of
its shape, as above).

The token is applied as schemathesis auth, so `ignored_auth` checks that
requests without it or with a wrong one are refused.
"""

from __future__ import annotations

import os
import threading
import uuid
from typing import Any

import requests

import schemathesis

BASE_URL = os.environ["BASE_URL"].rstrip("/")
REUSE = 6

_lock = threading.Lock()
_session = requests.Session()


def _pair(offer: str | None) -> tuple[str, str, str]:
    """A game between two people: its id, X's token and O's token; X has
    made `offer` if given."""
    game_id, x = _create({"kind": "connect_four"})
    response = _session.post(f"{BASE_URL}/v1/games/{game_id}/join", json={}, timeout=10)
    if response.status_code != 200:
        raise RuntimeError(f"joining a fixture game failed: {response.status_code} {response.text}")
    o = response.json()["token"]
    if offer is not None:
        response = _session.post(
            f"{BASE_URL}/v1/games/{game_id}/offers",
            json={"type": offer},
            headers={"Authorization": f"Bearer {x}"},
            timeout=10,
        )
        if response.status_code != 201:
            raise RuntimeError(f"a fixture offer failed: {response.status_code} {response.text}")
    return game_id, x, o


def _create(body: dict[str, Any]) -> tuple[str, str]:
    response = _session.post(f"{BASE_URL}/v1/games", json=body, timeout=10)
    if response.status_code != 201:
        raise RuntimeError(f"creating a fixture game failed: {response.status_code} {response.text}")
    data = response.json()
    return data["game"]["id"], data["token"]


_KINDS = {
    "column": {"kind": "connect_four", "hotseat": True},
    "board_cell": {"kind": "ultimate_tic_tac_toe", "hotseat": True},
    "cell": {"kind": "gomoku", "hotseat": True, "options": {"size": 25}},
    "pool": {"kind": "connect_four", "hotseat": True},
}
# Games set up from a line, one kind after the other (see `_pooled`).
_LINES = [
    {"kind": "connect_four", "hotseat": True, "moves": "4453"},
    {"kind": "tic_tac_toe", "hotseat": True, "moves": "1425"},
    {"kind": "gomoku", "hotseat": True, "moves": "h8 i9 h9"},
    {"kind": "ultimate_tic_tac_toe", "hotseat": True, "moves": "55 51 15"},
]
_lines_made = 0
_pools: dict[str, tuple[str, str, int]] = {}
# Ids handed out by the responses of this run: a token of theirs and the kind.
_seen: dict[str, tuple[str, str]] = {}
_SHAPE_OF_KIND = {
    "connect_four": "column",
    "ultimate_tic_tac_toe": "board_cell",
    "tic_tac_toe": "cell",
    "gomoku": "cell",
}


def _pooled(shape: str) -> tuple[str, str]:
    global _lines_made
    with _lock:
        entry = _pools.get(shape)
        if entry is None or entry[2] >= REUSE:
            if shape == "line":
                body = _LINES[_lines_made % len(_LINES)]
                _lines_made += 1
            else:
                body = _KINDS[shape]
            game_id, token = _create(body)
            entry = (game_id, token, 0)
        game_id, token, uses = entry
        _pools[shape] = (game_id, token, uses + 1)
        return game_id, token


def _shape(body: Any) -> str:
    if isinstance(body, dict):
        if "column" in body:
            return "column"
        if "board" in body or "cell" in body:
            return "board_cell"
        return "cell"
    return "column"


def _is_uuid(value: Any) -> bool:
    try:
        uuid.UUID(str(value))
    except ValueError:
        return False
    return True


def _game_for(case: schemathesis.Case) -> tuple[str, str]:
    method = case.operation.method.upper()
    path = case.operation.path
    if (method, path) == ("DELETE", "/v1/games/{id}") or path.endswith("/join"):
        return _create({"kind": "connect_four", "opponent": {"type": "human"}})
    if path.endswith("/offers") and method == "POST":
        game_id, x, _ = _pair(None)
        return game_id, x
    if path.endswith("/offers/accept") or path.endswith("/offers/decline"):
        game_id, _, o = _pair("draw")
        return game_id, o
    if path.endswith("/offers") and method == "DELETE":
        game_id, x, _ = _pair("draw")
        return game_id, x
    if path.endswith("/moves") and method == "POST":
        return _pooled(_shape(case.body))
    if path.endswith("/notation") or path.endswith("/analysis"):
        return _pooled("line")
    return _pooled("pool")


def _suits(case: schemathesis.Case, kind: str) -> bool:
    """A move goes to a game of its shape (another shape is a 400 by contract)."""
    if case.operation.method.upper() == "POST" and case.operation.path.endswith("/moves"):
        return _SHAPE_OF_KIND.get(kind) == _shape(case.body)
    return True


_player_key: str | None = None
_tournament_pool: tuple[str, int] | None = None
_TOURNAMENT = {
    "name": "Fuzzed",
    "kind": "tic_tac_toe",
    "system": "round_robin",
    "clock": {"per_move_ms": 60000},
}


def _key() -> str:
    global _player_key
    with _lock:
        if _player_key is None:
            response = _session.post(f"{BASE_URL}/v1/players", json={"name": "Fuzzer"}, timeout=10)
            if response.status_code != 201:
                raise RuntimeError(f"creating a fixture player failed: {response.status_code} {response.text}")
            _player_key = response.json()["key"]
        return _player_key


_opponent: tuple[str, str] | None = None


def _other() -> tuple[str, str]:
    """A second player, (id, key): the one the fuzzer's challenges go to."""
    global _opponent
    with _lock:
        if _opponent is None:
            response = _session.post(f"{BASE_URL}/v1/players", json={"name": "Fuzzed opponent"}, timeout=10)
            if response.status_code != 201:
                raise RuntimeError(f"creating a fixture player failed: {response.status_code} {response.text}")
            _opponent = (response.json()["player"]["id"], response.json()["key"])
        return _opponent


def _challenge() -> str:
    """A fresh pending challenge from the fuzzer's player to the other one."""
    response = _session.post(
        f"{BASE_URL}/v1/challenges",
        json={"to": _other()[0], "kind": "tic_tac_toe"},
        headers={"Authorization": f"Bearer {_key()}"},
        timeout=10,
    )
    if response.status_code != 201:
        raise RuntimeError(f"creating a fixture challenge failed: {response.status_code} {response.text}")
    return response.json()["id"]


def _tournament(fresh: bool) -> str:
    global _tournament_pool
    key = _key()
    with _lock:
        if fresh or _tournament_pool is None or _tournament_pool[1] >= REUSE:
            response = _session.post(
                f"{BASE_URL}/v1/tournaments",
                json=_TOURNAMENT,
                headers={"Authorization": f"Bearer {key}"},
                timeout=10,
            )
            if response.status_code != 201:
                raise RuntimeError(f"creating a fixture tournament failed: {response.status_code} {response.text}")
            made = response.json()["id"]
            if fresh:
                return made
            _tournament_pool = (made, 0)
        made, uses = _tournament_pool
        _tournament_pool = (made, uses + 1)
        return made


def _wants_player(case: schemathesis.Case) -> bool:
    path = case.operation.path
    return path.startswith(("/v1/tournaments", "/v1/challenges", "/v1/players/me"))


@schemathesis.auth()
class SeatToken:
    """The token of a real game's seat, for the real game this case targets."""

    def get(self, case: schemathesis.Case, ctx: Any) -> str:
        return "chosen per case in set()"

    def set(self, case: schemathesis.Case, data: str, ctx: Any) -> None:
        params = case.path_parameters
        if _wants_player(case):
            path = case.operation.path
            key = _key()
            real_id = params is not None and "id" in params and _is_uuid(params["id"])
            if path.startswith("/v1/tournaments") and real_id:
                params["id"] = _tournament(fresh=case.operation.method.upper() != "GET")
            elif path.startswith("/v1/challenges/") and real_id:
                params["id"] = _challenge()
                if path.endswith(("/accept", "/decline")):
                    key = _other()[1]
            elif path == "/v1/challenges" and isinstance(case.body, dict) and _is_uuid(case.body.get("to")):
                case.body["to"] = _other()[0]
            case.headers = case.headers or {}
            case.headers["Authorization"] = f"Bearer {key}"
            return
        if not case.operation.path.startswith("/v1/games/"):
            # Not a game's path (a player's, a kind's): its `id` is left as
            # generated or linked; a seat token rides along, ignored there.
            _, token = _pooled("pool")
            case.headers = case.headers or {}
            case.headers["Authorization"] = f"Bearer {token}"
            return
        if params is not None and params.get("id") in _seen and _suits(case, _seen[params["id"]][1]):
            token = _seen[params["id"]][0]
        elif params is not None and "id" in params and _is_uuid(params["id"]):
            game_id, token = _game_for(case)
            params["id"] = game_id
        else:
            # No game to hold a seat of: any token will do, the answer is 404.
            _, token = _pooled("pool")
        case.headers = case.headers or {}
        case.headers["Authorization"] = f"Bearer {token}"


@schemathesis.hook
def after_call(context: Any, case: schemathesis.Case, response: Any) -> None:
    """Remember the seats that creates, joins and quick matches hand out."""
    if response.status_code not in (200, 201) or not case.operation.path.startswith(
        ("/v1/games", "/v1/matches")
    ):
        return
    try:
        body = response.json()
    except ValueError:
        return
    if isinstance(body, dict) and isinstance(body.get("token"), str):
        game = body.get("game")
        if isinstance(game, dict) and isinstance(game.get("id"), str):
            with _lock:
                _seen[game["id"]] = (body["token"], str(game.get("kind")))
