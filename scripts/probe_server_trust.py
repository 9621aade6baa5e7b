#!/usr/bin/env python3
"""The trust probes of scripts/probe-server-limits (sessions, concurrency, mate): what a
player or an attacker sees, printed as figures. Standard library only; a small WebSocket
client is written out here. Run through scripts/probe-server-limits, which starts the server.
"""

import base64
import json
import os
import random
import socket
import sqlite3
import sys
import threading
import time
import urllib.error
import urllib.request

MODE, BASE, DATABASE = sys.argv[1], sys.argv[2], sys.argv[3]
HOST, PORT = BASE[len("http://"):].split(":")
PORT = int(PORT)
PASSWORD = "a long enough password"


def call(method, path, body=None, cookie=None, address=None):
    """(status, JSON answer, Set-Cookie pair) of one request from the site's own page."""
    headers = {"content-type": "application/json", "sec-fetch-site": "same-origin"}
    if cookie:
        headers["cookie"] = cookie
    if address:
        headers["x-forwarded-for"] = address
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(BASE + path, data=data, method=method, headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=60) as answer:
            status, text, set_cookie = answer.status, answer.read(), answer.headers.get("set-cookie")
    except urllib.error.HTTPError as e:
        status, text, set_cookie = e.code, e.read(), e.headers.get("set-cookie")
    try:
        value = json.loads(text or b"null")
    except ValueError:
        value = None
    pair = set_cookie.split(";")[0] if set_cookie else None
    return status, value, pair


def sign_up(name, address):
    status, answer, cookie = call("POST", "/api/account/signup", {"username": name, "password": PASSWORD}, address=address)
    assert status == 201, (status, answer)
    return cookie


def log_in(name):
    status, answer, cookie = call("POST", "/api/account/login", {"username": name, "password": PASSWORD})
    assert status == 200, (status, answer)
    return cookie


class WebSocket:
    """A client WebSocket with a cookie: text frames out (masked), frames in."""

    def __init__(self, path, cookie):
        self.sock = socket.create_connection((HOST, PORT))
        key = base64.b64encode(os.urandom(16)).decode()
        self.sock.sendall((f"GET {path} HTTP/1.1\r\nHost: {HOST}:{PORT}\r\nUpgrade: websocket\r\n"
                           f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n"
                           f"Origin: {BASE}\r\nCookie: {cookie}\r\n\r\n").encode())
        head = b""
        while b"\r\n\r\n" not in head:
            head += self.sock.recv(1)
        assert b" 101 " in head.split(b"\r\n")[0], head
        self.buffer = b""

    def send(self, message):
        data = json.dumps(message).encode()
        mask = os.urandom(4)
        length = len(data)
        header = bytes([0x81]) + (bytes([0x80 | length]) if length < 126 else bytes([0x80 | 126]) + length.to_bytes(2, "big"))
        try:
            self.sock.sendall(header + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(data)))
        except OSError:
            pass

    def _read(self, count, until):
        while len(self.buffer) < count:
            self.sock.settimeout(max(0.001, until - time.time()))
            chunk = self.sock.recv(65536)
            if not chunk:
                raise EOFError
            self.buffer += chunk
        taken, self.buffer = self.buffer[:count], self.buffer[count:]
        return taken

    def frame(self, until):
        """(opcode, payload), or None past `until`; EOFError when the connection ended."""
        try:
            first, second = self._read(2, until)
            length = second & 0x7F
            if length == 126:
                length = int.from_bytes(self._read(2, until), "big")
            elif length == 127:
                length = int.from_bytes(self._read(8, until), "big")
            return first & 0x0F, self._read(length, until)
        except (socket.timeout, TimeoutError):
            return None

    def watch(self, seconds):
        """Reads for `seconds`: the close code and when it came (or None), and the text
        messages before it."""
        started, until, texts = time.time(), time.time() + seconds, []
        while time.time() < until:
            try:
                frame = self.frame(until)
            except (EOFError, OSError):
                return ("cut", time.time() - started), texts
            if frame is None:
                break
            opcode, payload = frame
            if opcode == 8:
                code = int.from_bytes(payload[:2], "big") if len(payload) >= 2 else None
                return (code, time.time() - started), texts
            if opcode == 1:
                texts.append(json.loads(payload))
        return None, texts


