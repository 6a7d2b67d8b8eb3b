"""The lab's address as the pages build it ("Why this move?", the lab's own), in Node:
the variant beside the position, and the words of the lab on the larger variants."""

from __future__ import annotations

from urllib.parse import parse_qs, urlsplit

from support.node import node_value


def query(address: str) -> dict[str, list[str]]:
    return parse_qs(urlsplit(address).query, keep_blank_values=True)


def test_the_address_carries_the_variant_beside_the_position() -> None:
    classic = node_value("protocol.js", 'w.labAddress("/lab?x=1", "XO..X....")')
    assert classic == "/lab?board=XO..X...."  # classic's as before variants
    four = node_value(
        "protocol.js",
        'w.labAddress("/lab", "XO.XOX..X.O.....", {cell: 2, decision: "random"}, "4x4k4")',
    )
    assert query(four) == {
        "board": ["XO.XOX..X.O....."],
        "variant": ["4x4k4"],
        "played": ["2"],
        "how": ["random"],
    }
    flat = node_value("protocol.js", 'w.labAddress("/lab", "X" + ".".repeat(17), null, "notakto2")')
    assert query(flat)["board"] == ["X......../........."]  # its boards of nine, with "/"
    given = node_value(
        "protocol.js", 'w.labAddress("/lab", "........./.........", null, "notakto2")'
    )
    assert query(given)["board"] == ["........./........."]


def test_the_counts_words_mark_an_estimate_and_a_cap() -> None:
    estimate = node_value(
        "words_lab.js",
        "w.countWords({nodes: 36462276613649, hits: null, cuts: null, ms: 40, estimate: true})",
    )
    assert estimate.startswith("≈ 36,462,276,613,649 nodes (estimated)")
    capped = node_value("words_lab.js", "w.countWords({nodes: 8192, ms: 21, more: true})")
    assert capped.startswith("more than 8,192 nodes")
    counted = node_value(
        "words_lab.js", "w.countWords({nodes: 5773, hits: 1905, cuts: 2167, ms: 59})"
    )
    assert counted.startswith("5,773 nodes · 1,905 from the table · 2,167 cuts")
    walk = node_value("words_counts.js", "w.walkWords(0, 24576, false)")
    assert walk.startswith("Step 1 of the first 24,576: this search is too large to walk whole")
    assert node_value("words_counts.js", "w.walkWords(4, 19485, true)") == "Step 5 of 19,485."
