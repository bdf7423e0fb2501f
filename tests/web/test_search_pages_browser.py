"""The web view in a real browser: a search marks the words it matched and offers the next page when there are more;
an agent's page shows its quota use as bars and its retention rules."""

from __future__ import annotations

from typing import Any

from selenium.webdriver.common.by import By

from tests.web.conftest import Site
from tests.web.test_browser import sign_in, text_of, unique, wait_for


def marks(browser: Any) -> list[str]:
    return [str(mark.text) for mark in browser.find_elements(By.CSS_SELECTOR, "#matches mark")]


def test_search_marks_the_matched_words_and_pages_on(site: Site, browser: Any) -> None:
    agent = unique("finder")
    for number in range(25):
        site.store.write_file(agent, f"notes/n{number:02}.md", f"intro {number}\nWe are deploying the service\nend\n")
    sign_in(browser, site, site.admin_key)
    browser.get(f"{site.ui}/a/{agent}/search?q=deployment")
    assert text_of(browser, "summary") == "Results 1–20, best first; more on the next page."
    assert len(browser.find_elements(By.CSS_SELECTOR, "#matches tr")) == 20
    assert set(marks(browser)) == {"deploying"}  # stemmed as the index stems: deployment finds deploying
    assert not browser.find_elements(By.ID, "previous-page")
    browser.find_element(By.ID, "next-page").click()
    wait_for(browser, "#previous-page")
    assert text_of(browser, "summary") == "Results 21–25, best first."
    assert len(browser.find_elements(By.CSS_SELECTOR, "#matches tr")) == 5 and set(marks(browser)) == {"deploying"}
    assert not browser.find_elements(By.ID, "next-page")
    browser.find_element(By.ID, "previous-page").click()
    wait_for(browser, "#next-page")
    assert text_of(browser, "summary").startswith("Results 1–20")

    browser.get(f"{site.ui}/a/{agent}/search?q=THE+SERVICE&exact=1")
    assert set(marks(browser)) == {"the service"}  # the literal text, case folded
    assert "more on the next page" in text_of(browser, "summary")
    browser.get(f"{site.ui}/a/{agent}/search?q=intro+1%5Cd%24&regex=1")
    assert sorted(marks(browser)) == [f"intro {n}" for n in range(10, 20)]
    assert text_of(browser, "summary") == "10 matching lines in 25 files searched."


def test_an_agents_page_shows_quota_bars_and_retention_rules(site: Site, browser: Any) -> None:
    agent, plain = unique("keeper"), unique("plain")
    site.store.write_file(agent, "a.md", "x" * 1000)
    site.store.append_log(agent, "runs/today.log", "started")
    site.store.set_retention(agent, logs="runs/", keep_entries=100, max_age="30d")
    site.store.set_retention(agent, files="tmp/", max_age="7d")
    site.store.write_file(plain, "b.md", "y\n")
    sign_in(browser, site, site.admin_key)
    browser.get(f"{site.ui}/a/{agent}")
    bars = browser.find_elements(By.CSS_SELECTOR, "#quotas meter")
    assert [bar.get_attribute("value") for bar in bars] == ["1", "1", "1007"]
    assert [bar.get_attribute("max") for bar in bars] == ["1000", "100000", "104857600"]
    assert "files: 1 of 1,000 (0.1%)" in text_of(browser, "quotas")
    rows = [row.text for row in browser.find_elements(By.CSS_SELECTOR, "#rules tbody tr")]
    assert rows == [
        "files tmp/ expire 7d after the last write",
        "logs runs/ keep the newest 100 entries; drop entries older than 30d",
    ]
    browser.get(f"{site.ui}/a/{plain}")
    assert (
        "No retention rules" in text_of(browser, "no-rules")
        and len(browser.find_elements(By.CSS_SELECTOR, "#quotas meter")) == 3
    )
