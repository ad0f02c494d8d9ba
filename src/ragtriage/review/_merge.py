"""Put a sheet's labels into a run's labels file that other reviewers may already have filled.

Labels keep who made them, so two reviewers' sheets for the same run go into one file side by
side. A reviewer's labels already in the file are replaced only when asked (`force`): a second
import of the same reviewer's sheet is more often a mistake than an update.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..errors import ProblemCollector
from ..fileio import file_problem
from ..loading import read_file
from ..paths import PathArg, as_path
from ..schemas import Labeller, LabelSet


def _who(labeller: Labeller) -> tuple[str, str]:
    return labeller.kind, labeller.name


@dataclass(frozen=True)
class Merged:
    """A run's labels after the merge, and what happened to the file's earlier labels."""

    labels: LabelSet
    """Earlier labels kept, then the sheet's."""
    kept: int
    """Earlier labels kept: those by no reviewer of the sheet's labels (every earlier label
    when the sheet has none, the same reviewer's included)."""
    replaced: int
    """Earlier labels of the sheet's reviewers dropped (only with `force`)."""


def merge_into_file(path: PathArg, new: LabelSet, *, force: bool = False) -> Merged:
    """`new` merged with the labels already in `path` (if it exists); raise on a clash.

    Raises `InputError` when the file is not a labels file of the same run, or holds labels
    of a reviewer of `new` and `force` is false.
    """
    path = as_path(path)
    if not path.exists():
        return Merged(new, 0, 0)
    collector = ProblemCollector()
    loaded = read_file(path, collector, label=str(path))
    collector.raise_if_any()
    old = loaded.content
    if not isinstance(old, LabelSet) or old.run != new.run:
        found = f"a labels file of run {old.run!r}" if isinstance(old, LabelSet) else "another kind"
        raise file_problem(str(path), f"a labels file of run {new.run!r}", found, "run")
    ours = {_who(e.label.labeller) for e in new.claim_labels}
    ours |= {_who(e.label.labeller) for e in new.fact_labels}
    earlier = [e.label.labeller for e in old.claim_labels] + [
        e.label.labeller for e in old.fact_labels
    ]
    clash = sorted({_who(who) for who in earlier} & ours)
    if clash and not force:
        names = ", ".join(f"{kind} {name!r}" for kind, name in clash)
        expected = "no labels yet by this sheet's reviewers (--force replaces them)"
        raise file_problem(str(path), expected, f"labels by {names}", "labeller")
    claims = [e for e in old.claim_labels if _who(e.label.labeller) not in ours]
    facts = [e for e in old.fact_labels if _who(e.label.labeller) not in ours]
    kept = len(claims) + len(facts)
    merged = new.model_copy(
        update={
            "claim_labels": [*claims, *new.claim_labels],
            "fact_labels": [*facts, *new.fact_labels],
        }
    )
    return Merged(merged, kept, len(earlier) - kept)
