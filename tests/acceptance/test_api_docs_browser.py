"""The API docs as a person opens them: `secplat serve` on a small published lake, /docs and /redoc in headless
Chromium, and "Try it out" on POST /search returning evidence. Screenshots land in the test's tmp dir."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

from tests.browser import body_text, chromium, serve, stop, wait_for
from tests.conftest import free_port

pytestmark = [pytest.mark.shared, pytest.mark.slow]
SECPLAT = str(Path(sys.executable).with_name("secplat"))
QUESTION = "What were Coca-Cola's net operating revenues in 2023?"


@pytest.fixture()
def server(published, tmp_path):
    port = free_port()
    env = {**os.environ, "LAKE_ROOT": published.lake_root, "UNIVERSE_CSV": published.universe_csv or "",
           "HF_HUB_OFFLINE": "1"}
    proc = serve([SECPLAT, "serve", "--port", str(port)], env, f"http://127.0.0.1:{port}/health",
                 tmp_path / "serve.log")
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        stop(proc)


def test_docs_render_and_try_it_out_returns_evidence(server, tmp_path):
    from selenium.webdriver.common.by import By

    with chromium() as driver:
        driver.get(f"{server}/docs")
        paths = wait_for(lambda: [e.text for e in driver.find_elements(By.CSS_SELECTOR, ".opblock-summary-path")],
                         "Swagger UI to list the operations")
        assert {"/search", "/facts", "/health"} <= set(paths), paths
        assert "Unable to render this definition" not in body_text(driver)
        assert "SEC filings search" in body_text(driver)
        driver.save_screenshot(str(tmp_path / "docs.png"))

        search = next(e for e in driver.find_elements(By.CSS_SELECTOR, ".opblock-post")
                      if e.find_element(By.CSS_SELECTOR, ".opblock-summary-path").text == "/search")
        search.find_element(By.CSS_SELECTOR, ".opblock-summary").click()
        wait_for(lambda: search.find_element(By.CSS_SELECTOR, ".try-out__btn"), "the Try it out button").click()
        body = wait_for(lambda: search.find_element(By.CSS_SELECTOR, "textarea.body-param__text"), "the body editor")
        body.clear()
        body.send_keys(json.dumps({"question": QUESTION, "k": 3}))
        search.find_element(By.CSS_SELECTOR, ".execute").click()
        answer = wait_for(lambda: search.find_element(By.CSS_SELECTOR, ".live-responses-table .response-col_description"
                                                      " pre").text, "the live response")
        driver.save_screenshot(str(tmp_path / "docs-try-it-out.png"))
        status = search.find_element(By.CSS_SELECTOR, ".live-responses-table tr.response .response-col_status").text
        assert status.strip() == "200", (status, answer[:500])
        evidence = json.loads(answer)["evidence"]
        assert evidence and evidence[0]["doc_id"] == "KO_2023_10K" and evidence[0]["item_label"], evidence[:1]

        driver.get(f"{server}/redoc")
        wait_for(lambda: "/search" in body_text(driver) and "/facts" in body_text(driver), "ReDoc to render")
        driver.save_screenshot(str(tmp_path / "redoc.png"))
    print(f"screenshots: {tmp_path}")
