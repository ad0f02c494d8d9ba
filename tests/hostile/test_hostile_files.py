"""Hostile and broken input files, for every command that reads that kind of file.

Each case puts one hostile file in one role (an evaluation set, a run, a policy, a qrels
file, ...) of one command, every other input valid, and expects exit 2 with a message naming
the file and the problem, within a time bound and a memory bound (`hostile_batch`). The
inputs are generated here, at test time; the large ones are sparse files (a few bytes on
disk).
"""

from __future__ import annotations

import gzip
import json
import os
import shutil
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest
from hostile_batch import Outcome, run_batch

from ragtriage.fileio import MAX_DOCUMENT_BYTES, MAX_LINE_BYTES

EXAMPLE = Path(__file__).resolve().parents[2] / "src" / "ragtriage" / "example" / "data"
ARTICLE = Path(__file__).resolve().parents[2] / "tests" / "data"

# --- hostile files --------------------------------------------------------------------------

Writer = Callable[[Path, bytes], Path]
"""Make the hostile file at a path (given a valid first line for JSON lines); return the
path to pass on the command line."""


def _fifo(path: Path, head: bytes) -> Path:
    os.mkfifo(path)
    return path


def _directory(path: Path, head: bytes) -> Path:
    path.mkdir()
    return path


def _dev_zero(path: Path, head: bytes) -> Path:
    return Path("/dev/zero")


def _missing(path: Path, head: bytes) -> Path:
    return path


def _loop(path: Path, head: bytes) -> Path:
    path.symlink_to(path.name)
    return path


def _content(body: bytes, whole: bool = False) -> Writer:
    """A file holding `body` (after the valid first line, for JSON lines, unless `whole`)."""

    def write(path: Path, head: bytes) -> Path:
        path.write_bytes(body if whole else head + body)
        return path

    return write


def _sparse(size: int) -> Writer:
    """The valid first line, then zero bytes up to `size` (sparse: nothing on disk)."""

    def write(path: Path, head: bytes) -> Path:
        with path.open("wb") as handle:
            handle.write(head)
            handle.truncate(size)
        return path

    return write


def _utf16(path: Path, head: bytes) -> Path:
    path.write_bytes((head + b'{"a": 1}\n').decode("utf-8").encode("utf-16"))
    return path


GBK = "中文".encode("gbk")


@dataclass(frozen=True)
class Hostile:
    """One class of hostile file and the words its message must hold."""

    write: Writer
    says: str


