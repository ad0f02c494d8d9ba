"""Reading JSON and JSONL files into models, turning every parse or schema error into a Problem."""

from __future__ import annotations

import contextlib
import hashlib
import io
import threading
import typing
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar, cast

from .._console import visible
from ..errors import InputError, Problem, ProblemCollector, counted, did_you_mean, found_text
from ..fileio import open_input, parse_json, room_for_a_thread, text_lines
from ..paths import PathArg, as_path

if TYPE_CHECKING:  # pydantic is imported by the functions that validate (not by hashing)
    from pydantic import BaseModel, ValidationError

M = TypeVar("M", bound="BaseModel")


@dataclass(frozen=True)
class SourceFile:
    """An input file as read: where it was, what kind it held and its content hash."""

    path: str
    """The path as the user gave it."""
    kind: str
    """`snapshot`, `evalset`, `run`, `labels` or `article`."""
    sha256: str
    """SHA-256 of the file's bytes."""


def report_head(tool_version: str, sources: Iterable[SourceFile]) -> dict[str, Any]:
    """The keys every JSON report starts with: `schema_version`, the `tool` that wrote it and
    the `inputs` it read (path, kind and SHA-256 of each file)."""
    return {
        "schema_version": 1,
        "tool": {"name": "ragtriage", "version": tool_version},
        "inputs": [{"path": s.path, "kind": s.kind, "sha256": s.sha256} for s in sources],
    }


_PACKAGE_ROOT = Path(__file__).resolve().parents[1]

REQUIRED = "a value (required field)"
"""What a problem expects where a required field is missing (and finds `nothing`)."""


def display_path(path: PathArg) -> str:
    """How a path appears in reports: as given, except files shipped inside the package.

    Bundled example files are named relative to the package (`ragtriage:example/...`) so that
    the same inputs give byte-identical reports wherever the package is installed. A control
    character or an undecodable byte (`$'\\xff'`, held as the lone surrogate `\\udcff`, which
    no report could write) is written as its escape, as the terminal shows it (`visible`).
    """
    path = as_path(path)
    try:
        inside = path.resolve().relative_to(_PACKAGE_ROOT)
    except (ValueError, OSError, RuntimeError):  # RuntimeError: a loop of symbolic links
        return visible(str(path))
    return f"ragtriage:{inside.as_posix()}"


def file_sha256(path: PathArg) -> str:
    """SHA-256 of a file, read in blocks."""
    with open_input(as_path(path)) as handle:  # a BufferedReader, which file_digest reads into
        return hashlib.file_digest(cast(io.BufferedReader, handle), "sha256").hexdigest()


def file_sha256_later(paths: Sequence[PathArg]) -> Callable[[], list[str]]:
    """`file_sha256` of each file, begun now in a second thread (hashlib releases the GIL)
    so that hashing overlaps other work; the call returned waits for it. A file that could
    not be hashed there is hashed again by that call, which raises what `file_sha256` does."""
    found: list[str] = []
    if not room_for_a_thread():  # near `ulimit -v`: hashed when asked, by the caller
        return lambda: [file_sha256(path) for path in paths]

    def run() -> None:
        with contextlib.suppress(Exception):
            found.extend(file_sha256(path) for path in paths)

    worker = threading.Thread(target=run, name="ragtriage-sha256", daemon=True)
    worker.start()

    def result() -> list[str]:
        worker.join()
        return found + [file_sha256(path) for path in paths[len(found) :]]

    return result


def _loc(loc: tuple[int | str, ...], data: Any = None) -> str:
    """A pydantic location as a field path; a claim is named by its ID (`claims[c2]`).

    A claim without an ID is `c` and its 1-based position, as everywhere else
    (`schemas.claim_ids`); so is one whose ID holds a control character (the problem shows it
    escaped, the path never draws it).
    """
    from ..schemas import claim_ids, plain_ids  # here: hashing a file must not import pydantic

    parts: list[str] = []
    here = data
    previous: int | str | None = None
    for item in loc:
        if isinstance(item, int):
            if previous == "claims":
                claim = here[item] if isinstance(here, list) and item < len(here) else None
                given = claim.get("id") if isinstance(claim, dict) else None
                own = given if isinstance(given, str) and plain_ids((given,)) else None
                parts.append(f"[{claim_ids([own], start=item + 1)[0]}]")
            else:
                parts.append(f"[{item}]")
        else:
            parts.append(("." if parts else "") + item)
        if isinstance(here, dict) and isinstance(item, str):
            here = here.get(item)
        elif isinstance(here, list) and isinstance(item, int) and item < len(here):
            here = here[item]
        else:
            here = None
        previous = item
    return "".join(parts) or "(record)"


