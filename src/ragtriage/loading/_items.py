"""The items of a file's lists (questions, results, documents, labels, an article file's cases
and results): each validated apart, named in its problems by its ID."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..errors import ProblemCollector, found_text
from ..schemas import with_default_labeller
from ._files import validate_item


@dataclass(frozen=True)
class Items:
    """One list of a file: its key in a JSON file and the model of each item."""

    key: str
    model: type[Any]
    id_key: str
    """The field whose value names an item in problems (the ID of a question or `record`)."""
    record: str = "question"
    marker: str | None = None
    """A field only this list's items have: a JSONL line holding it is one of them (the
    other lines are items of the list without a marker)."""
    name_key: str | None = None
    """The field (of the item, or of its label) naming an item of a JSON file in problems
    (`claim_labels[c2].`) when its `id_key` does not identify it alone."""
    blank: dict[str, Any] | None = None
    """The fields of a blank item besides its ID (see `stand_in`); None: no stand-in."""

    def stand_in(self, data: Any) -> Any:
        """What takes the place of an item the schema refused in `LoadedFile.rest`: a blank
        question or result with the item's ID, so that the checks of the other items see the
        ID (a result for it is not unknown, a second question with it is a repeat, a
        suggestion may name it). None without a valid ID."""
        from pydantic import ValidationError

        found = data.get(self.id_key) if isinstance(data, dict) else None
        if self.blank is None or not isinstance(found, str):
            return None
        try:
            return self.model.model_validate({self.id_key: found, **self.blank})
        except ValidationError:
            return None


def validate_list(
    items: Any,
    spec: Items,
    label: str,
    collector: ProblemCollector,
    default: Any = None,
    within: str = "",
) -> list[Any]:
    """Validate each item of a JSON file's list (`within` the path of what holds it, as
    `runs[r].`), given a labels file's `default` labeller as a JSONL line is; an item is
    named in its problems by its `name_key` (`key[NAME].`), else by its place when its ID
    does not name it."""
    key = within + spec.key
    if not isinstance(items, list):
        collector.add(label, None, key, "a list", found_text(items))
        return []
    out = []
    for index, entry in enumerate(items):
        item = with_default_labeller(entry, default)
        qid = item.get(spec.id_key) if isinstance(item, dict) else None
        has_id = isinstance(qid, str) and qid != ""  # '' names no record: its place does
        prefix = within if has_id else f"{key}[{index}]."
        name = None if spec.name_key is None else _entry_name(item, spec.name_key)
        if name is not None:
            prefix = f"{key}[{name}]."
        valid = validate_item(spec.model, item, label, collector, spec.id_key, prefix, spec.record)
        if valid is None:
            valid = spec.stand_in(item)
        if valid is not None:
            out.append(valid)
    return out


def _entry_name(item: Any, id_key: str) -> str | None:
    """A label entry's claim ID (or its label's fact ID): it names the entry in problems."""
    if not isinstance(item, dict):
        return None
    found = item.get(id_key)
    if found is None and isinstance(item.get("label"), dict):
        found = item["label"].get(id_key)
    return found if isinstance(found, str) and found else None
