#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Probe a qpistat exporter: probe.py HOST PORT CHECK [ARG].

CHECK is one of
  bad        malformed, oversized, unknown-path and wrong-method requests,
             Host and request forms of RFC 9112, and clients that hang up
             early; each answered as it should be
  slow       a client that sends half a request and stalls is dropped
             at the exporter's 2 s request head deadline, while others get
             served
  parallel   8 concurrent scrapers, 5 scrapes each; every answer complete,
             and containing ARG (an exact sample line) if given
  cap        70 stalled clients, more than the 64 connections it keeps:
             a scrape still gets through (it pushes out the oldest), and
             every stalled one is closed
Prints one "# " line per problem; exit status 0 when there were none.
"""
import random
import socket
import sys
import threading
import time

HOST, PORT, CHECK = sys.argv[1], int(sys.argv[2]), sys.argv[3]
ARG = sys.argv[4] if len(sys.argv) > 4 else None
problems = []


def say(msg):
    problems.append(msg)
    print("# " + msg, flush=True)


def exchange(data, timeout=20.0):
    """Send data, read to EOF: (status code, headers, body) or None."""
    s = socket.create_connection((HOST, PORT), timeout=timeout)
    try:
        if data:
            s.sendall(data)
        buf = b""
        while True:
            chunk = s.recv(65536)
            if not chunk:
                break
            buf += chunk
    finally:
        s.close()
    head, sep, body = buf.partition(b"\r\n\r\n")
    if not sep:
        return None
    lines = head.decode("latin-1").split("\r\n")
    parts = lines[0].split(" ", 2)
    headers = {}
    for line in lines[1:]:
        k, _, v = line.partition(":")
        headers[k.strip().lower()] = v.strip()
    return int(parts[1]), headers, body


def expect(name, data, status, allow=None, head=False):
    try:
        r = exchange(data)
    except OSError as e:
        say(f"{name}: {e}")
        return
    if r is None:
        say(f"{name}: no HTTP answer")
        return
    got, headers, body = r
    if got != status:
        say(f"{name}: status {got}, want {status}")
    if not head and int(headers.get("content-length", "-1")) != len(body):
        say(f"{name}: Content-Length {headers.get('content-length')}, body {len(body)} bytes")
    if allow is not None and headers.get("allow") != allow:
        say(f"{name}: Allow '{headers.get('allow')}', want '{allow}'")


def hang_up(name, data):
    try:
        s = socket.create_connection((HOST, PORT), timeout=10)
        if data:
            s.sendall(data)
        s.close()
    except OSError as e:
        say(f"{name}: {e}")


def bad():
    rnd = random.Random(14)
    junk = bytes(rnd.randrange(256) for _ in range(600))
    expect("unknown path", b"GET /nope HTTP/1.1\r\nHost: localhost\r\n\r\n", 404)
    expect("path with a prefix", b"GET /metricsx HTTP/1.1\r\nHost: localhost\r\n\r\n", 404)
    expect("POST", b"POST /metrics HTTP/1.1\r\nHost: localhost\r\nContent-Length: 5\r\n\r\nhello", 405, "GET, HEAD")
    expect("DELETE", b"DELETE /metrics HTTP/1.1\r\nHost: localhost\r\n\r\n", 405, "GET, HEAD")
    expect("no version", b"GET /metrics\r\n\r\n", 400)
    expect("HTTP/2.0", b"GET /metrics HTTP/2.0\r\n\r\n", 400)
    expect("HTTP/1.1 without Host", b"GET /metrics HTTP/1.1\r\n\r\n", 400)
    expect("two Host headers", b"GET /metrics HTTP/1.1\r\nHost: localhost\r\nHost: localhost\r\n\r\n", 400)
    expect("absolute target", b"GET http://localhost/metrics HTTP/1.1\r\nHost: localhost\r\n\r\n", 200)
    expect("leading CRLF", b"\r\nGET /metrics HTTP/1.1\r\nHost: localhost\r\n\r\n", 200)
    expect("header without colon", b"GET /metrics HTTP/1.1\r\nAccept text/plain\r\n\r\n", 400)
    expect("folded header", b"GET /metrics HTTP/1.1\r\nA: b\r\n c\r\n\r\n", 400)
    expect("NUL byte", b"GET /metrics HTTP/1.1\r\nX: a\0b\r\n\r\n", 400)
    expect("binary junk", junk + b"\r\n\r\n", 400)
    expect("8 KiB header", b"GET /metrics HTTP/1.1\r\nX: " + b"a" * 8192 + b"\r\n\r\n", 431)
    expect("64 KiB header", b"GET /metrics HTTP/1.1\r\nX: " + b"a" * (64 << 10), 431)
    for i in range(20):
        hang_up(f"hang up {i}", b"GET /met" if i % 2 else b"")
    expect("HEAD", b"HEAD /metrics HTTP/1.1\r\nHost: localhost\r\n\r\n", 200, head=True)
    r = exchange(b"HEAD /metrics HTTP/1.0\r\n\r\n")
    if r is None or r[2] != b"" or int(r[1].get("content-length", "0")) == 0:
        say("HEAD: want a Content-Length and no body")
    expect("root", b"GET / HTTP/1.0\r\n\r\n", 200)
    expect("query string", b"GET /metrics?x=1 HTTP/1.1\r\nHost: localhost\r\n\r\n", 200)


def scrape(results, i, accept=None):
    req = b"GET /metrics HTTP/1.1\r\nHost: localhost\r\n"
    if accept:
        req += b"Accept: " + accept.encode() + b"\r\n"
    try:
        r = exchange(req + b"\r\n")
    except OSError as e:
        results[i] = str(e)
        return
    if r is None:
        results[i] = "no HTTP answer"
    elif r[0] != 200:
        results[i] = f"status {r[0]}"
    elif int(r[1].get("content-length", "-1")) != len(r[2]):
        results[i] = "short body"
    elif ARG and ARG.encode() not in r[2].split(b"\n"):
        results[i] = f"no line '{ARG}'"
    else:
        results[i] = "ok"


def parallel():
    results = [None] * 40
    threads = []
    for t in range(8):
        def run(t=t):
            for k in range(5):
                scrape(results, 5 * t + k)
        threads.append(threading.Thread(target=run))
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for i, r in enumerate(results):
        if r != "ok":
            say(f"scraper {i // 5} scrape {i % 5}: {r}")


def slow():
    s = socket.create_connection((HOST, PORT), timeout=30)
    s.sendall(b"GET /met")
    t0 = time.monotonic()
    results = [None]
    scrape(results, 0)
    if results[0] != "ok":
        say(f"scrape beside a stalled client: {results[0]}")
    try:
        data = s.recv(100)
    except OSError as e:
        data = str(e).encode()
    waited = time.monotonic() - t0
    s.close()
    if data != b"":
        say(f"stalled client: got {data!r}, want the connection closed")
    if not 1 <= waited <= 4.5:
        say(f"stalled client dropped after {waited:.1f} s, want about 2 s")


def cap():
    stalled = []
    for _ in range(70):
        s = socket.create_connection((HOST, PORT), timeout=30)
        s.sendall(b"GET /metrics HTTP/1.1\r\n")
        stalled.append(s)
    t0 = time.monotonic()
    results = [None]
    scrape(results, 0)
    if results[0] != "ok":
        say(f"scrape beside 70 stalled clients: {results[0]}")
    waited = time.monotonic() - t0
    if waited > 15:
        say(f"scrape beside 70 stalled clients took {waited:.1f} s")
    for i, s in enumerate(stalled):
        try:
            data = s.recv(100)
        except OSError as e:
            data = str(e).encode()
        if data != b"":
            say(f"stalled client {i}: got {data!r}, want the connection closed")
        s.close()


{"bad": bad, "slow": slow, "parallel": parallel, "cap": cap}[CHECK]()
sys.exit(1 if problems else 0)
