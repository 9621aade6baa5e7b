#!/usr/bin/env python3
"""Fairy-Stockfish's Tori shogi rules (pyffish, variant "torishogi") for pyffish_differential.rs.

Speaks JSON lines. The first line written is {"ready": true, "version": [0, 0, 90]}, or
{"error": "..."} (then the process exits) when pyffish cannot be imported. Each request line

    {"fen": "<FSF FEN>", "moves": ["e4e5", "S@d6", ...], "ask": ["legal", "fen", ...]}

is answered by one line holding one key per question asked:

    legal      pyffish.legal_moves         -> list of FSF UCI moves
    fen        pyffish.get_fen             -> FEN after the moves
    san        pyffish.get_san_moves       -> one SAN per move (rejects any illegal move)
    result     pyffish.game_result         -> int, only meaningful when there is no legal move
    immediate  pyffish.is_immediate_game_end -> [bool, int]
    optional   pyffish.is_optional_game_end  -> [bool, int]
    check      pyffish.gives_check         -> bool: the side to move is in check

or by {"error": "..."} when pyffish rejects the request. Values are from the point of view of the
side to move after the moves.
"""

import json
import os
import sys

VARIANT = "torishogi"


def open_protocol_stream():
    """Keeps the protocol on the original stdout and sends everything else written to fd 1
    (Fairy-Stockfish's C++ code may print) to stderr, so stray output cannot break a reply."""
    protocol = os.fdopen(os.dup(sys.stdout.fileno()), "w", encoding="utf-8")
    sys.stdout.flush()
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())
    return protocol


def describe(error):
    # pyffish reports a bad move list as a SystemError whose cause names the move.
    text = f"{type(error).__name__}: {error}"
    if error.__cause__ is not None:
        text += f" ({type(error.__cause__).__name__}: {error.__cause__})"
    return text


def answer(sf, request):
    fen = request["fen"]
    moves = request.get("moves", [])
    if not isinstance(fen, str) or not isinstance(moves, list):
        raise ValueError("fen must be a string and moves a list")
    calls = {
        "legal": lambda: sf.legal_moves(VARIANT, fen, moves),
        "fen": lambda: sf.get_fen(VARIANT, fen, moves),
        "san": lambda: sf.get_san_moves(VARIANT, fen, moves),
        "result": lambda: sf.game_result(VARIANT, fen, moves),
        "immediate": lambda: list(sf.is_immediate_game_end(VARIANT, fen, moves)),
        "optional": lambda: list(sf.is_optional_game_end(VARIANT, fen, moves)),
        "check": lambda: sf.gives_check(VARIANT, fen, moves),
    }
    reply = {}
    for question in request.get("ask", []):
        if question not in calls:
            raise ValueError(f"unknown question {question!r}")
        reply[question] = calls[question]()
    return reply


def main():
    out = open_protocol_stream()

    def send(message):
        out.write(json.dumps(message) + "\n")
        out.flush()

    try:
        import pyffish
    except ImportError as error:
        send({"error": f"cannot import pyffish ({error}); run scripts/install-test-deps"})
        return 1
    send({"ready": True, "version": list(pyffish.version())})

    while True:
        line = sys.stdin.readline()
        if not line:
            return 0
        if not line.strip():
            continue
        try:
            send(answer(pyffish, json.loads(line)))
        except Exception as error:  # one bad request must not end the session
            send({"error": describe(error)})


if __name__ == "__main__":
    sys.exit(main())
