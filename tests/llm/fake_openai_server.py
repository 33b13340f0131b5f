"""A real OpenAI-compatible HTTP server on 127.0.0.1 for the tests: it answers
``POST /v1/chat/completions``, first with the scripted faults, then with success.

A fault is an HTTP error status (``429``, ``500``, ...) or a malformed 200 reply:
``"null_content"`` (``message.content: null``), ``"empty_choices"`` (``choices: []``) or
``"missing_choices"`` (no ``choices`` key)."""
from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class FakeOpenAIServer:
    def __init__(self, failures: list[int | str] | None = None,
                 reply=lambda prompt: "Paris") -> None:
        self.failures = list(failures or [])
        self.reply = reply
        self.requests: list[dict] = []
        self._lock = threading.Lock()
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):  # keep the test output clean
                pass

            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                with server._lock:
                    server.requests.append(body)
                    status = server.failures.pop(0) if server.failures else 200
                if isinstance(status, int) and status != 200:
                    payload = json.dumps({"error": {"message": f"scripted {status}"}}).encode()
                    self.send_response(status)
                    self.send_header("retry-after-ms", "1")  # keep the client's backoff short
                else:
                    prompt = body["messages"][-1]["content"]
                    reply = {
                        "id": "chatcmpl-test", "object": "chat.completion", "created": 0,
                        "model": body["model"],
                        "choices": [{"index": 0, "finish_reason": "stop", "message": {
                            "role": "assistant", "content": server.reply(prompt)}}],
                        "usage": {"prompt_tokens": len(prompt.split()), "completion_tokens": 1,
                                  "total_tokens": len(prompt.split()) + 1}}
                    if status == "null_content":
                        reply["choices"][0]["message"]["content"] = None
                    elif status == "empty_choices":
                        reply["choices"] = []
                    elif status == "missing_choices":
                        del reply["choices"]
                    elif status != 200:
                        raise ValueError(f"unknown scripted fault {status!r}")
                    payload = json.dumps(reply).encode()
                    self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.base_url = f"http://127.0.0.1:{self._server.server_port}/v1"
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    def __enter__(self) -> "FakeOpenAIServer":
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._server.shutdown()
        self._server.server_close()
