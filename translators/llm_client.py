"""The LLM engine: clauses proposed by any OpenAI-compatible chat-completions endpoint (llama.cpp's server,
vLLM, Ollama, hosted services), over plain HTTP with ``urllib``.

Each proposed clause must parse and lint (:func:`evalgap.translators.from_prose.lint_clause`); failures and
malformed answers are fed back to the model with the diagnostic for at most ``max_repairs`` rounds. A
sentence the model cannot formalize in those rounds becomes ``informal`` with the reason; nothing is dropped.
An endpoint that cannot be reached or keeps failing (after ``retries`` tries with back-off honouring
``Retry-After``) raises :class:`LLMError`: the run stops with exit 2 instead of writing the connection error
into the draft. Configuration comes from options or the environment:
``EVALGAP_LLM_BASE_URL`` (e.g. ``http://127.0.0.1:8080/v1``), ``EVALGAP_LLM_MODEL``, ``EVALGAP_LLM_API_KEY``.
"""

from __future__ import annotations

import email.utils
import http.client
import json
import os
import re
import socket
import time
import urllib.error
import urllib.request
from dataclasses import dataclass
from typing import Any, Mapping, Sequence

from evalgap.specs_lang.ast import INFORMAL_CATEGORIES
from evalgap.translators.errors import TranslationError
from evalgap.translators.from_prose import Engine, Proposal, example_clause, lint_clause
from evalgap.translators.prose_split import ProseExample
from evalgap.translators.prose_terms import Clause, Signature

__all__ = ["LLMConfig", "LLMError", "chat", "retry_after_seconds", "RETRY_STATUSES", "MAX_BACKOFF_S", "llm_engine",
           "parse_answer", "SYSTEM_PROMPT"]


class LLMError(TranslationError):
    """The endpoint could not be reached, timed out, or answered with something that is not a completion."""


@dataclass(frozen=True)
class LLMConfig:
    """Where and how to ask.

    Attributes:
        base_url: the API root, ending before ``/chat/completions`` (e.g. ``http://127.0.0.1:8080/v1``).
        model: the model name sent in the request.
        api_key: sent as ``Authorization: Bearer``; may be empty for local servers.
        timeout_s: seconds per HTTP request.
        max_repairs: repair rounds after the first answer (0: no repair).
        retries: further tries of a request after a transient failure (connection, timeout, 429, 5xx).
        backoff_s: the first wait between tries, seconds (doubling), unless the server sends ``Retry-After``.
    """

    base_url: str
    model: str
    api_key: str = ""
    timeout_s: float = 60.0
    max_repairs: int = 2
    retries: int = 3
    backoff_s: float = 1.0

    @staticmethod
    def from_env(base_url: str | None = None, model: str | None = None, api_key: str | None = None,
                 timeout_s: float = 60.0, max_repairs: int = 2, env: Mapping[str, str] | None = None) -> "LLMConfig":
        """Options first, then ``EVALGAP_LLM_*`` variables.

        Raises:
            LLMError: no base URL or no model.
        """
        e = os.environ if env is None else env
        url = base_url or e.get("EVALGAP_LLM_BASE_URL", "")
        mdl = model or e.get("EVALGAP_LLM_MODEL", "")
        if not url or not mdl:
            raise LLMError("the llm engine needs a base URL and a model: --base-url/--model or "
                           "EVALGAP_LLM_BASE_URL/EVALGAP_LLM_MODEL")
        if not url.startswith(("http://", "https://")):
            raise LLMError(f"--base-url {url!r}: give an http:// or https:// URL of a chat-completions API "
                           "(e.g. http://127.0.0.1:8080/v1)")
        return LLMConfig(url.rstrip("/"), mdl, api_key if api_key is not None else e.get("EVALGAP_LLM_API_KEY", ""),
                         timeout_s, max_repairs)


#: HTTP statuses worth another try (rate limit, overload, gateway trouble); others fail at once.
RETRY_STATUSES = frozenset({408, 425, 429, 500, 502, 503, 504})
#: The longest wait between tries, seconds (also the cap on a server's ``Retry-After``).
MAX_BACKOFF_S = 60.0
_sleep = time.sleep  # replaced in tests