def game_between(first_cookie, second_cookie):
    status, created, _ = call("POST", "/api/games", {"variant": "tori", "opponent": "human",
                              "clock": {"kind": "byoyomi", "main_ms": 600000, "periods": 1, "period_ms": 30000}}, first_cookie)
    assert status == 201, created
    status, joined, _ = call("POST", f"/api/games/{created['game_id']}/join", {"invite": created["invite"]}, second_cookie)
    assert status == 200, joined
    return created["game_id"]


def stream_lasts(cookie, seconds):
    """Opens /api/challenges/events with the cookie: a function that says, after an end,
    how long the stream went on (None: it did not end within `seconds`)."""
    sock = socket.create_connection((HOST, PORT))
    sock.sendall((f"GET /api/challenges/events HTTP/1.1\r\nHost: {HOST}:{PORT}\r\nCookie: {cookie}\r\n"
                  f"Sec-Fetch-Site: same-origin\r\n\r\n").encode())
    sock.settimeout(5)
    sock.recv(65536)

    def ended_after(since):
        until = since + seconds
        while time.time() < until:
            sock.settimeout(max(0.001, until - time.time()))
            try:
                data = sock.recv(65536)
            except (socket.timeout, TimeoutError):
                break
            except OSError:
                return time.time() - since
            if not data or data.endswith(b"0\r\n\r\n"):
                return time.time() - since
        return None
    return ended_after


def sessions():
    grant_admin = lambda name: sqlite3.connect(DATABASE).execute(
        "UPDATE accounts SET role = 'admin' WHERE name_key = ?", (name.lower(),)).connection.commit()
    admin_cookie = sign_up("probe_admin", "10.5.0.1")
    grant_admin("probe_admin")
    admin_cookie = log_in("probe_admin")
    for n, ending in enumerate(["log out here", "log out everywhere", "password change", "closed by an administrator", "deleted"]):
        alice, bob = f"alice{n}", f"bob{n}"
        laptop = sign_up(alice, f"10.5.1.{n + 1}")
        phone = log_in(alice)
        bob_cookie = sign_up(bob, f"10.5.2.{n + 1}")
        game = game_between(laptop, bob_cookie)
        if ending == "deleted":
            call("POST", f"/api/games/{game}/resign", {}, bob_cookie)
        socket_ = WebSocket(f"/api/games/{game}/ws", laptop)
        socket_.watch(0.3)
        stream_ended_after = stream_lasts(laptop, 3)
        if ending == "log out here":
            call("POST", "/api/account/logout", {}, laptop)
        elif ending == "log out everywhere":
            call("POST", "/api/account/logout-everywhere", {}, phone)
        elif ending == "password change":
            call("POST", "/api/account/password", {"current_password": PASSWORD, "new_password": PASSWORD + "!"}, phone)
        elif ending == "closed by an administrator":
            call("POST", f"/api/admin/players/{alice}/close", {}, admin_cookie)
        else:
            call("POST", "/api/account/delete", {"password": PASSWORD}, phone)
        ended = time.time()
        late = {"type": "rematch", "action": "offer", "id": "late"} if ending == "deleted" else {"type": "move", "move": "3d3c", "id": "late"}
        socket_.send(late)
        socket_.send({"type": "chat", "text": "still here", "id": "late-chat"})
        close, texts = socket_.watch(3)
        acks = [t["id"] for t in texts if t.get("type") == "ack"]
        socket_text = f"closed ({close[0]}) after {close[1] * 1000:.0f} ms" if close else "still open after 3 s"
        stream = stream_ended_after(ended)
        stream_text = f"ended after {stream * 1000:.0f} ms" if stream is not None else "still streaming after 3 s"
        print(f"{ending:>27}: game socket {socket_text}, messages sent after it acknowledged: {acks or 'none'}; "
              f"challenge stream {stream_text}")


