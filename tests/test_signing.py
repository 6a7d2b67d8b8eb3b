"""Signed game records: the server's key, the envelope in the state and the history, the
published keys, completeness, and `tictactoe verify` refusing cut, changed or made-up
records (docs/fairness.md)."""

from __future__ import annotations

import base64
import copy
import json
import os
import random
import stat
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey
from flask import Flask
from flask.testing import FlaskClient
from support.live import Actions

from webapp.game.board import Board
from webapp.game.match import Match, ai_move, human_move, new_match
from webapp.game.rules import Rules
from webapp.game.signed import Data, check_complete
from webapp.game.verification import Mismatch, game_record
from webapp.server.app import create_app
from webapp.server.process.preflight import StartupError, preflight
from webapp.server.store.backup import backup
from webapp.server.store.restore import restore
from webapp.server.store.signing import KEY_FILE, Signer

pytestmark = pytest.mark.shared_server  # one live server, each test a new player

ROOT = Path(__file__).resolve().parent.parent
KEYS_URL = "/.well-known/tictactoe-keys.json"


def run_cli(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "webapp.cli", *args],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=60,
        check=False,
        env={**os.environ, **(env or {})},
    )


def finished_game(play: Actions, mode: str = "hard") -> dict[str, Any]:
    """The state after a whole game of ``mode`` played through the protocol."""
    assert play.new_match(mode=mode)["ok"]
    return play.play_out()


def payload(signed: dict[str, Any]) -> dict[str, Any]:
    return dict(json.loads(base64.b64decode(signed["payload"])))


def resigned(signed: dict[str, Any], record: dict[str, Any]) -> dict[str, Any]:
    """``signed`` with its payload replaced by ``record``, the signature kept."""
    data = json.dumps(record, separators=(",", ":")).encode()
    return {**signed, "payload": base64.b64encode(data).decode()}


def write(path: Path, document: object) -> Path:
    path.write_text(json.dumps(document))
    return path


@pytest.fixture
def keys_file(client: FlaskClient, tmp_path: Path) -> Path:
    """The server's published keys, saved as a verifier would download them."""
    reply = client.get(KEYS_URL)
    assert reply.status_code == 200
    return write(tmp_path / "keys.json", reply.get_json())


# --- the state, the history and the published keys --------------------------------------


def test_a_finished_game_is_served_signed_and_verifies(
    play: Actions, keys_file: Path, tmp_path: Path
) -> None:
    assert play.state["signed_record"] is None  # nothing is signed while the game goes on
    state = finished_game(play)
    signed = state["signed_record"]
    assert signed["kind"] == "tictactoe-hp-signed-game" and signed["format"] == 1
    assert payload(signed) == state["record"]
    keys = json.loads(keys_file.read_text())["keys"]
    assert [key["id"] for key in keys] == [signed["key"]] and keys[0]["current"] is True
    result = run_cli("verify", str(write(tmp_path / "game.json", signed)), "--keys", str(keys_file))
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.startswith(f"verified: signed by key {signed['key']} (a key listed in ")


def test_a_history_game_is_served_signed(play: Actions, client: FlaskClient) -> None:
    state = finished_game(play, "easy")
    game = play.emit("history")["games"][0]
    whole = play.emit("history_game", {"id": game["id"]})
    assert payload(whole["signed_record"]) == whole["game"]["record"] == state["record"]
    assert whole["signed_record"]["signature"] == state["signed_record"]["signature"]
    download = client.get("/history/games.json").get_json()
    assert payload(download["games"][0]["signed_record"]) == state["record"]
    shared = client.get(f"/g/{game['id']}").get_data(as_text=True)
    assert state["signed_record"]["signature"] in shared


def test_the_key_is_made_once_in_the_data_dir_private(tmp_path: Path) -> None:
    first = create_app({"TESTING": True, "DATA_DIR": str(tmp_path)}).extensions["signing"]
    again = create_app({"TESTING": True, "DATA_DIR": str(tmp_path)}).extensions["signing"]
    assert first.key == again.key
    assert stat.S_IMODE((tmp_path / KEY_FILE).stat().st_mode) == 0o600


def test_the_key_from_the_environment_is_the_same_on_every_host(tmp_path: Path) -> None:
    key = "ab" * 32
    hosts = [
        create_app({"TESTING": True, "DATA_DIR": str(tmp_path / name), "SIGNING_KEY": key})
        for name in ("one", "two")
    ]
    assert hosts[0].extensions["signing"].key == hosts[1].extensions["signing"].key
    assert not (tmp_path / "one" / KEY_FILE).exists()  # nothing written beside it