class _Transient(Exception):
    """A failure worth retrying; ``retry_after`` is the server's ``Retry-After`` in seconds, if any."""

    def __init__(self, error: LLMError, retry_after: float | None = None) -> None:
        super().__init__(str(error))
        self.error, self.retry_after = error, retry_after


def retry_after_seconds(value: str | None, now: float | None = None) -> float | None:
    """A ``Retry-After`` header as seconds to wait: delay-seconds or an HTTP date; None when absent or bad."""
    if not value:
        return None
    value = value.strip()
    if value.isdigit():
        return float(value)
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError):
        return None
    return max(0.0, when.timestamp() - (time.time() if now is None else now))


def _once(cfg: LLMConfig, req: urllib.request.Request) -> bytes:
    """One HTTP request; raises LLMError (permanent) or _Transient (worth retrying)."""
    try:
        with urllib.request.urlopen(req, timeout=cfg.timeout_s) as resp:  # noqa: S310 - user-given endpoint
            data: bytes = resp.read()
            return data
    except urllib.error.HTTPError as exc:
        err = LLMError(f"{cfg.base_url}: HTTP {exc.code} {exc.reason}")
        if exc.code in RETRY_STATUSES:
            raise _Transient(err, retry_after_seconds(exc.headers.get("Retry-After") if exc.headers else None)) \
                from exc
        raise err from exc
    except (TimeoutError, socket.timeout) as exc:
        raise _Transient(LLMError(f"{cfg.base_url}: no answer within {cfg.timeout_s:g} s (timeout)")) from exc
    except urllib.error.URLError as exc:
        if isinstance(exc.reason, (TimeoutError, socket.timeout)):
            raise _Transient(LLMError(f"{cfg.base_url}: no answer within {cfg.timeout_s:g} s (timeout)")) from exc
        raise _Transient(LLMError(f"{cfg.base_url}: cannot connect ({exc.reason})")) from exc
    except (ConnectionError, http.client.HTTPException, OSError) as exc:
        raise _Transient(LLMError(f"{cfg.base_url}: the connection failed ({type(exc).__name__}: {exc})")) from exc


def chat(cfg: LLMConfig, messages: Sequence[Mapping[str, str]]) -> str:
    """One chat-completions request, tried up to ``cfg.retries + 1`` times; returns the first choice's content.

    A connection failure, a timeout and HTTP 408/425/429/5xx are retried after ``cfg.backoff_s * 2**n``
    seconds, or after the server's ``Retry-After`` when it sends one (both capped at :data:`MAX_BACKOFF_S`).

    Raises:
        LLMError: the last failure after the retries (its message says how many tries were made), another HTTP
            error status at once, or a body without a message content.
    """
    body = json.dumps({"model": cfg.model, "messages": list(messages), "temperature": 0}).encode()
    headers = {"Content-Type": "application/json"}
    if cfg.api_key:
        headers["Authorization"] = f"Bearer {cfg.api_key}"
    req = urllib.request.Request(cfg.base_url + "/chat/completions", body, headers, method="POST")
    tries = max(0, cfg.retries) + 1
    for attempt in range(tries):
        try:
            raw = _once(cfg, req)
            break
        except _Transient as exc:
            if attempt + 1 == tries:
                raise LLMError(f"{exc.error} (after {tries} tries)") from None
            wait = exc.retry_after if exc.retry_after is not None else cfg.backoff_s * 2 ** attempt
            _sleep(min(MAX_BACKOFF_S, wait))
    try:
        data = json.loads(raw)
        content = data["choices"][0]["message"]["content"]
        if not isinstance(content, str):
            raise TypeError("content is not a string")
        return content
    except (ValueError, KeyError, IndexError, TypeError) as exc:
        raise LLMError(f"{cfg.base_url}: not a chat-completions response ({type(exc).__name__}: {exc})") from exc


