"""An optional LLM behind one small interface: an OpenAI-compatible ``/chat/completions`` endpoint.

Every stage has a deterministic path and uses an LLM only when configured (``LLM_URL``, ``LLM_MODEL``,
``LLM_API_KEY``). Calls are plain HTTP so tests replace the model at its HTTP boundary, nothing deeper.
The API key is sent as a bearer token and never logged or put in error messages.
"""

from __future__ import annotations

import logging
import time
from typing import Protocol

import httpx

log = logging.getLogger(__name__)


class LlmError(RuntimeError):
    """The endpoint failed or answered something unusable; callers fall back to their deterministic path."""


class TextModel(Protocol):
    name: str

    def complete(self, system: str, user: str, max_tokens: int = 256) -> str: ...


class OpenAICompatible:
    """Chat completions over HTTP, temperature 0, with a couple of retries on 429/5xx."""

    def __init__(self, base_url: str, model: str, api_key: str | None = None, timeout: float = 60.0,
                 retries: int = 2):
        self.name = model
        self._url = base_url.rstrip("/") + "/chat/completions"
        self._model = model
        self._retries = retries
        headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        self._client = httpx.Client(timeout=timeout, headers=headers)

    def complete(self, system: str, user: str, max_tokens: int = 256) -> str:
        body = {"model": self._model, "temperature": 0, "max_tokens": max_tokens,
                "messages": [{"role": "system", "content": system}, {"role": "user", "content": user}]}
        for attempt in range(self._retries + 1):
            try:
                resp = self._client.post(self._url, json=body)
            except httpx.HTTPError as exc:
                err = f"{type(exc).__name__}"
            else:
                if resp.status_code == 200:
                    try:
                        text = resp.json()["choices"][0]["message"]["content"]
                    except (ValueError, KeyError, IndexError, TypeError):
                        raise LlmError("LLM endpoint answered without choices[0].message.content") from None
                    if not isinstance(text, str) or not text.strip():
                        raise LlmError("LLM endpoint answered with empty content")
                    return text.strip()
                err = f"HTTP {resp.status_code}"
                if resp.status_code not in (429, 500, 502, 503, 504):
                    raise LlmError(f"LLM endpoint refused the request: {err}")
            if attempt < self._retries:
                time.sleep(0.5 * 2**attempt)
        raise LlmError(f"LLM endpoint failed after {self._retries + 1} attempts: {err}")

    def close(self) -> None:
        self._client.close()


def from_settings(settings) -> OpenAICompatible | None:
    """The configured model, or None when no LLM is configured."""
    if not (settings.llm_url and settings.llm_model):
        return None
    key = settings.llm_api_key.get_secret_value() if settings.llm_api_key else None
    return OpenAICompatible(settings.llm_url, settings.llm_model, key, timeout=settings.llm_timeout)