PATH_CLASSES = {
    "fifo": Hostile(_fifo, "expected a regular file; found a named pipe (FIFO)"),
    "directory": Hostile(_directory, "expected a regular file; found a directory"),
    "dev-zero": Hostile(_dev_zero, "expected a regular file; found a character device"),
    "missing": Hostile(_missing, "found no such file"),
    "symlink-loop": Hostile(_loop, "expected a regular file; found a loop of symbolic links"),
}
ENCODING_CLASSES = {
    "gbk": Hostile(_content(b'{"text": "' + GBK + b'"}\n'), "which is not UTF-8"),
    "utf-16": Hostile(_utf16, "found UTF-16 text (a UTF-16 byte order mark)"),
}
JSON_CLASSES = {
    **PATH_CLASSES,
    **ENCODING_CLASSES,
    "duplicate-key": Hostile(
        _content(b'{"id": "a", "id": "b"}\n'),
        "expected each key at most once in an object; found the key 'id' twice",
    ),
    "nan": Hostile(_content(b'{"latency_ms": NaN}\n'), "expected a finite number; found NaN"),
    "infinity": Hostile(
        _content(b'{"cost_usd": -Infinity}\n'), "expected a finite number; found -Infinity"
    ),
    "1e400": Hostile(
        _content(b'{"score": 1e400}\n'),
        "expected a finite number; found 1e400 (beyond the largest number, about 1.8e308)",
    ),
    "long-integer": Hostile(
        _content(b'{"grade": 1' + b"0" * 5000 + b"}\n"),
        "expected integers of at most 4300 digits; found an integer of more than 4300 digits",
    ),
    "deep-100k": Hostile(
        _content(b"[" * 100_000 + b"]" * 100_000 + b"\n"),
        "expected at most 200 levels of nested arrays and objects; found deeper nesting",
    ),
    "deep-201": Hostile(
        _content(b"[" * 201 + b"]" * 201 + b"\n"),
        "expected at most 200 levels of nested arrays and objects; found deeper nesting",
    ),
    "lone-surrogate": Hostile(
        _content(b'{"answer": "\\ud800"}\n'),
        "expected text UTF-8 can encode; found a lone surrogate escape \\ud800 in a string",
    ),
    "empty": Hostile(_content(b"", whole=True), "found an empty file"),
}
JSON_DOCUMENT_HUGE = Hostile(
    _sparse(MAX_DOCUMENT_BYTES + 1),
    f"of at most 256 MiB; found {MAX_DOCUMENT_BYTES + 1} bytes",
)
JSONL_HUGE = Hostile(
    _sparse(MAX_LINE_BYTES + 100), "line 2: expected a line of at most 64 MiB; found a longer line"
)
TOML_CLASSES = {
    **PATH_CLASSES,
    "gbk": Hostile(_content(b'name = "' + GBK + b'"\n', whole=True), "which is not UTF-8"),
    "utf-16": Hostile(_utf16, "found UTF-16 text (a UTF-16 byte order mark)"),
    "duplicate-key": Hostile(
        _content(b"a = 1\na = 2\n", whole=True), "expected valid TOML; found Cannot overwrite"
    ),
    "nan": Hostile(_content(b"a = nan\n", whole=True), "a: expected a finite number; found NaN"),
    "infinity": Hostile(
        _content(b"a = -inf\n", whole=True), "a: expected a finite number; found -Infinity"
    ),
    "long-integer": Hostile(
        _content(b"a = 1" + b"0" * 5000 + b"\n", whole=True),
        "expected integers of at most 4300 digits",
    ),
    "deep-100k": Hostile(
        _content(b"a = " + b"[" * 100_000 + b"]" * 100_000 + b"\n", whole=True),
        "expected at most 200 levels of nested arrays and objects; found deeper nesting",
    ),
    "deep-201": Hostile(
        _content(b"a = " + b"[" * 201 + b"]" * 201 + b"\n", whole=True),
        "expected at most 200 levels of nested arrays and objects; found deeper nesting",
    ),
    "huge": Hostile(
        _sparse(MAX_DOCUMENT_BYTES + 1),
        f"expected a TOML document of at most 256 MiB; found {MAX_DOCUMENT_BYTES + 1} bytes",
    ),
}
TEXT_CLASSES = {
    **PATH_CLASSES,
    "gbk": Hostile(_content(b"q1 0 " + GBK + b" 1\n"), "which is not UTF-8"),
    "utf-16": Hostile(_utf16, "found UTF-16 text (a UTF-16 byte order mark)"),
    "long-line": Hostile(
        _sparse(MAX_LINE_BYTES + 100), "line 2: expected a line of at most 64 MiB"
    ),
}
FEW = ("fifo", "directory", "dev-zero", "missing", "symlink-loop", "nan", "duplicate-key",
       "deep-100k", "empty")
"""The classes tried in every further command reading a kind of file already tried whole."""

# --- valid inputs and roles -----------------------------------------------------------------

E, S, R, R2, POL = "evalset.json", "snapshot.json", "runs/baseline.json", "runs/improved.json", (
    "policy.toml"
)
DATA = [E, "--snapshot", S]


@dataclass(frozen=True)
class Role:
    """A file's place in a command: the suffix it has there, its valid first line (JSON
    lines), the arguments given the file, and which classes to try."""

    suffix: str
    args: Callable[[str], list[str]]
    classes: dict[str, Hostile]
    head: bytes = b""


def _jsonl_head(kind: str) -> bytes:
    extra = {
        "evalset": {"id": "h", "snapshot_id": "demo"},
        "run": {"name": "baseline"},
        "snapshot": {"id": "s"},
        "labels": {"run": "baseline"},
    }[kind]
    return json.dumps({"kind": kind, "schema_version": 1, **extra}).encode() + b"\n"


def _few(classes: dict[str, Hostile]) -> dict[str, Hostile]:
    return {name: hostile for name, hostile in classes.items() if name in FEW}