@pytest.mark.parametrize(
    ("name", "value"), [("SIGNING_KEY", "not-hex"), ("SIGNING_KEY_FALLBACKS", "ab" * 31)]
)
def test_a_bad_key_setting_stops_the_server_with_its_name(
    tmp_path: Path, name: str, value: str
) -> None:
    settings: dict[str, Any] = {
        "WORKERS": 1,
        "REDIS_URL": None,
        "DATA_DIR": str(tmp_path),
        "SECRET_KEY": "x" * 40,
        "SIGNING_KEY": None,
        "SIGNING_KEY_FALLBACKS": None,
        "HOST": "127.0.0.1",
        "PORT": 1,
        name: value,
    }
    with pytest.raises(StartupError) as caught:
        preflight(settings)
    assert f"TICTACTOE_{name}" in str(caught.value) and "64 hex digits" in str(caught.value)


def test_records_signed_before_a_rotation_still_verify(
    app: Flask, play: Actions, tmp_path: Path
) -> None:
    signed = finished_game(play)["signed_record"]
    old = app.extensions["signing"]
    rotated = create_app(
        {
            "TESTING": True,
            "DATA_DIR": str(tmp_path / "new"),
            "SIGNING_KEY_FALLBACKS": old.public.hex(),
        }
    )
    published = rotated.test_client().get(KEYS_URL).get_json()["keys"]
    assert [key["current"] for key in published] == [True, False]
    assert published[1]["id"] == old.key
    document = {"kind": "tictactoe-hp-keys", "format": 1, "keys": published}
    keys = write(tmp_path / "keys.json", document)
    result = run_cli("verify", str(write(tmp_path / "g.json", signed)), "--keys", str(keys))
    assert result.returncode == 0 and f"signed by key {old.key}" in result.stdout


def test_backups_keep_the_signing_key(app: Flask, tmp_path: Path) -> None:
    data_dir = Path(app.config["DATA_DIR"])
    written = backup(data_dir, tmp_path / "backup")
    assert tmp_path / "backup" / KEY_FILE in written
    fresh = tmp_path / "restored"
    restore(tmp_path / "backup", fresh)
    again = create_app({"TESTING": True, "DATA_DIR": str(fresh)}).extensions["signing"]
    assert again.key == app.extensions["signing"].key


def test_keys_command_prints_the_data_dir_key(app: Flask) -> None:
    result = run_cli("keys", "--data-dir", app.config["DATA_DIR"])
    signer = app.extensions["signing"]
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == [signer.key, signer.public.hex(), "current"]


def test_verify_help_says_what_a_signature_proves_and_what_not() -> None:
    text = " ".join(run_cli("verify", "--help").stdout.split())
    assert "issued exactly this record: its moves, its mode and rules" in text
    assert "did not try many seeds before committing" in text
    assert "that the key was never leaked" in text and "who the player was" in text


# --- the attacks on 0.4.0 ---------------------------------------------------------------


def cut_moves(record: dict[str, Any]) -> None:
    """The last moves cut off, the record left as a game still playing, the seed kept."""
    record["moves"] = record["moves"][:2]
    record["status"] = "playing"


def check(tmp_path: Path, document: object, *args: str) -> subprocess.CompletedProcess[str]:
    return run_cli("verify", str(write(tmp_path / "record.json", document)), *args)


def test_a_record_with_moves_cut_off_fails(app: Flask, play: Actions, tmp_path: Path) -> None:
    # Found on 0.4.0: verified, though the game shown was not the game played.
    record = finished_game(play)["record"]
    cut_moves(record)
    result = check(tmp_path, record)
    assert result.returncode == 1, result.stdout
    assert result.stdout.startswith("not verified: the game is not over (status 'playing')")
    assert "moves are missing" in result.stdout
    signed = finished_game(play)["signed_record"]
    record = payload(signed)
    cut_moves(record)
    result = check(tmp_path, resigned(signed, record), "--data-dir", app.config["DATA_DIR"])
    assert result.returncode == 1
    assert "the signature does not match the record's bytes" in result.stdout


def test_a_record_whose_mode_was_changed_fails(
    play: Actions, keys_file: Path, tmp_path: Path
) -> None:
    signed = finished_game(play, "hard")["signed_record"]
    record = payload(signed)
    record["mode"] = "medium"
    for move in record["moves"]:
        if move["by"] == "ai":
            move["decision"] = "best_odds"
    result = check(tmp_path, resigned(signed, record), "--keys", str(keys_file))
    assert result.returncode == 1
    assert result.stdout.startswith("not verified: the signature does not match the record's")
    stripped = check(tmp_path, record)  # the signature dropped: it proves nothing then
    assert stripped.returncode != 0 and not stripped.stdout.startswith("verified")


