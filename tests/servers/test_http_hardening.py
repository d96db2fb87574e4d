"""Hostile requests to the HTTP API (#12 item 7, #18 item 11): each answers a 4xx with a code, never a 500, and
the server keeps serving. Real uvicorn on loopback, raw sockets where httpx would refuse to send the request."""

from __future__ import annotations

import json
import socket
import time

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from servers.conftest import TOKEN

AUTH = {"Authorization": f"Bearer {TOKEN}"}


def _port(api) -> int:
    return int(api.url.rsplit(":", 1)[1])


def _answer(sock: socket.socket, answer: bytes) -> bytes:
    """The whole response: its headers and the body its Content-Length announces."""
    sock.settimeout(10)
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        head, sep, body = answer.partition(b"\r\n\r\n")
        if sep:
            length = [int(line.split(b":")[1]) for line in head.split(b"\r\n") if line.lower().startswith(b"content-length")]
            if length and len(body) >= length[0]:
                break
        try:
            more = sock.recv(65536)
        except (TimeoutError, ConnectionResetError):
            break
        if not more:
            break
        answer += more
    return answer


def test_json_nested_100000_deep_is_a_400_with_a_code(api):
    deep = b"[" * 100_000 + b"]" * 100_000
    with api.client() as c:
        for body in (deep, b'{"content": ' + deep + b"}", b'{"a":' * 50_000 + b"1" + b"}" * 50_000):
            r = c.post("/v1/memories", content=body, headers={"Content-Type": "application/json"})
            assert r.status_code == 400, r.text[:200]
            assert r.json()["error_code"] == "VALIDATION_ERROR"
            assert r.json()["details"][0]["code"] in ("TOO_DEEP", "WRONG_TYPE")
        assert c.get("/health").json()["index"]["memories"] == 0


def test_a_body_over_the_limit_is_refused_while_it_streams(api):
    """A 100 MB chunked upload: 413 after the first MiB, long before the client has sent it all."""
    sent = 0
    with socket.create_connection(("127.0.0.1", _port(api)), timeout=30) as sock:
        sock.sendall(b"POST /v1/memories HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer " + TOKEN.encode()
                     + b"\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n")
        chunk = b"x" * 65536
        framed = f"{len(chunk):x}\r\n".encode() + chunk + b"\r\n"
        sock.settimeout(0.05)
        answer = b""
        try:
            while sent < 100 * 1024 * 1024:
                sock.sendall(framed)
                sent += len(chunk)
                try:
                    answer += sock.recv(65536)
                except TimeoutError:
                    continue
                if answer:
                    break
        except (BrokenPipeError, ConnectionResetError):
            pass
        answer = _answer(sock, answer)
    assert answer.startswith(b"HTTP/1.1 413"), answer[:200]
    assert b"PAYLOAD_TOO_LARGE" in answer
    assert sent < 20 * 1024 * 1024  # refused early, not after reading the 100 MB


def test_a_declared_length_over_the_limit_is_refused_before_reading(api):
    with socket.create_connection(("127.0.0.1", _port(api)), timeout=30) as sock:
        sock.sendall(b"POST /v1/search HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer " + TOKEN.encode()
                     + b"\r\nContent-Type: application/json\r\nContent-Length: 104857600\r\n\r\n{")
        answer = _answer(sock, b"")
    assert answer.startswith(b"HTTP/1.1 413") and b"PAYLOAD_TOO_LARGE" in answer


def test_only_loopback_host_names_are_served(api):
    with api.client() as c:
        for host in ("evil.example.com", "127.0.0.1.nip.io", "evil.example.com:80"):
            r = c.get("/health", headers={"Host": host})
            assert r.status_code == 421 and r.json()["error_code"] == "INVALID_HOST", host
        for host in ("127.0.0.1", "localhost", f"localhost:{_port(api)}", "[::1]:80"):
            assert c.get("/health", headers={"Host": host}).status_code == 200, host


@pytest.mark.parametrize("body", [
    {"content": "a\ud800b"}, {"content": "x", "title": "\udfff"}, {"content": "x", "keywords": ["\ud800"]},
    {"content": "x", "category": 5}, {"content": "x", "category": ["a"]},
    {"content": "x", "expires_at": "0001-01-01T00:00:00+14:00"}, {"content": "x", "actors": "not a list"},
    {"content": "x", "salience": "high"}, [], "text", None, 5,
])
def test_bad_values_are_400s_with_a_code(api, body):
    with api.client() as c:
        raw = json.dumps(body).encode()  # lone surrogates travel as \\ud800 escapes, as any JSON client sends them
        r = c.post("/v1/memories", content=raw, headers={"Content-Type": "application/json"})
        assert r.status_code == 400, r.text
        assert r.json()["error_code"] == "VALIDATION_ERROR" and r.json()["details"][0]["code"]
        assert c.get("/health").json()["index"]["memories"] == 0


def test_unknown_routes_and_methods_answer_json_with_a_code(api):
    with api.client() as c:
        for method, path in (("GET", "/v2/nothing"), ("PUT", "/v1/search")):
            r = c.request(method, path)
            assert r.status_code in (404, 405) and r.json()["error_code"] == "NOT_FOUND"


json_values = st.recursive(st.none() | st.booleans() | st.floats() | st.integers() | st.text(),
                           lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner,
                                                                                        max_size=4), max_leaves=20)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(route=st.sampled_from(["/v1/memories", "/v1/search", "/v1/memories/batch", "/v1/memories/batch-update",
                              "/v1/consolidate"]),
       body=st.dictionaries(st.sampled_from(["content", "query", "items", "updates", "ids", "category", "scope",
                                             "limit", "salience", "expires_at", "user_id", "mode", "extra"]),
                            json_values, max_size=5))
def test_random_bodies_never_answer_500(api, route, body):
    with api.client() as c:
        r = c.post(route, content=json.dumps(body, allow_nan=True).encode(),
                   headers={"Content-Type": "application/json"})
    assert r.status_code < 500, (route, body, r.text)
    assert r.status_code in (200, 201) or r.json()["error_code"]


@pytest.mark.parametrize("salience", ["NaN", float("nan"), float("inf"), "-Infinity"])
def test_a_number_that_is_not_finite_is_refused_as_such(api, salience):
    with api.client() as c:
        r = c.post("/v1/memories", content=json.dumps({"content": "x", "salience": salience}, allow_nan=True).encode(),
                   headers={"Content-Type": "application/json"})
    assert r.status_code == 400, r.text
    assert r.json()["details"] == [{"field": "salience", "code": "OUT_OF_RANGE",
                                    "message": f"must be a finite number (got {salience!r})"}]
