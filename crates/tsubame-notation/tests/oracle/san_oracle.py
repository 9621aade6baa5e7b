#!/usr/bin/env python3
"""Fairy-Stockfish SAN (pyffish, variant "torishogi") of every legal move, for san_pyffish.rs.

Reads one FEN per line; writes for each the SAN of every legal move, sorted and separated by
spaces, on one line. Writes "unavailable: <reason>" and exits when pyffish cannot be imported.
"""

import sys

try:
    import pyffish
except ImportError as error:
    print(f"unavailable: {error}", flush=True)
    sys.exit(0)

for line in sys.stdin:
    fen = line.strip()
    if not fen:
        continue
    moves = pyffish.legal_moves("torishogi", fen, [])
    sans = sorted(
        pyffish.get_san("torishogi", fen, move, False, pyffish.NOTATION_SAN) for move in moves
    )
    print(" ".join(sans), flush=True)
