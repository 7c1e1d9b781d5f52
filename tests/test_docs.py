"""The documentation stands alone: every path it names inside the repository exists, it names
none outside it, and every registered game has its rules page with its reference counts."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from samuel.games import registry

ROOT = Path(__file__).resolve().parent.parent
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]

# A path into the repository: one of its top folders, then path characters ("*" for a glob).
REPOSITORY_PATH = re.compile(
    r"(?<![\w/.-])(?:\./)?(?:src|tests|docs|benchmarks|scripts|tuning|\.ci)/[\w./*-]*[\w*/]"
)
# Options whose value is a file or folder the command writes: such a path need not exist yet.
OUTPUT_OPTION = re.compile(r"--(?:out|out-dir|json|records|plot)[ =]\s*(\S+)")
# A name in capitals stands for the user's own (docs/tuning.md's tuning/pst/NAME.json).
PLACEHOLDER = re.compile(r"\b[A-Z]{3,}\b")
# What a document must never point to: the developers' folder beside the repository.
OUTSIDE = re.compile(r"shared/|seeds/|/work/|\.\./\.\./")


def doc_lines():
    for doc in DOCS:
        for number, line in enumerate(doc.read_text(encoding="utf-8").splitlines(), 1):
            yield doc, number, line


def written_by_a_command() -> set[str]:
    """Every path that some documented command writes (``--out tuning/x.npz``)."""
    return {
        match.removeprefix("./")
        for _, _, line in doc_lines()
        for match in OUTPUT_OPTION.findall(line)
    }


def ignored_by_git(paths: list[str]) -> set[str]:
    """The paths that .gitignore keeps out of the repository: outputs a user's run makes."""
    if not paths:
        return set()
    if shutil.which("git") is None or not (ROOT / ".git").exists():
        pytest.skip("not a git checkout: cannot read what .gitignore keeps out")
    run = subprocess.run(
        ["git", "check-ignore", "--no-index", "--stdin"],
        cwd=ROOT,
        input="\n".join(paths),
        capture_output=True,
        text=True,
    )
    return set(run.stdout.split())


def test_every_repository_path_a_doc_names_exists():
    outputs = written_by_a_command()
    missing = []
    for doc, number, line in doc_lines():
        for path in REPOSITORY_PATH.findall(line):
            path = path.removeprefix("./")
            if PLACEHOLDER.search(path) or path in outputs:
                continue
            if not list(ROOT.glob(path.rstrip("/"))):
                missing.append((f"{doc.relative_to(ROOT)}:{number}", path))
    ignored = ignored_by_git([path for _, path in missing])
    missing = [(where, path) for where, path in missing if path not in ignored]
    assert not missing, f"docs name repository paths that do not exist: {missing}"


def test_no_doc_points_outside_the_repository():
    outside = [
        f"{doc.relative_to(ROOT)}:{number}: {line.strip()}"
        for doc, number, line in doc_lines()
        if OUTSIDE.search(line)
    ]
    assert not outside, "docs point outside the repository:\n" + "\n".join(outside)


def test_the_path_check_sees_a_missing_path_and_an_outside_one():
    assert REPOSITORY_PATH.findall("see `src/samuel/nowhere.py`, then") == ["src/samuel/nowhere.py"]
    assert not list(ROOT.glob("src/samuel/nowhere.py"))
    assert OUTSIDE.search("the rules are in `shared/RULES.md`")


def test_every_game_has_a_rules_page_with_its_reference_counts():
    """``docs/rules-NAME.md`` for every registered game, stating its perft counts from the start
    (computed here, depths 1 to 4, or up to the first count past 100,000: backgammon's third
    is 116 million) in its "Reference counts" table, and named in the README."""
    for name, rules in registry().items():
        page = f"docs/rules-{name}.md"
        text = (ROOT / page).read_text(encoding="utf-8")
        assert "## Reference counts" in text, page
        table = text.split("## Reference counts", 1)[1]
        for depth in range(1, 5):
            number = rules.perft(rules.initial_position(), depth)
            assert f"| {number:,} |" in table, (name, depth, number)
            if number > 100_000:
                break
        assert page in (ROOT / "README.md").read_text(encoding="utf-8"), page


def test_every_page_is_in_the_readmes_documentation_table():
    """A new page is found from the README: its "Documentation" table names every page."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    table = readme.split("## Documentation", 1)[1].split("\n## ", 1)[0]
    listed = set(re.findall(r"`(docs/[\w-]+\.md)`", table))
    pages = {f"docs/{page.name}" for page in (ROOT / "docs").glob("*.md")}
    assert not pages - listed, f"pages missing from the README's table: {sorted(pages - listed)}"


# A link to a page of the docs, and to a heading of it: ``[text](page.md#heading)``, ``(#heading)``.
LINK = re.compile(r"\]\(([\w./-]*\.md)?(?:#([^)\s]+))?\)")


def heading_anchors(text: str) -> set[str]:
    """The anchors a Markdown renderer gives the headings, as GitHub makes them: lower case, the
    punctuation dropped, spaces made dashes, and ``-1``, ``-2`` after a repeated one. A line in a
    fenced block (a shell comment) is no heading."""
    anchors: set[str] = set()
    fenced = False
    for line in text.splitlines():
        if line.startswith("```"):
            fenced = not fenced
        match = None if fenced else re.match(r"#{1,6} (.+)", line)
        if match:
            slug = re.sub(r"[^\w\- ]", "", match[1].strip().lower()).replace(" ", "-")
            anchor, n = slug, 0
            while anchor in anchors:
                n += 1
                anchor = f"{slug}-{n}"
            anchors.add(anchor)
    return anchors


def test_every_link_between_pages_finds_its_page_and_heading():
    broken = []
    for doc in DOCS:
        text = doc.read_text(encoding="utf-8")
        for page, anchor in LINK.findall(text):
            target = (doc.parent / page).resolve() if page else doc
            if not target.is_file():
                broken.append(f"{doc.relative_to(ROOT)}: {page} does not exist")
            elif anchor and anchor not in heading_anchors(target.read_text(encoding="utf-8")):
                broken.append(f"{doc.relative_to(ROOT)}: {page}#{anchor} names no heading")
    assert not broken, "\n".join(broken)


def test_the_anchors_are_githubs():
    text = "## The search (`samuel.search.puct`)\n```sh\n# runs/z5: a comment\n```\n"
    text += "### Speed\n### Speed"
    assert heading_anchors(text) == {"the-search-samuelsearchpuct", "speed", "speed-1"}
