"""A page left open across an upgrade reloads itself and plays on with the new release."""

from __future__ import annotations

import re

from playwright.sync_api import Page, expect
from support.testing import ServerProcess

from webapp import __version__

OLD_RELEASE = "0.1.9"
# On the tab's first load only, the page claims an older release, as a page rendered by
# the previous server would; sessionStorage survives the reload, so the next load is real.
AGE_FIRST_LOAD = f"""
if (!sessionStorage.getItem("aged")) {{
  sessionStorage.setItem("aged", "1");
  new MutationObserver((records, observer) => {{
    const meta = document.querySelector('meta[name="release"]');
    if (meta) {{
      meta.content = "{OLD_RELEASE}";
      observer.disconnect();
    }}
  }}).observe(document, {{ childList: true, subtree: true }});
}}
"""


def test_page_of_an_older_release_reloads_itself(page: Page, server: ServerProcess) -> None:
    loads: list[str] = []
    page.on("load", lambda: loads.append(page.url))
    page.add_init_script(AGE_FIRST_LOAD)
    page.goto(server.url + "/")
    board = page.get_by_role("grid", name="Board")
    expect(board).to_have_attribute("data-version", re.compile(r"^\d+$"))
    assert len(loads) == 2  # refused as outdated, reloaded itself, then connected
    expect(page.locator('meta[name="release"]')).to_have_attribute("content", __version__)
    expect(page.get_by_text("Connection refused")).to_have_count(0)
