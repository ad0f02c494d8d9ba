"""Markdown reports show HTML from the files read as text: a run name, question ID, tag,
document ID or policy name holding `<script>` or `<img onerror=...>` never becomes HTML in a
viewer that renders it, and the reports' own text and markup are written as before."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner
from markdown_it import MarkdownIt

from ragtriage._markdown import md_cell, md_code, md_text
from ragtriage.cli.main import cli
from ragtriage.example import example_paths

HOSTILE = {
    "baseline": "<script>alert(1)</script>",
    "improved": "[a](`)<img src=x onerror=alert(2)>`",
    "exact-code": "<img src=x onerror=alert(3)>",
    "purge": "<!--p--><b>&lt;q</b>",
    "version-conflict": "<iframe src=javascript:alert(4)>",
    "multi-fact": "a\\<b>",
    "finance-discounts": "<svg onload=alert(5)>",
    "LumenQ release policy": "<a href=javascript:alert(6)>policy</a>",
}
"""Two run names, two question IDs, two tags, a document ID and the policy's name."""

OWN_TAGS = {"details", "summary", "sub"}
"""The HTML the reports write themselves (the failing questions folded, the methods line)."""

_VIEWER = MarkdownIt("commonmark", {"html": True}).enable(["table", "strikethrough"])
"""A CommonMark viewer that renders raw HTML, as many do, with GFM's tables and strikethrough."""


def _plant(root: Path, hostile: dict[str, str] = HOSTILE) -> list[str]:
    paths = example_paths()
    files = {"evalset.json": paths.evalset, "snapshot.json": paths.snapshot}
    files |= {f"runs/{p.name}": p for p in paths.runs}
    files["policy.toml"] = paths.root / "policy.toml"
    (root / "runs").mkdir()
    for name, source in files.items():
        text = source.read_text(encoding="utf-8")
        for old, new in hostile.items():
            text = text.replace(json.dumps(old), json.dumps(new))
            text = text.replace(json.dumps(f"tag:{old}"), json.dumps(f"tag:{new}"))
        (root / name).write_text(text, encoding="utf-8")
    runs = [f"--run={root / 'runs' / p.name}" for p in paths.runs]
    return [str(root / "evalset.json"), "--snapshot", str(root / "snapshot.json"), *runs]


def _tags(html: str) -> set[str]:
    return set(re.findall(r"<([A-Za-z][A-Za-z0-9]*)", html))


@pytest.mark.parametrize("command", ["evaluate", "diagnose", "compare", "gate"])
def test_html_in_the_files_is_text_in_every_markdown_report(command: str, tmp_path: Path) -> None:
    data = _plant(tmp_path)
    extra = []
    if command == "gate":
        extra = ["--policy", str(tmp_path / "policy.toml"), "--candidate", HOSTILE["improved"],
                 "--baseline", HOSTILE["baseline"]]
    out = CliRunner().invoke(cli, [command, *data, *extra, "--format", "markdown"])
    assert out.exit_code == (1 if command == "gate" else 0), out.output
    html = _VIEWER.render(out.stdout)
    made = _tags(html) - OWN_TAGS
    assert made <= {"h2", "h3", "p", "ul", "li", "strong", "code", "blockquote", "br",
                    "table", "thead", "tbody", "tr", "th", "td"}
    # A Markdown link in a name is shown as written too: no planted URL becomes a link.
    assert not {"script", "img", "iframe", "svg", "b", "a"} & _tags(html)
    # Every planted name is shown as written (escaped by the viewer, not run).
    shown = html.replace("&quot;", '"')
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in shown
    if command != "gate":
        assert "&lt;img src=x onerror=alert(3)&gt;" in shown
    if command == "gate":
        assert "&lt;a href=javascript:alert(6)&gt;policy&lt;/a&gt;" in shown


def test_the_exact_lines_of_a_hostile_evaluate_report(tmp_path: Path) -> None:
    out = CliRunner().invoke(cli, ["evaluate", *_plant(tmp_path), "--format", "markdown"])
    assert out.exit_code == 0, out.output
    lines = out.stdout.splitlines()
    assert "### &lt;script>alert(1)&lt;/script>: failing questions per slice, worst first" in lines
    assert "### \\[a\\](\\`)&lt;img src=x onerror=alert(2)>\\`: per question" in lines
    assert "| tag:&lt;iframe src=javascript:alert(4)> | 1 | 1 (100%) | stale_evidence 1 |" in lines
    assert ("| tag:a\\\\&lt;b> | 5 | 4 (80%) | ranking_loss 1, truncation_loss 1, "
            "unsupported_claim 1, incomplete_answer 1 |") in lines
    assert ("| metric | averaging | &lt;script>alert(1)&lt;/script> | "
            "\\[a\\](\\`)&lt;img src=x onerror=alert(2)>\\` |") in lines
    assert ("- `<script>alert(1)</script>`: rules injection-v3, sensitive-v3") in lines
    assert any(line.startswith("| &lt;img src=x onerror=alert(3)> | answered |") for line in lines)
    assert any(line.startswith("| &lt;!--p-->&lt;b>&amp;lt;q&lt;/b> | ") for line in lines)