SYSTEM_PROMPT = """You formalize one requirement sentence about a Python function as clauses of the evalgap spec
language. Expressions are Python (no lambdas, no assignments, no imports), plus `A ==> B` (implies),
`forall x in S: P`, `exists x in S: P`, `old(E)` (value before the call). In `ensures` the return value is
`result`. Clause kinds: `requires EXPR` (precondition), `ensures EXPR` (postcondition), `raises EXC when EXPR`
(written as kind "raises" with text "EXC when EXPR"). Answer ONLY with JSON, one of:
{"clauses": [{"kind": "ensures", "text": "result >= 0"}]}
{"informal": {"category": "omission", "reason": "why it cannot be formalized"}}
Categories: """ + ", ".join(INFORMAL_CATEGORIES) + """. Do not restate the signature's types. Never invent behaviour
the sentence does not state."""


def _user_prompt(sentence: str, sig: Signature, examples: Sequence[ProseExample]) -> str:
    params = ", ".join(f"{n}: {t}" for n, t in sig.params)
    ex = "\n".join(f"  example {example_clause(sig, e)}" for e in examples[:5]) or "  (none)"
    return (f"Function: {sig.name}({params}) -> {sig.returns or 'unknown'}\nExamples from the prose:\n{ex}\n"
            f"Sentence: {sentence}")


def parse_answer(text: str) -> Proposal | str:
    """A model answer as a :class:`Proposal`, or the reason it is malformed (a string to feed back)."""
    m = re.search(r"\{.*\}", text, re.S)
    if not m:
        return "the answer holds no JSON object"
    try:
        data: Any = json.loads(m.group(0))
    except ValueError as exc:
        return f"the answer is not valid JSON ({exc})"
    if not isinstance(data, dict):
        return "the answer is not a JSON object"
    if isinstance(data.get("informal"), dict):
        cat = str(data["informal"].get("category", ""))
        if cat not in INFORMAL_CATEGORIES:
            return f"unknown informal category {cat!r}; use one of {', '.join(INFORMAL_CATEGORIES)}"
        return Proposal(informal=(cat, str(data["informal"].get("reason", "")) or "given by the model"))
    clauses = data.get("clauses")
    if not isinstance(clauses, list) or not clauses:
        return 'the answer needs a non-empty "clauses" list or an "informal" object'
    out = []
    for c in clauses:
        if not isinstance(c, dict) or c.get("kind") not in ("requires", "ensures", "raises") or \
                not isinstance(c.get("text"), str) or not c["text"].strip():
            return f"malformed clause {c!r}: needs kind requires|ensures|raises and a text"
        out.append(("", Clause(c["kind"], " ".join(c["text"].split()))))
    return Proposal(tuple(out))


def llm_engine(cfg: LLMConfig) -> Engine:
    """An :data:`Engine` asking ``cfg``'s model, with lint-driven repair rounds; clauses are recorded with the
    rule name ``llm:<model>``."""
    rule = f"llm:{cfg.model}"

    def engine(sentence: str, sig: Signature, examples: Sequence[ProseExample] = ()) -> Proposal:
        messages = [{"role": "system", "content": SYSTEM_PROMPT},
                    {"role": "user", "content": _user_prompt(sentence, sig, examples)}]
        problem = ""
        for _round in range(cfg.max_repairs + 1):
            answer = chat(cfg, messages)  # an endpoint failure is an error (exit 2), not an informal reason
            parsed = parse_answer(answer)
            if isinstance(parsed, str):
                problem = parsed
            elif parsed.informal:
                return parsed
            else:
                diags = [(c, lint_clause(sig, c)) for _, c in parsed.clauses]
                bad = [(c, d) for c, d in diags if d]
                if not bad:
                    return Proposal(tuple((rule, c) for _, c in parsed.clauses))
                problem = "; ".join(f"`{c.kind} {c.text}`: {d.splitlines()[0] if d else ''}" for c, d in bad)
            messages += [{"role": "assistant", "content": answer},
                         {"role": "user", "content": f"That answer was rejected: {problem}. Answer again with "
                                                     "corrected JSON only."}]
        return Proposal(informal=("omission", f"llm engine: no lint-clean answer after {cfg.max_repairs} repair "
                                              f"round(s); last problem: {problem[:200]}"))

    return engine
