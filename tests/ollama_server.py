"""A real HTTP server on 127.0.0.1 that speaks Ollama's API as the official ``ollama`` client uses it.

Vectors are real: they come from the bundled all-MiniLM-L6-v2 model (384 dimensions). Each test can make the
server slow, drop models, cut vectors short, stop it (the port is then closed) and start it again on the same
port, and can read back every text it was asked to embed.
"""

from __future__ import annotations

import json
import socket
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

VERSION = "0.12.6"


def full_name(model: str) -> str:
    """Ollama's own rule: a model without a tag means ``:latest``."""
    return model if ":" in model else model + ":latest"


class OllamaServer:
    """Start with ``start()``; ``url`` is the host to give to the client (``OLLAMA_HOST`` or the config)."""

    def __init__(self, embedder, models: tuple[str, ...] = ("nomic-embed-text",)):
        self.embedder = embedder  # anything with embed_documents(texts) -> list[list[float]]
        self.models: set[str] = {full_name(m) for m in models}
        self.delay_s = 0.0  # every answer waits this long (a slow or overloaded server)
        self.dim: int | None = None  # cut vectors to this many dimensions (a model that changed under us)
        self.fail: tuple[int, str] | None = None  # /api/embed answers (status, error), e.g. a crashed runner
        self.fail_after: int | None = None  # with ``fail``: this many /api/embed requests succeed first
        self.nan = False  # every vector starts with NaN (a broken runner, a model served in float16 overflowing)
        self.hang = False  # /api/embed requests are accepted and never answered until stop() (a stuck runner)
        self.held = 0  # /api/embed requests being held by ``hang`` right now
        self.embed_inputs: list[list[str]] = []  # one entry per /api/embed request, the texts as received
        self.requests: list[tuple[str, str]] = []  # (method, path) of every request
        self.port = 0
        self._httpd: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()  # the model is used from the server's threads one call at a time
        self._lock_held = threading.Lock()
        self._stopping = threading.Event()
        self._connections: set[socket.socket] = set()  # open keep-alive connections, closed on stop()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def running(self) -> bool:
        return self._httpd is not None

    @property
    def embedded_texts(self) -> list[str]:
        return [t for batch in self.embed_inputs for t in batch]

    def start(self) -> OllamaServer:
        """Listen on the same port as before (or a free one the first time)."""
        if self._httpd is not None:
            return self
        self._stopping.clear()
        self._httpd = ThreadingHTTPServer(("127.0.0.1", self.port), _handler_for(self))
        self._httpd.daemon_threads = True
        self.port = self._httpd.server_address[1]
        self._thread = threading.Thread(target=self._httpd.serve_forever, name="ollama-test-server", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        """Close the port: clients then get 'connection refused', as with Ollama not running."""
        if self._httpd is None:
            return
        self._stopping.set()  # wake handlers sleeping on a delay
        self._httpd.shutdown()
        for conn in list(self._connections):  # a stopped Ollama keeps no connection open either
            try:
                conn.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
        self._httpd.server_close()
        assert self._thread is not None
        self._thread.join(timeout=5)
        self._httpd = None

    def reset_log(self) -> None:
        self.embed_inputs.clear()
        self.requests.clear()

    # -- the API --------------------------------------------------------------------------------------

    def _answer(self, method: str, path: str, body: dict[str, Any] | None) -> tuple[int, dict[str, Any]]:
        self.requests.append((method, path))
        if self.delay_s and self._stopping.wait(self.delay_s):
            return 503, {"error": "server shutting down"}
        if self.hang and path == "/api/embed":
            with self._lock_held:
                self.held += 1
            try:
                self._stopping.wait()
            finally:
                with self._lock_held:
                    self.held -= 1
            return 503, {"error": "server shutting down"}
        if method == "GET" and path == "/api/version":
            return 200, {"version": VERSION}
        if method == "GET" and path == "/api/tags":
            return 200, {"models": [_model_entry(m) for m in sorted(self.models)]}
        if method == "POST" and path == "/api/embed":
            return self._embed(body or {})
        return 404, {"error": f"{method} {path} not found"}

    def _embed(self, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        model = str(body.get("model") or "")
        if not model:
            return 400, {"error": "model is required"}
        if full_name(model) not in self.models:
            return 404, {"error": f'model "{model}" not found, try pulling it first'}
        if self.fail is not None and (self.fail_after is None or len(self.embed_inputs) >= self.fail_after):
            return self.fail[0], {"error": self.fail[1]}
        texts = body.get("input", "")
        texts = [texts] if isinstance(texts, str) else list(texts)
        self.embed_inputs.append(texts)
        with self._lock:
            vectors = self.embedder.embed_documents(texts) if texts else []
        if self.dim is not None:
            vectors = [v[: self.dim] for v in vectors]
        if self.nan:
            vectors = [[float("nan"), *v[1:]] for v in vectors]
        return 200, {
            "model": model,
            "embeddings": vectors,
            "total_duration": 1_000_000,
            "load_duration": 1_000,
            "prompt_eval_count": sum(len(t.split()) for t in texts),
        }


def _model_entry(name: str) -> dict[str, Any]:
    return {
        "name": name,
        "model": name,
        "modified_at": "2025-11-01T10:00:00.000000000Z",
        "size": 274302450,
        "digest": "0a109f422b47e3a30ba2b10eca18548e944e8a23073ee3f3e947efcf3c45e59f",
        "details": {"parent_model": "", "format": "gguf", "family": "nomic-bert", "families": ["nomic-bert"],
                    "parameter_size": "137M", "quantization_level": "F16"},
    }


def _handler_for(server: OllamaServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"  # keep-alive, as httpx expects from Ollama

        def setup(self) -> None:
            super().setup()
            server._connections.add(self.connection)

        def finish(self) -> None:
            server._connections.discard(self.connection)
            super().finish()

        def _reply(self, status: int, payload: dict[str, Any]) -> None:
            data = json.dumps(payload).encode()
            try:
                self.send_response(status)
                self.send_header("Content-Type", "application/json; charset=utf-8")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)
            except (BrokenPipeError, ConnectionResetError):
                pass  # the client gave up (timeout): nothing to answer

        def _body(self) -> dict[str, Any] | None:
            length = int(self.headers.get("Content-Length") or 0)
            if not length:
                return None
            try:
                data = json.loads(self.rfile.read(length))
            except ValueError:
                return None
            return data if isinstance(data, dict) else None

        def do_GET(self) -> None:  # noqa: N802 - http.server's naming
            self._reply(*server._answer("GET", self.path, None))

        def do_POST(self) -> None:  # noqa: N802
            body = self._body()
            self._reply(*server._answer("POST", self.path, body))

        def log_message(self, format: str, *args: Any) -> None:
            pass  # keep test output clean

    return Handler
