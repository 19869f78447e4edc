"""The LLM engine against a local HTTP server serving canned chat-completions answers (real HTTP round trips):
a valid answer, a malformed one repaired, a clause failing lint repaired, a timeout, and the CLI path."""

from __future__ import annotations

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, Iterator

import pytest
from click.testing import CliRunner

from evalgap.translators.llm_client import LLMConfig, LLMError, chat, llm_engine
from evalgap.translators.prose_terms import Signature
from evalgap.verifier.cli.main import cli

SIG = Signature("g", (("xs", "list[int]"),), "int")


class _Server:
    def __init__(self) -> None:
        self.answers: list[Any] = []  # str (content), ("raw", body), ("sleep", seconds)
        self.requests: list[dict[str, Any]] = []
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 - http.server API
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                outer.requests.append({"path": self.path, "auth": self.headers.get("Authorization"), **body})
                ans = outer.answers.pop(0) if outer.answers else "{}"
                if isinstance(ans, tuple) and ans[0] == "sleep":
                    time.sleep(ans[1])
                    ans = '{"clauses": [{"kind": "ensures", "text": "result >= 0"}]}'
                raw = ans[1] if isinstance(ans, tuple) else json.dumps(
                    {"choices": [{"message": {"role": "assistant", "content": ans}}]})
                data = raw.encode()
                try:
                    self.send_response(200)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    pass

            def log_message(self, *args: Any) -> None:
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture()
def server() -> Iterator[_Server]:
    s = _Server()
    yield s
    s.close()


def test_valid_answer_round_trip(server: _Server) -> None:
    server.answers = ['{"clauses": [{"kind": "ensures", "text": "result >= 0"}]}']
    cfg = LLMConfig(server.url, "tiny-model", "sk-test", timeout_s=5)
    prop = llm_engine(cfg)("Returns a count.", SIG, ())
    assert [(r, c.kind, c.text) for r, c in prop.clauses] == [("llm:tiny-model", "ensures", "result >= 0")]
    req = server.requests[0]
    assert req["path"] == "/v1/chat/completions" and req["model"] == "tiny-model"
    assert req["auth"] == "Bearer sk-test"
    assert "Sentence: Returns a count." in req["messages"][-1]["content"]


def test_malformed_and_lint_failing_answers_are_repaired_with_the_diagnostic(server: _Server) -> None:
    server.answers = ["Sure! here it is", '{"clauses": [{"kind": "ensures", "text": "result >= "}]}',
                      '{"clauses": [{"kind": "ensures", "text": "len(xs) >= result"}]}']
    prop = llm_engine(LLMConfig(server.url, "m", timeout_s=5, max_repairs=2))("At most the length.", SIG, ())
    assert [c.text for _, c in prop.clauses] == ["len(xs) >= result"]
    assert len(server.requests) == 3
    assert "holds no JSON object" in server.requests[1]["messages"][-1]["content"]
    assert "EG1" in server.requests[2]["messages"][-1]["content"]  # the lint diagnostic was fed back


def test_repairs_run_out_and_the_sentence_stays_informal(server: _Server) -> None:
    server.answers = ["nope", "still nope"]
    prop = llm_engine(LLMConfig(server.url, "m", timeout_s=5, max_repairs=1))("Something.", SIG, ())
    assert prop.clauses == () and prop.informal is not None
    assert prop.informal[0] == "omission" and "after 1 repair round" in prop.informal[1]


def test_not_a_completion_body_is_an_error(server: _Server) -> None:
    server.answers = [("raw", '{"error": "model not loaded"}')]
    with pytest.raises(LLMError, match="not a chat-completions response"):
        chat(LLMConfig(server.url, "m", timeout_s=5), [{"role": "user", "content": "x"}])


def test_timeout_is_an_error_after_the_retries(server: _Server) -> None:
    server.answers = [("sleep", 1.5)]
    with pytest.raises(LLMError, match=r"timeout.*after 1 tries"):
        llm_engine(LLMConfig(server.url, "m", timeout_s=0.3, retries=0))("Returns a count.", SIG, ())


def test_config_from_env_and_missing_config() -> None:
    cfg = LLMConfig.from_env(env={"EVALGAP_LLM_BASE_URL": "http://127.0.0.1:1/v1/", "EVALGAP_LLM_MODEL": "x",
                                  "EVALGAP_LLM_API_KEY": "k"})
    assert (cfg.base_url, cfg.model, cfg.api_key) == ("http://127.0.0.1:1/v1", "x", "k")
    with pytest.raises(LLMError, match="base URL and a model"):
        LLMConfig.from_env(env={})


def test_cli_llm_engine_records_the_model(server: _Server, tmp_path: Path) -> None:
    (tmp_path / "p.md").write_text("- Returns how many elements are positive.\n")
    (tmp_path / "t.py").write_text("def g(xs: list[int]) -> int:\n    return 0\n")
    server.answers = ['{"clauses": [{"kind": "ensures", "text": "0 <= result <= len(xs)"}]}']
    out = tmp_path / "g.req"
    res = CliRunner().invoke(cli, ["author", str(tmp_path / "p.md"), "--target", str(tmp_path / "t.py"),
                                   "--engine", "llm", "--base-url", server.url, "--model", "tiny", "-o", str(out)],
                             catch_exceptions=False)
    assert res.exit_code == 0, res.stderr
    text = out.read_text()
    assert "ensures 0 <= result <= len(xs)" in text and "# rule: llm:tiny" in text
    assert "Machine-drafted" in text and "model tiny" in text
    none = CliRunner().invoke(cli, ["author", str(tmp_path / "p.md"), "--target", str(tmp_path / "t.py"),
                                    "--engine", "llm"], env={"EVALGAP_LLM_BASE_URL": "", "EVALGAP_LLM_MODEL": ""})
    assert none.exit_code == 2 and "base URL and a model" in none.stderr