def _json_role(args: Callable[[str], list[str]], suffix: str = ".json", kind: str = "run",
               every: bool = True, whole: bool = False) -> Role:
    """`whole`: a JSON lines file read whole (bounded as a document, not line by line)."""
    classes = dict(JSON_CLASSES if every else _few(JSON_CLASSES))
    if every:
        classes["huge"] = JSON_DOCUMENT_HUGE if suffix == ".json" or whole else JSONL_HUGE
    head = _jsonl_head(kind) if suffix == ".jsonl" else b""
    return Role(suffix, args, classes, head)


ROLES: dict[str, Role] = {
    "evaluate evalset": _json_role(lambda p: ["evaluate", p, "--snapshot", S, "--run", R]),
    "evaluate evalset.jsonl": _json_role(
        lambda p: ["evaluate", p, "--snapshot", S, "--run", R], ".jsonl", "evalset"
    ),
    "evaluate snapshot": _json_role(lambda p: ["evaluate", E, "--snapshot", p, "--run", R]),
    "evaluate snapshot.jsonl": _json_role(
        lambda p: ["evaluate", E, "--snapshot", p, "--run", R], ".jsonl", "snapshot"
    ),
    "evaluate run": _json_role(lambda p: ["evaluate", *DATA, "--run", p]),
    "evaluate run.jsonl": _json_role(lambda p: ["evaluate", *DATA, "--run", p], ".jsonl"),
    "evaluate labels": _json_role(lambda p: ["evaluate", *DATA, "--run", R, "--labels", p]),
    "evaluate labels.jsonl": _json_role(
        lambda p: ["evaluate", *DATA, "--run", R, "--labels", p], ".jsonl", "labels"
    ),
    "evaluate article": _json_role(lambda p: ["evaluate", p, "-k", "2"]),
    "evaluate calibration": _json_role(
        lambda p: ["evaluate", *DATA, "--run", R, "--calibration", p]
    ),
    "evaluate versions": _json_role(lambda p: ["evaluate", *DATA, "--run", R, "--versions", p]),
    "evaluate versions.toml": Role(
        ".toml", lambda p: ["evaluate", *DATA, "--run", R, "--versions", p], TOML_CLASSES
    ),
    "evaluate ledger": Role(
        ".jsonl",
        lambda p: ["evaluate", *DATA, "--run", R, "--include-holdout", "--ledger", p],
        {k: v for k, v in _few(JSON_CLASSES).items() if k not in ("missing", "empty")},
        b"",
    ),
    "diagnose run": _json_role(lambda p: ["diagnose", *DATA, "--run", p], every=False),
    "compare run": _json_role(lambda p: ["compare", *DATA, "--run", R, "--run", p], every=False),
    "report run": _json_role(lambda p: ["report", *DATA, "--run", p, "-o", "r.html"], every=False),
    "gate run": _json_role(
        lambda p: ["gate", *DATA, "--run", p, "--policy", POL], every=False
    ),
    "gate policy": Role(".toml", lambda p: ["gate", *DATA, "--run", R, "--policy", p],
                        TOML_CLASSES),
    "export trec run": _json_role(
        lambda p: ["export", "trec", E, "--run", p, "--run-out", "x.run", "--qrels-out", "x.qrels"],
        every=False,
    ),
    "review export run": _json_role(
        lambda p: ["review", "export", *DATA, "--run", p, "-o", "s.csv"], every=False
    ),
    "judge run": _json_role(
        lambda p: ["judge", *DATA, "--run", p, "--judge", "lexical", "-o", "judged"], every=False
    ),
    "run evalset": _json_role(lambda p: ["run", p, "--snapshot", S, "-o", "new.jsonl"],
                              every=False),
    "calibrate judge labels": _json_role(
        lambda p: ["calibrate", "--judge-labels", p, "--human-labels", "human.json"], every=False
    ),
    "import ragas": _json_role(lambda p: ["import", "ragas", p, "-o", "imported"]),
    "import ragas.jsonl": _json_role(lambda p: ["import", "ragas", p, "-o", "imported"], ".jsonl"),
    "import deepeval": _json_role(lambda p: ["import", "deepeval", p, "-o", "imported"],
                                  every=False),
    "import seed": _json_role(lambda p: ["import", "seed", p, "-o", "imported"], every=False),
    "import openinference traces": _json_role(
        lambda p: ["import", "openinference", E, p, "-o", "traced.jsonl"], ".jsonl", whole=True
    ),
    "import tau2 tasks": Role(
        ".json", lambda p: ["import", "tau2", str(Path(p).parent), "-o", "tau2out"],
        {k: v for k, v in _few(JSON_CLASSES).items() if k != "dev-zero"},  # a folder's file
    ),
    "trec-eval qrels": Role(".qrels", lambda p: ["trec-eval", p, "valid.run"], TEXT_CLASSES,
                            b"q1 0 d1 1\n"),
    "trec-eval run": Role(".run", lambda p: ["trec-eval", "valid.qrels", p], TEXT_CLASSES,
                          b"q1 Q0 d1 1 2.5 t\n"),
    "import trec qrels": Role(
        ".qrels", lambda p: ["import", "trec", "--qrels", p, "--trec-run", "valid.run", "-o",
                             "trecout"], _few(TEXT_CLASSES), b"q1 0 d1 1\n"
    ),
    "review import sheet": Role(
        ".csv", lambda p: ["review", "import", *DATA, "--run", R, p, "-o", "reviewed"],
        {k: v for k, v in TEXT_CLASSES.items() if k not in ("long-line", "dev-zero")},
        b"run,question_id\n",
    ),
    "import ragas.csv": Role(".csv", lambda p: ["import", "ragas", p, "-o", "imported"],
                             {k: v for k, v in TEXT_CLASSES.items() if k != "long-line"},
                             b"question,response\n"),
}