def winning_cell(board: Board) -> int:
    """A cell that wins at once for the side to move, else the first empty one."""
    wins = [cell for cell in board.legal_moves() if board.apply_move(cell).outcome()]
    return (wins or board.legal_moves())[0]


def local_record(match: Match, choose: Any = lambda board: board.legal_moves()[0]) -> Data:
    """The record of ``match``'s game played to its end here, the human playing ``choose``."""
    while match.game.turn is not None:
        if match.game.turn == "ai":
            match = ai_move(match)
        else:
            match = human_move(match, choose(match.game.board))
    return game_record(match)


def made_up_record() -> Data:
    """A game played on the maker's own machine with their own seed: the AI at 1 HP, and a
    human win."""
    for seed in range(100):  # the maker tries their own seeds until the human wins
        match = new_match(random.Random(seed), rules=Rules(start_ai_hp=1), client_seed="mine")
        record = local_record(match, winning_cell)
        if record["status"] == "human_won":
            return record
    raise AssertionError("no human win in 100 seeds")


def test_a_made_up_record_fails_or_says_it_is_unsigned(keys_file: Path, tmp_path: Path) -> None:
    record = made_up_record()
    assert record["ai_hp"] == 1
    forged = Signer(os.urandom(32)).sign(record)
    result = check(tmp_path, forged, "--keys", str(keys_file))
    assert result.returncode == 1
    assert f"signed by key {forged['key']}, which is not one of the public keys" in result.stdout
    published = json.loads(keys_file.read_text())["keys"][0]["id"]
    posing = {**forged, "key": published}  # the server's key named, another key's signature
    result = check(tmp_path, posing, "--keys", str(keys_file))
    assert result.returncode == 1 and "the signature does not match" in result.stdout
    bare = check(tmp_path, record, "--keys", str(keys_file))
    assert bare.returncode == 3
    assert bare.stdout.startswith("dice verified, UNSIGNED: nothing shows which server")


def test_an_unsigned_record_from_0_4_0_still_verifies_its_dice(tmp_path: Path) -> None:
    record = local_record(new_match(random.Random(3), mode="easy", client_seed="old"))
    result = check(tmp_path, record)
    assert result.returncode == 3
    assert "dice verified, UNSIGNED" in result.stdout and "game 1, " in result.stdout


@pytest.mark.parametrize(
    ("tamper", "named"),
    [
        (lambda r: r.update(status="playing"), "the game is not over"),
        (lambda r: r.update(moves=r["moves"][:-1]), "the moves end with the game 'playing'"),
        (lambda r: r["moves"].append(dict(r["moves"][0])), "comes after the game was over"),
        (lambda r: r.update(mode="blitz"), "is not a mode"),
        (lambda r: r["moves"][0].update(by="nobody"), "but it was the"),
    ],
)
def test_an_incomplete_record_is_named(tamper: Any, named: str) -> None:
    record = local_record(new_match(random.Random(1), mode="easy", client_seed="c"))
    check_complete(copy.deepcopy(record))
    tamper(record)
    with pytest.raises(Mismatch) as caught:
        check_complete(record)
    assert named in str(caught.value)


def test_verify_takes_the_keys_from_the_servers_url(server: Any, tmp_path: Path) -> None:
    own = Signer(bytes.fromhex((server.data_dir / KEY_FILE).read_text()))
    record = local_record(new_match(random.Random(4), mode="easy", client_seed="url"))
    url = server.url + KEYS_URL
    result = check(tmp_path, own.sign(record), "--keys", url)
    assert result.returncode == 0, result.stdout + result.stderr
    assert f"signed by key {own.key} (a key listed in {url})" in result.stdout
    stranger = Signer(os.urandom(32)).sign(record)
    assert check(tmp_path, stranger, "--keys", url).returncode == 1
    refused = check(tmp_path, stranger, "--keys", server.url + "/nothing.json")
    assert refused.returncode == 2 and "cannot read the keys" in refused.stderr


def test_readme_gives_verify_the_sites_keys() -> None:
    # Away from the server's data dir, verify needs the site's keys: README names them.
    readme = (Path(__file__).resolve().parent.parent / "README.md").read_text()
    assert f"tictactoe verify GAME.json --keys https://your.site{KEYS_URL}" in readme


def test_the_signed_bytes_are_the_records_compact_json_in_utf8() -> None:
    signer = Signer(bytes(32))
    record = {"kind": "k", "name": "Zoë", "chance": 0.634, "moves": [{"cell": 4}], "x": None}
    envelope = signer.sign(record)
    payload = base64.b64decode(envelope["payload"])
    assert payload == json.dumps(record, separators=(",", ":"), ensure_ascii=False).encode()
    signature = base64.b64decode(envelope["signature"])
    Ed25519PublicKey.from_public_bytes(signer.public).verify(signature, payload)  # raises if not
