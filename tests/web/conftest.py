"""The web view from outside: a real `scratchpad-mcp` HTTP server (SQLite file, or a Postgres database of its
own) serving /ui, a store the tests fill through the library, keys made on it, and one headless Chromium a
module (Debian's chromium and chromedriver, which .ci/run installs), driven by selenium."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from scratchpad_adapters.factory import Backend, open_backend
from scratchpad_core.service import Scratchpad
from tests.conftest import create_postgres_database, drop_postgres_database
from tests.servers import Server, spawn

CHROMIUM = ("/usr/bin/chromium", "/usr/bin/chromium-browser")
CHROMEDRIVER = "/usr/bin/chromedriver"
WAIT = 20.0  # seconds a browser wait allows (a loaded machine)


def browser_paths() -> tuple[str, str] | None:
    binary = next((path for path in CHROMIUM if Path(path).exists()), shutil.which("chromium"))
    driver = CHROMEDRIVER if Path(CHROMEDRIVER).exists() else shutil.which("chromedriver")
    return (binary, driver) if binary and driver else None


@pytest.fixture(scope="module")
def browser() -> Iterator[object]:
    """One headless Chromium for the module; skipped, saying why, when the machine has none."""
    paths = browser_paths()
    if paths is None:
        pytest.skip("no headless browser: install chromium and chromium-driver (.ci/run does, as root)")
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = paths[0]
    for argument in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1400,1000"):
        options.add_argument(argument)
    driver = webdriver.Chrome(options=options, service=Service(paths[1]))
    driver.set_page_load_timeout(60)
    yield driver
    driver.quit()


@dataclass
class Site:
    """A server and the store behind it: `store` writes as the library does; keys are made on the same database."""

    server: Server
    backend_name: str
    url: str
    backend: Backend
    admin_key: str
    keys: dict[str, str] = field(default_factory=dict)

    @property
    def store(self) -> Scratchpad:
        return self.backend.store

    @property
    def ui(self) -> str:
        return f"{self.server.base}/ui"

    def key_for(self, agent: str) -> str:
        if agent not in self.keys:
            _, self.keys[agent] = self.backend.keys.create(agent, label=f"{agent}'s key")
        return self.keys[agent]


@pytest.fixture(scope="module", params=["sqlite", "postgres"])
def site(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Site]:
    folder = tmp_path_factory.mktemp(f"web-{request.param}")
    if request.param == "sqlite":
        url, drop = f"sqlite:///{folder / 'scratchpad.db'}", None
    else:
        url = create_postgres_database("scratchpad_web")
        drop = url
    backend = open_backend(url)
    _, admin = backend.keys.create(None, label="the operator")
    server = spawn(folder, f"web-{request.param}", {"SCRATCHPAD_DATABASE_URL": url})
    try:
        server.wait_healthy()
        yield Site(server, request.param, url, backend, admin)
    finally:
        server.stop()
        backend.close()
        if drop is not None:
            drop_postgres_database(drop)