CASES = [(role, name) for role, spec in ROLES.items() for name in spec.classes]


@dataclass(frozen=True)
class Case:
    """One hostile file in one role: its path as given and the outcome."""

    path: str
    outcome: Outcome


def _valid_inputs(root: Path) -> None:
    shutil.copytree(EXAMPLE, root, dirs_exist_ok=True)
    (root / "human.json").write_text(
        json.dumps({"kind": "labels", "schema_version": 1, "run": "baseline",
                    "claim_labels": [], "fact_labels": []}),
        encoding="utf-8",
    )
    (root / "valid.qrels").write_text("q1 0 d1 1\n", encoding="utf-8")
    (root / "valid.run").write_text("q1 Q0 d1 1 2.5 t\n", encoding="utf-8")


@pytest.fixture(scope="module")
def outcomes(tmp_path_factory: pytest.TempPathFactory) -> dict[tuple[str, str], Case]:
    root = tmp_path_factory.mktemp("hostile")
    _valid_inputs(root)
    paths = []
    for number, (role, name) in enumerate(CASES):
        spec = ROLES[role]
        folder = root / f"case{number}"
        folder.mkdir()
        if role == "import tau2 tasks":
            with gzip.open(folder / "documents.json.gz", "wt", encoding="utf-8") as handle:
                json.dump([{"id": "d1", "title": "T", "content": "C"}], handle)
            target = folder / "tasks.json"
        else:
            target = folder / f"hostile{spec.suffix}"
        paths.append(spec.classes[name].write(target, spec.head))
    results = run_batch(
        [ROLES[role].args(str(path)) for (role, _), path in zip(CASES, paths, strict=True)],
        root,
    )
    return {
        case: Case(str(path), outcome)
        for case, path, outcome in zip(CASES, paths, results, strict=True)
    }


@pytest.mark.parametrize(("role", "name"), CASES, ids=[f"{r}:{n}" for r, n in CASES])
def test_hostile_file_is_refused_cleanly(
    outcomes: dict[tuple[str, str], Case], role: str, name: str
) -> None:
    case = outcomes[(role, name)]
    says = ROLES[role].classes[name].says
    assert (case.outcome.code, "Traceback" in case.outcome.stderr) == (2, False), (
        case.outcome.stderr[-1500:]
    )
    lines = [line for line in case.outcome.stderr.splitlines() if says in line]
    assert lines, case.outcome.stderr[-1500:]
    assert all(case.path in line for line in lines), lines


def test_every_class_is_tried_whole_for_each_kind_of_file() -> None:
    whole = {
        kind: sorted(
            role for role, spec in ROLES.items() if spec.classes.items() >= classes.items()
        )
        for kind, classes in (("json", JSON_CLASSES), ("toml", TOML_CLASSES),
                              ("text", TEXT_CLASSES))
    }
    assert {kind: len(roles) for kind, roles in whole.items()} == {
        "json": 14, "toml": 2, "text": 2
    }
    assert len(CASES) == 414