@pytest.mark.parametrize(
    ("text", "inline", "cell"),
    [
        ("<script>x</script>", "&lt;script>x&lt;/script>", "&lt;script>x&lt;/script>"),
        ("p < 0.05, <= 0.1, ok -> fail", "p < 0.05, <= 0.1, ok -> fail",
         "p < 0.05, <= 0.1, ok -> fail"),
        ("<!-- c --> <?pi?> <!DOCTYPE> </b> <https://x>", "&lt;!-- c --> &lt;?pi?> &lt;!DOCTYPE> "
         "&lt;/b> &lt;https\\://x>",
         "&lt;!-- c --> &lt;?pi?> &lt;!DOCTYPE> &lt;/b> &lt;https\\://x>"),
        ("&lt; &#60; &#x3c; a & b", "&amp;lt; &amp;#60; &amp;#x3c; a & b",
         "&amp;lt; &amp;#60; &amp;#x3c; a & b"),
        ("a\\<b> `c` |", "a\\\\&lt;b> \\`c\\` |", "a\\\\&lt;b> \\`c\\` \\|"),
        ("a\r\nb\nc", "a b c", "a b c"),
        ("![x](https://e.example/p.png) [a](b) !![y]", "!\\[x\\](https\\://e.example/p.png) "
         "\\[a\\](b) !!\\[y\\]", "!\\[x\\](https\\://e.example/p.png) \\[a\\](b) !!\\[y\\]"),
        # control and format characters as the terminal tables show them: a Markdown report
        # printed to a terminal could otherwise set its title or reverse a name's text
        ("q\x1b]0;t\x07\u202ex\u200b\x9b|", "q\\x1b\\]0;t\\x07\\u202ex\\u200b\\x9b|",
         "q\\x1b\\]0;t\\x07\\u202ex\\u200b\\x9b\\|"),
        # emphasis, strikethrough and GitHub's math; `_` inside a word is no emphasis
        ("*s* m*u*lti _u_ __v__ a_b x_ ~~s~~ $x$",
         "\\*s\\* m\\*u\\*lti \\_u\\_ \\_\\_v\\_\\_ a_b x\\_ \\~\\~s\\~\\~ \\$x\\$",
         "\\*s\\* m\\*u\\*lti \\_u\\_ \\_\\_v\\_\\_ a_b x\\_ \\~\\~s\\~\\~ \\$x\\$"),
        # what GFM links without brackets; `nDCG@10` is no address
        ("www.x.com https://x ftp://y a@b.example nDCG@10",
         "www\\.x.com https\\://x ftp\\://y a\\@b.example nDCG@10",
         "www\\.x.com https\\://x ftp\\://y a\\@b.example nDCG@10"),
    ],
)
def test_md_text_and_md_cell(text: str, inline: str, cell: str) -> None:
    assert (md_text(text), md_cell(text)) == (inline, cell)


def test_a_markdown_report_writes_no_control_character_of_a_question_id(tmp_path: Path) -> None:
    paths = example_paths()
    hostile = "q\u2028title\u202ex"  # no control character: refused
    for name, source in (("evalset.json", paths.evalset), ("run.json", paths.runs[0])):
        text = source.read_text(encoding="utf-8").replace('"exact-code"', json.dumps(hostile))
        (tmp_path / name).write_text(text, encoding="utf-8")
    out = CliRunner().invoke(cli, [
        "evaluate", str(tmp_path / "evalset.json"), "--snapshot", str(paths.snapshot),
        "--run", str(tmp_path / "run.json"), "--format", "markdown",
    ])
    assert out.exit_code == 0, out.output
    assert not {"\u2028", "\u202e"} & set(out.stdout)
    row = "| q\\u2028title\\u202ex | "
    assert any(line.startswith(row) for line in out.stdout.splitlines())
    assert md_code(hostile) == "`q\\u2028title\\u202ex`"


def test_a_code_span_is_not_escaped_and_renders_the_text_as_it_is() -> None:
    span = md_code("<img src=x onerror=alert(1)> &lt;")
    assert span == "`<img src=x onerror=alert(1)> &lt;`"
    assert _VIEWER.renderInline(f"run {md_text('a`b')} {span}") == (
        "run a`b <code>&lt;img src=x onerror=alert(1)&gt; &amp;lt;</code>"
    )


