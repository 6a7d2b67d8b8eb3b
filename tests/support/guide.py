"""docs/hosting.md as data: its blocks by name, filled in as a scratch install needs them.

Each block of the guide that is a file or a step starts with a comment naming it
(``# /etc/systemd/system/tictactoe.service``, ``# install``). The tests read them from
here, so that what they run and what the guide says cannot drift apart; a block that is
gone, or no longer holds a line the tests fill in, is an error rather than a silent change.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

GUIDE = Path(__file__).resolve().parents[2] / "docs" / "hosting.md"
CHANGELOG = GUIDE.parent.parent / "CHANGELOG.md"

UNIT = "/etc/systemd/system/tictactoe.service"
ENV_FILE = "/etc/tictactoe/env"
SITE = "/etc/nginx/sites-available/tictactoe"
EVENTS = "/etc/nginx/nginx.conf, its events block and file limit"
SEVERAL_HOSTS = "/etc/nginx/sites-available/tictactoe, its upstream for several hosts"
INSTALL, BACKUP, RESTORE = "install", "/etc/cron.daily/tictactoe-backup", "restore"
SOURCE = "the release's source"
UPGRADE, ROLLBACK = "upgrade", "rollback"
REDIS_RESTORE = "restore of Redis"
REDIS_CONF = "/etc/redis/redis.conf, the lines for this app"
SUB_PATH_ENV = "/etc/tictactoe/env, one more line for a sub-path"
SUB_PATH_LOCATION = "/etc/nginx/sites-available/tictactoe, the location for a sub-path"


def guide_blocks(text: str | None = None) -> dict[str, str]:
    """Every fenced block of the guide that starts with ``# name``: name -> the rest."""
    found: dict[str, str] = {}
    for body in re.findall(r"^```[a-z]*\n(.*?)^```", text or GUIDE.read_text(), re.M | re.S):
        first, _, rest = body.partition("\n")
        if first.startswith("# "):
            name = first[2:].strip()
            if name in found:
                raise ValueError(f"docs/hosting.md names two blocks {name!r}")
            found[name] = rest
    return found


def block(name: str) -> str:
    """The guide's block ``name``."""
    blocks = guide_blocks()
    if name not in blocks:
        raise ValueError(f"docs/hosting.md has no block starting '# {name}': {sorted(blocks)}")
    return blocks[name]


def fill(text: str, replacements: dict[str, str]) -> str:
    """``text`` with each key replaced by its value; each key must be there."""
    for old, new in replacements.items():
        if old not in text:
            raise ValueError(f"the guide's block no longer holds {old!r}")
        text = text.replace(old, new)
    return text


def unit_keys(unit: str) -> dict[str, str]:
    """The ``Key=value`` lines of a systemd unit (comments and sections left out)."""
    keys: dict[str, str] = {}
    for line in unit.splitlines():
        line = line.strip()
        if line and not line.startswith(("#", ";", "[")) and "=" in line:
            key, _, value = line.partition("=")
            keys[key.strip()] = value.strip()
    return keys


def env_file(text: str) -> dict[str, str]:
    """The ``NAME=value`` lines of an EnvironmentFile."""
    pairs = (line.split("=", 1) for line in text.splitlines() if "=" in line)
    return {name.strip(): value.strip() for name, value in pairs if not name.startswith("#")}


def redis_conf(text: str) -> dict[str, str]:
    """The ``name value`` lines of a redis.conf block."""
    pairs = (line.split(None, 1) for line in text.splitlines() if line.strip())
    return {name: value.strip() for name, value in pairs if not name.startswith("#")}


def commands(script: str, *, leave_out: tuple[str, ...] = ()) -> list[str]:
    """The command lines of a shell block, but comments and lines starting ``leave_out``.

    ``A && systemctl start tictactoe`` is two lines, ``A`` then the ``systemctl`` one: a
    test runs them under ``set -e``, which stops at a failing ``A`` as ``&&`` does.
    """
    lines = []
    for line in script.splitlines():
        first, joined, then = line.strip().partition(" && systemctl ")
        lines += [first, "systemctl " + then] if joined else [first]
    return [line for line in lines if line and not line.startswith(("#", *leave_out))]


def sub_path_site() -> str:
    """The guide's site with its TLS server's ``location /`` put under the sub-path, as
    the guide says: the sub-path's ``location`` and ``proxy_pass`` lines in place of
    those of ``location /``, its other lines as they are."""
    site, under = block(SITE), block(SUB_PATH_LOCATION).splitlines()
    opening, proxy = under[0], under[1]
    if proxy not in site:
        raise ValueError(f"the sub-path's {proxy.strip()!r} is not the site's")
    at = site.rindex("    location / {\n")
    return site[:at] + opening + "\n" + site[at + len("    location / {\n") :]


@dataclass(frozen=True)
class Release:
    """One release of CHANGELOG.md: its version and the commit that set it, None for the
    release commit itself (the commit after it names it)."""

    version: str
    commit: str | None


def changelog_sections(text: str | None = None) -> dict[str, str]:
    """CHANGELOG.md's ``## `` sections, newest first: heading -> body."""
    parts = re.split(r"^## (.+)\n", text or CHANGELOG.read_text(), flags=re.M)
    return {heading.strip(): body for heading, body in zip(parts[1::2], parts[2::2], strict=True)}


def releases(text: str | None = None) -> list[Release]:
    """Every release CHANGELOG.md lists below "Unreleased", newest first, with its commit.

    The release commit cannot name itself: at that commit the newest release, the first
    section, names none (its commit None), and the commit after it adds the line."""
    found = []
    for heading, body in changelog_sections(text).items():
        if heading == "Unreleased":
            continue
        version = re.fullmatch(r"(\d+\.\d+\.\d+) - \d{4}-\d{2}-\d{2}", heading)
        commit = re.search(r"^Version set in commit `([0-9a-f]{7,40})`", body, re.M)
        if not version or not (commit or heading == next(iter(changelog_sections(text)))):
            raise ValueError(f"CHANGELOG.md's '## {heading}' names no version, date or commit")
        found.append(Release(version[1], commit[1] if commit else None))
    return found
