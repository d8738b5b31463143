"""`[web]` and `[voice]` are checked at start-up like every other section."""

from __future__ import annotations

from pathlib import Path

import pytest

from bermuda_hw.config import load_config
from bermuda_hw.errors import ConfigError


@pytest.mark.parametrize(("text", "key"), [
    ('[web]\nbind = "8080"\n', "web.bind"),
    ('[web]\nbind = "localhost:99999"\n', "web.bind"),
    ('[web]\nbind = 8080\n', "web.bind"),
    ('[web]\nenabled = "yes"\n', "web.enabled"),
    ('[web]\nport = 1\n', "web.port"),
    ('[voice]\nvoice = "en; rm -rf"\n', "voice.voice"),
    ('[voice]\nwords_per_minute = 5\n', "voice.words_per_minute"),
])
def test_bad_values_name_the_key(tmp_path: Path, text: str, key: str) -> None:
    path = tmp_path / "config.toml"
    path.write_text(text)
    with pytest.raises(ConfigError, match=key.replace(".", r"\.")) as info:
        load_config(path)
    assert str(path) in str(info.value)


def test_bind_addresses(tmp_path: Path) -> None:
    assert load_config().web.address(simulate=True) == ("127.0.0.1", 8080)
    assert load_config().web.address(simulate=False) == ("0.0.0.0", 8080)
    path = tmp_path / "config.toml"
    path.write_text('[web]\nbind = "[::1]:9000"\n')
    assert load_config(path).web.address(simulate=False) == ("::1", 9000)