def concurrency():
    alice = sign_up("racer", "10.6.0.1")
    for n in range(13):
        sign_up(f"target{n}", f"10.6.1.{n + 1}")

    def at_once(requests):
        statuses, barrier, lock = [], threading.Barrier(len(requests)), threading.Lock()

        def one(path, body):
            barrier.wait()
            status, _, _ = call("POST", path, body, alice)
            with lock:
                statuses.append(status)
        threads = [threading.Thread(target=one, args=r) for r in requests]
        [t.start() for t in threads]
        [t.join() for t in threads]
        return sorted(statuses)
    count = lambda statuses, status: sum(1 for s in statuses if s == status)
    one_pair = at_once([("/api/players/target0/challenge", {"variant": "tori"})] * 8)
    print(f"8 challenges to one player at once (limit 1 a pair): {count(one_pair, 201)} made, {count(one_pair, 409)} refused")
    many = at_once([(f"/api/players/target{n}/challenge", {"variant": "tori"}) for n in range(1, 13)])
    print(f"12 challenges to 12 players at once (limit 5 waiting, 1 already): {count(many, 201)} made, {count(many, 409)} refused")
    reports = at_once([(f"/api/players/target{n}/report", {"reason": "abuse", "text": "rude"}) for n in range(12)])
    print(f"12 reports at once (limit 10 open): {count(reports, 201)} filed, {count(reports, 409)} refused")


def tenjiku_record(plies):
    """A Tenjiku game of `plies` random legal moves still going, played on the server (both
    seats); games that end sooner are played again with the next seed."""
    for seed in range(7, 40):
        rnd = random.Random(seed)
        status, created, _ = call("POST", "/api/games", {"variant": "tenjiku", "opponent": "human"})
        game = created["game_id"]
        status, joined, _ = call("POST", f"/api/games/{game}/join", {"invite": created["invite"]})
        tokens = {"sente": created["token"], "gote": joined["token"]}
        _, view, _ = call("GET", f"/api/games/{game}")
        moves = []
        while len(moves) < plies and view.get("status") == "playing":
            usi = rnd.choice(view["legal_moves"])
            status, answer, _ = call("POST", f"/api/games/{game}/moves", {"token": tokens[view["side_to_move"]], "move": usi})
            if status == 200:
                moves.append(usi)
                view = answer
        if len(moves) == plies and view.get("status") == "playing":
            return moves
    raise SystemExit("no random Tenjiku game lasted long enough")


def mate():
    moves = tenjiku_record(167)
    request = {"variant": "tenjiku", "moves": moves, "max_moves": 31, "movetime_ms": 1500}
    slowest, stop = [0.0], threading.Event()

    def probe():
        while not stop.is_set():
            started = time.time()
            urllib.request.urlopen(BASE + "/healthz").read()
            slowest[0] = max(slowest[0], time.time() - started)
            time.sleep(0.02)
    prober = threading.Thread(target=probe)
    prober.start()
    answers, lock, barrier = [], threading.Lock(), threading.Barrier(6)

    def ask():
        barrier.wait()
        started = time.time()
        status, _, _ = call("POST", "/api/mate", request)
        with lock:
            answers.append((status, time.time() - started))
    threads = [threading.Thread(target=ask) for _ in range(6)]
    [t.start() for t in threads]
    [t.join() for t in threads]
    stop.set()
    prober.join()
    answers.sort()
    print(f"6 concurrent mate searches of a {len(moves)}-ply Tenjiku game: "
          + ", ".join(f"{status} in {seconds:.2f} s" for status, seconds in answers)
          + f"; slowest /healthz meanwhile {slowest[0] * 1000:.0f} ms")
    for asked in (10, 100):
        started = time.time()
        status, reply, _ = call("POST", "/api/mate", dict(request, movetime_ms=asked))
        print(f"mate search asked for {asked} ms: {status}, the search {reply.get('time_ms') if reply else '?'} ms, "
              f"the request {(time.time() - started) * 1000:.0f} ms")


{"sessions": sessions, "concurrency": concurrency, "mate": mate}[MODE]()