def test_each_viewer_shows_what_the_writers_were_given() -> None:
    for text in ["<script>x</script>", "a\\<b>", "&lt;", "p < 0.05", "x`<img>`y", "a\\`b",
                 "![x](https://e.example/p.png)", "a\\![x](u)", "[t](https://evil.example)",
                 "~~strike~~", "*star*", "m*u*lti", "_u_", "a_b_", "[x]: https://e.example"]:
        assert _VIEWER.renderInline(md_text(text)) == _VIEWER.utils.escapeHtml(text)


IMAGES = {
    "baseline": "![b](https://e.example/b.png)",
    "exact-code": "![q](https://e.example/q.png)",
    "version-conflict": "![t](https://e.example/t.png)",
    "LumenQ release policy": "![p](https://e.example/p.png)",
}
"""A run name, a question ID, a tag and the policy's name written as Markdown images."""


@pytest.mark.parametrize("command", ["evaluate", "diagnose", "compare", "gate"])
def test_an_image_in_the_files_is_text_in_every_markdown_report(
    command: str, tmp_path: Path
) -> None:
    # `![x](url)` would be an <img> loading the URL wherever the report is pasted.
    data = _plant(tmp_path, IMAGES)
    extra = []
    if command == "gate":
        extra = ["--policy", str(tmp_path / "policy.toml"), "--candidate", "improved",
                 "--baseline", IMAGES["baseline"]]
    out = CliRunner().invoke(cli, [command, *data, *extra, "--format", "markdown"])
    assert out.exit_code == (1 if command == "gate" else 0), out.output
    html = _VIEWER.render(out.stdout)
    assert "img" not in _tags(html)
    assert "![b](https://e.example/b.png)" in html
    lines = out.stdout.splitlines()
    if command == "evaluate":
        assert "### !\\[b\\](https\\://e.example/b.png): per question" in lines
        assert any(line.startswith("| !\\[q\\](https\\://e.example/q.png) | answered |")
                   for line in lines)
        assert ("| tag:!\\[t\\](https\\://e.example/t.png) | 1 | 1 (100%) | stale_evidence 1 |"
                in lines)
    if command == "gate":
        assert "![p](https://e.example/p.png)" in html


MARKUP = {
    "baseline": "*base*",
    "exact-code": "[t](https://evil.example)",
    "purge": "~~strike~~ m*u*lti",
    "version-conflict": "_v_ www.x.com",
    "LumenQ release policy": "__policy__ a@b.example",
}
"""A run name, two question IDs, a tag and the policy's name written as Markdown markup."""


@pytest.mark.parametrize("command", ["evaluate", "diagnose", "compare", "gate"])
def test_markdown_markup_in_the_files_is_text_in_every_markdown_report(
    command: str, tmp_path: Path
) -> None:
    # A link, emphasis or strikethrough in an ID would be rendered, not shown as written.
    data = _plant(tmp_path, MARKUP)
    extra = []
    if command == "gate":
        extra = ["--policy", str(tmp_path / "policy.toml"), "--candidate", "improved",
                 "--baseline", MARKUP["baseline"]]
    out = CliRunner().invoke(cli, [command, *data, *extra, "--format", "markdown"])
    assert out.exit_code == (1 if command == "gate" else 0), out.output
    html = _VIEWER.render(out.stdout)
    assert not {"a", "em", "s", "img"} & _tags(html)
    assert "*base*" in html
    if command == "gate":
        assert "__policy__ a@b.example" in html
    if command in ("evaluate", "diagnose"):
        assert "[t](https://evil.example)" in html
        assert "~~strike~~ m*u*lti" in html
        assert "tag:_v_ www.x.com" in html
    if command == "evaluate":
        assert any(line.startswith("| \\[t\\](https\\://evil.example) | answered |")
                   for line in out.stdout.splitlines())


def test_a_cell_with_space_at_an_edge_is_quoted() -> None:
    # A viewer trims a cell: ` spaced ` would look like the ID `spaced`.
    assert [md_cell(t) for t in (" spaced ", "spaced", "a b", "\tq")] == [
        "' spaced '", "spaced", "a b", "\\x09q"
    ]


def test_a_code_span_keeps_the_space_at_both_edges_of_a_name(tmp_path: Path) -> None:
    # A viewer strips one space from each end of `` ` base ` ``: the run ` base ` was shown
    # as `base`, another run's name.
    assert [md_code(t) for t in (" base ", " q", "   ", "` a ")] == [
        "`  base  `", "` q`", "`   `", "`` ` a  ``"
    ]
    for text in (" base ", " q", "   ", "` a "):
        shown = _VIEWER.utils.escapeHtml(text)
        assert _VIEWER.renderInline(md_code(text)) == f"<code>{shown}</code>"
    data = _plant(tmp_path, {"baseline": " base "})
    out = CliRunner().invoke(cli, ["evaluate", *data, "--format", "markdown"])
    assert out.exit_code == 0, out.output
    assert "<code> base </code>" in _VIEWER.render(out.stdout)