def _model_fields(annotation: Any) -> list[type[BaseModel]]:
    """The pydantic models an annotation holds (through lists, unions and Optional)."""
    from pydantic import BaseModel

    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return [annotation]
    return [m for arg in typing.get_args(annotation) for m in _model_fields(arg)]


def known_fields(model: type[BaseModel], loc: tuple[int | str, ...]) -> set[str]:
    """The field names (as spelt in files) valid at `loc` inside `model` (empty when unknown)."""
    models = [model]
    for item in loc:
        if isinstance(item, int):
            continue
        found: list[type[BaseModel]] = []
        for m in models:
            info = m.model_fields.get(item) or next(
                (f for f in m.model_fields.values() if f.alias == item), None
            )
            if info is not None:
                found += _model_fields(info.annotation)
        models = found
    return {f.alias or name for m in models for name, f in m.model_fields.items()}


def pydantic_problems(
    error: ValidationError,
    file: str,
    question_id: str | None,
    prefix: str = "",
    record: str = "question",
    *,
    model: type[BaseModel] | None = None,
    data: Any = None,
) -> list[Problem]:
    """Translate a pydantic error into problems naming the field, expected and found;
    `record`: what `question_id` identifies (`question`, `document` or `chunk`).

    With the `model` and the `data` validated, claims are named by ID and an unknown field
    close to a known one says which (`found an unknown field (did you mean 'answer'?)`).
    """
    from ..schemas import IDENTIFIER_EXPECTED, IDENTIFIER_PATTERN

    problems = []
    for item in error.errors(include_url=False):
        loc = tuple(item["loc"])
        # A record that is no object at all is named by the prefix (`results[0]`, `sync`).
        field = prefix[:-1] if not loc and prefix.endswith(".") else prefix + _loc(loc, data)
        kind = item["type"]
        if kind == "missing":
            expected, found = REQUIRED, "nothing"
        elif kind == "extra_forbidden":
            hint = ""
            if model is not None and loc and isinstance(loc[-1], str):
                hint = did_you_mean(loc[-1], known_fields(model, loc[:-1]))
            expected = "no such field (it is not part of the format)"
            found = "an unknown field" + hint
        elif kind in ("bool_type", "bool_parsing"):  # as the rule files say it
            expected, found = "true or false", found_text(item.get("input"))
        elif kind == "model_type":  # pydantic's words name the class: "instance of Claim"
            expected, found = "an object", found_text(item.get("input"))
        elif kind == "too_short":  # a list shorter than its Field(min_length)
            least, length = item["ctx"]["min_length"], item["ctx"]["actual_length"]
            expected = f"a list of at least {counted(least, 'item')}"
            found = counted(length, "item") if length else "an empty list"
        elif kind == "string_too_short" and item.get("ctx", {}).get("min_length") == 1:
            expected, found = "a non-empty string", "an empty string"
        elif kind == "string_pattern_mismatch" and item["ctx"]["pattern"] == IDENTIFIER_PATTERN:
            expected, found = IDENTIFIER_EXPECTED, found_text(item.get("input"))
        else:
            message = str(item["msg"])
            expected = message.removeprefix("Input should be ").removeprefix("Value error, ")
            found = found_text(item.get("input"))
        problems.append(Problem(file, question_id, field, expected, found, record))
    return problems


def iter_jsonl(path: Path, label: str, collector: ProblemCollector) -> Iterator[tuple[int, str]]:
    """Yield (line number, line) of a JSONL file, skipping blank lines; streams the file.

    A line that is not UTF-8 text is collected and skipped, as a line that is not JSON is; a
    problem with the file itself (not a regular file, a line past the bound) is collected and
    ends the iteration.
    """
    try:
        for number, line in text_lines(path, label, problems=collector):
            if line.strip():
                yield number, line
    except InputError as exc:
        collector.extend(exc.problems)


def validate_item(
    model: type[M],
    data: Any,
    file: str,
    collector: ProblemCollector,
    id_key: str | None,
    prefix: str = "",
    record: str = "question",
) -> M | None:
    """Validate one record (already parsed), naming its ID (a question's, or the `record`
    kind's) in problems."""
    from pydantic import ValidationError

    try:
        return model.model_validate(data)
    except ValidationError as exc:
        qid = data.get(id_key) if id_key and isinstance(data, dict) else None
        collector.extend(
            pydantic_problems(
                exc,
                file,
                qid if isinstance(qid, str) and qid else None,  # '' names no record
                prefix,
                record,
                model=model,
                data=data,
            )
        )
        return None


def parse_line(
    line: str, number: int, file: str, collector: ProblemCollector
) -> tuple[bool, Any]:
    """(parsed, value) of one JSONL line parsed strictly; a problem is collected."""
    try:
        return True, parse_json(line, file, number)
    except InputError as exc:
        collector.extend(exc.problems)
        return False, None

