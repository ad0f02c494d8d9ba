"""Read a native evaluation set or run keeping only what the caller needs of each item."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Literal, TypeVar

from .._collector import no_cycle_collection
from ..errors import ProblemCollector
from ..paths import PathArg, as_path, file_suffix
from ..schemas import EvalSet, QuestionResult, Run
from ._files import display_path
from ._readers import Wanted, _from_jsonl, _labellers_once, _result_labellers, read_file

T = TypeVar("T")


@no_cycle_collection()  # as read_file: a model per record, none in a cycle
def read_kept(
    path: PathArg,
    kind: Literal["evalset", "run"],
    keep: Callable[[Any], T],
    collector: ProblemCollector,
) -> tuple[Any, list[T]] | None:
    """The header of a native evaluation set or run (`kind`) and `keep` of each of its
    questions or results, in file order; None, with exactly the problems `read_file` reports
    added to `collector`, when it has any.

    A JSONL file is read a line at a time and each question or result let go once kept, so
    memory holds what `keep` returns, not the models (`export trec` at any size); a JSON
    file is read whole."""
    path, shown = as_path(path), display_path(path)
    wanted = Wanted((kind,), kind)
    if file_suffix(path) != ".jsonl":
        loaded = read_file(path, collector, shown, wanted)
        content = loaded.content
        if not isinstance(content, EvalSet | Run):
            return None
        items = content.questions if isinstance(content, EvalSet) else content.results
        return content, [keep(item) for item in items]
    twice = ProblemCollector()  # read_file names them after every line's problems

    def kept(item: Any) -> T:
        if isinstance(item, QuestionResult):
            _labellers_once(_result_labellers(item), shown, twice)
        return keep(item)

    before = len(collector.problems)
    head, lists = _from_jsonl(path, shown, collector, wanted, kept)
    if head is None:  # read_file makes no content of the lines: none is checked together
        return None
    collector.extend(twice.problems)
    if len(collector.problems) > before:
        return None
    return head, lists["questions" if kind == "evalset" else "results"]
