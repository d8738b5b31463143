"""`[web]` and `[voice]` are checked at start-up like every other section."""

from __future__ import annotations

from pathlib import Path

import pytest

from bermuda_hw.config import load_config
from bermuda_hw.errors import ConfigError


@pytest.mark.parametrize(
    ("text", "key"),
    [
        ('[web]\nbind = "8080"\n', "web.bind"),
        ('[web]\nbind = "localhost:99999"\n', "web.bind"),
        ("[web]\nbind = 8080\n", "web.bind"),
        ('[web]\nenabled = "yes"\n', "web.enabled"),
        ("[web]\nport = 1\n", "web.port"),
        ('[web]\npublic_view = "no"\n', "web.public_view"),
        ('[web]\nhosts = "bermuda.lan"\n', "web.hosts"),
        ('[web]\nhosts = ["evil.example/x"]\n', "web.hosts"),
        ('[web]\nhosts = [""]\n', "web.hosts"),
        ("[web]\nmax_connections = 2\n", "web.max_connections"),
        (
            "[web]\nmax_connections = 100\nmax_connections_per_client = 200\n",
            "web.max_connections_per_client",
        ),
        ("[web]\nmax_connections_per_client = 1.5\n", "web.max_connections_per_client"),
        ('[voice]\nvoice = "en; rm -rf"\n', "voice.voice"),
        ("[voice]\nwords_per_minute = 5\n", "voice.words_per_minute"),
    ],
)
def test_bad_values_name_the_key(tmp_path: Path, text: str, key: str) -> None:
    path = tmp_path / "config.toml"
    path.write_text(text)
    with pytest.raises(ConfigError, match=key.replace(".", r"\.")) as info:
        load_config(path)
    assert str(path) in str(info.value)


def test_the_page_is_private_unless_the_owner_says(tmp_path: Path) -> None:
    web = load_config().web
    assert not web.public_view and web.hosts == ()
    assert (web.max_connections, web.max_connections_per_client) == (256, 32)
    path = tmp_path / "config.toml"
    path.write_text(
        '[web]\npublic_view = true\nhosts = ["Bermuda.LAN."]\n'
        "max_connections = 64\nmax_connections_per_client = 8\n"
    )
    web = load_config(path).web
    assert web.public_view and web.hosts == ("bermuda.lan",)
    assert (web.max_connections, web.max_connections_per_client) == (64, 8)


def test_bind_addresses(tmp_path: Path) -> None:
    assert load_config().web.address(simulate=True) == ("127.0.0.1", 8080)
    assert load_config().web.address(simulate=False) == ("0.0.0.0", 8080)
    path = tmp_path / "config.toml"
    path.write_text('[web]\nbind = "[::1]:9000"\n')
    assert load_config(path).web.address(simulate=False) == ("::1", 9000)
