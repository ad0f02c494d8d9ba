"""An answer's claims and fact labels (a native result's `claims`, `fact_labels` and the labels
of label files for it): checked and read into arrays in one pass over each label.

Every check of the schema (`Claim`, `ClaimLabel`, `FactLabel`, `Labeller`) and of the rules
`validation.check_dataset` applies to labels is made here, on the parsed JSON; any problem
raises `_Fallback` (the loader then names it). The label choice is `schemas.counted_labels`,
the verdict it gives `schemas.agreed_verdict`.
"""

from __future__ import annotations

from array import array
from collections.abc import Callable, Sequence
from itertools import chain
from sys import intern
from typing import Any

import orjson

from ..detectors import fresh_labels
from ..metrics import CLAIM_STATES, COUNTED, FACT_STATES, FRESH
from ..schemas import (
    CONTEXT_HASH,
    LabelPolicy,
    agreed_verdict,
    claim_ids,
    counted_labels,
    is_text,
    labelled_twice,
    plain_ids,
    record_kind,
)
from ._native_checks import (
    CLAIM_KEYS,
    CLAIM_LABEL_KEYS,
    CLAIM_VERDICTS,
    FACT_LABEL_KEYS,
    FACT_VERDICTS,
    NO_LIST,
    ids,
    labeller_rest_ok,
)
from ._native_labels import Added
from ._trec import _Fallback

Label = dict[str, Any]

_CLAIM_CODE: dict[str, int] = {state: code for code, state in enumerate(CLAIM_STATES)}
_FACT_CODE: dict[str, int] = {state: code for code, state in enumerate(FACT_STATES)}
_UNLABELLED_FACT = _FACT_CODE["unlabelled"]


_ALL = FRESH | COUNTED


def _tally(
    labels: list[Label],
    chosen: list[Label],
    hash_now: str | None,
    policy: LabelPolicy,
    codes: dict[str, int],
    marks: list[int],
) -> tuple[int, list[Label]]:
    """The state code of one claim's or fact's labels (`chosen`: those `policy` counts) and
    the labels counted once the stale ones are left out (`hash_now`: the result's context
    hash, None when no label records one); each label's marks appended to `marks`.

    The verdict is `schemas.agreed_verdict`'s (`unlabelled` without a counted label); the
    marks say whether a label is fresh (`metrics.FRESH`) and counted (`metrics.COUNTED`)."""
    if hash_now is None:
        if len(chosen) == len(labels):  # the common case: every label fresh and counted
            marks.extend([_ALL] * len(labels))
            if len(chosen) == 1:  # one counted label: its verdict (as `agreed_verdict`)
                return codes[chosen[0]["verdict"]], chosen
        else:
            marks.extend(_marks(labels, labels, chosen))
    else:
        fresh = fresh_labels(labels, hash_now)
        chosen = counted_labels(fresh, policy, record_kind)
        marks.extend(_marks(labels, fresh, chosen))
    verdict = agreed_verdict([lab["verdict"] for lab in chosen])
    return codes["unlabelled" if verdict is None else verdict], chosen


def _marks(labels: list[Label], fresh: list[Label], chosen: list[Label]) -> list[int]:
    """Each of `labels`' marks (`metrics.FRESH`, `metrics.COUNTED`): whether it is among
    `fresh` and `chosen` (subsequences of `labels`)."""
    if len(chosen) == len(labels):
        return [_ALL] * len(labels)
    counted = {id(lab) for lab in chosen}
    if fresh is labels:
        return [FRESH | (COUNTED if id(lab) in counted else 0) for lab in labels]
    kept = {id(lab) for lab in fresh}
    return [
        (FRESH if id(lab) in kept else 0) | (COUNTED if id(lab) in counted else 0)
        for lab in labels
    ]


_NO_LABELS: dict[str, list[Label]] = {}
"""No claim labels from label files (never changed)."""


_SELF_MADE = 1
_STAMPED = 2
_BY_JUDGE = 4


def _known(get: Callable[[Any, int], int], values: Any) -> list[int] | None:
    """The codes of a list's values (-1 for an unknown ID); None for anything but a list, or
    a value that cannot be looked up (a list or an object)."""
    if type(values) is not list:
        return None
    try:  # the lists are short: a comprehension is quicker than a map here
        return [get(value, -1) for value in values]
    except TypeError:
        return None


def _label(lab: Any, keys: frozenset[str], verdicts: tuple[str, ...], generator: str | None,
           labellers: set[str]) -> int:
    """Check the fields claim and fact labels share (`_Fallback` on a problem): the keys, the
    labeller (a judge names its prompt version; its name is added to `labellers`, checked
    for control characters once the run is read), the verdict, the reason and the context
    hash. Flags: `_SELF_MADE` (a judge named as the run's generator), `_STAMPED` (a context
    hash), `_BY_JUDGE` (a judge's label)."""
    if type(lab) is not dict or not lab.keys() <= keys:
        raise _Fallback("label")
    who = lab.get("labeller")
    if type(who) is not dict:
        raise _Fallback("labeller")
    kind, by = who.get("kind"), who.get("name")
    if type(by) is not str or not by or (len(who) != 2 and not labeller_rest_ok(who)):
        raise _Fallback("labeller")
    labellers.add(by)
    flags = 0
    if kind == "judge":
        if not who.get("prompt_version"):
            raise _Fallback("judge without a prompt version")
        flags = _BY_JUDGE | (_SELF_MADE if by == generator else 0)
    elif kind != "human":
        raise _Fallback("labeller kind")
    elif who.get("prompt_version") is not None:
        raise _Fallback("a person with a prompt version")
    if lab.get("verdict") not in verdicts:
        raise _Fallback("verdict")
    stamp, reason = lab.get("context_hash"), lab.get("reason")
    if stamp is not None:
        if type(stamp) is not str or not CONTEXT_HASH.fullmatch(stamp):
            raise _Fallback("context_hash")
        flags |= _STAMPED
    if reason is not None and type(reason) is not str:
        raise _Fallback("reason")
    return flags


def _twice(labels: list[Label], facts: bool) -> bool:
    """Whether one labeller labels an item more than once among `labels` (checked: a claim's,
    or a result's fact labels), as `schemas.labelled_twice` tells."""
    whos = [lab["labeller"] for lab in labels]
    return bool(labelled_twice(
        (lab["fact_id"] if facts else None, who["kind"], who["name"], who.get("prompt_version"))
        for lab, who in zip(labels, whos, strict=True)
    ))


def labeller_key(who: dict[str, Any]) -> bytes:
    """A labeller as parsed JSON, as the one text every equal labeller gives (sorted keys):
    how the run's table of judges holds each distinct one once, in each part and joined."""
    return orjson.dumps(who, option=orjson.OPT_SORT_KEYS)


class Reviews:
    """The claims and fact labels of a run's results, as arrays (see `RunColumns`)."""

    def __init__(
        self,
        code: dict[str, int],
        policy: LabelPolicy,
        *,
        unreviewed_ok: bool,
        accept_self: bool,
        generator: str | None,
        added: Added,
        as_written: bool,
    ) -> None:
        self._code = code
        self._as_written = as_written
        """The results are a run file's as written, their labels its own (a loaded dataset's
        carry its label files' too, each file checked for labels given twice when read)."""
        self._policy = policy
        self._unreviewed_ok = unreviewed_ok
        self._accept_self = accept_self
        self._generator = generator
        self._added = added
        self.claim_n: list[int] = []
        self.claim_names: list[str | None] = []
        self.cited_as_written: list[tuple[str, ...] | None] = []
        """Per claim: its own ID (None: the run gives none; it is `c1`, `c2`, ...)."""
        self.claim_state: list[int] = []
        self.cit: list[int] = []
        self.cit_n: list[int] = []
        self.sup: list[int] = []
        self.sup_n: list[int] = []
        self.fact_state: list[int] = []
        self.claim_marks: list[int] = []
        self.claim_marks_n: list[int] = []
        self.fact_marks: list[int] = []
        self.fact_marks_n: list[int] = []
        self.claim_judges = array("i")
        """Per judge claim label: its judge, an index in `judges` (a person's label has none:
        -1 when the arrays are built)."""
        self.claim_judged = array("q")
        """Per judge claim label: its position among the claim labels (as `claim_marks`)."""
        self.fact_judges = array("i")
        self.fact_judged = array("q")
        """Likewise per judge fact label."""
        self.judges: list[dict[str, Any]] = []
        """The labellers of the judge labels read, each distinct one once."""
        self._judge_code: dict[bytes, int] = {}
        self.self_claim: list[bool] = []
        self.self_fact: list[bool] = []
        self.labellers: set[str] = set()
        """The labellers' names, each distinct one once."""

    def read(
        self,
        res: dict[str, Any],
        answered: bool,
        stopped: bool,
        context: Sequence[int],
        facts: tuple[str, ...],
        current: Callable[[dict[str, Any]], str],
    ) -> None:
        """Check and read one result's claims and fact labels (its other fields checked).

        `answered`: its outcome is `answered`; `stopped`: it has another outcome;
        `context`: the codes of its final context; `facts`: its question's reference fact
        IDs; `current`: a result's context hash (`_Fallback` without the snapshot), asked only
        when some label records one."""
        claims = res.get("claims")
        if claims is None:
            claims = NO_LIST
        elif type(claims) is not list:
            raise _Fallback("claims")
        fact_labels = own_facts = res.get("fact_labels", NO_LIST)
        if type(fact_labels) is not list:
            raise _Fallback("fact_labels")
        added = self._added.get(res["question_id"]) if self._added else None
        claim_added: dict[str, list[Label]] = added[0] if added else _NO_LABELS
        if added:
            fact_labels = [*fact_labels, *added[1]]
        if claims and not answered:
            raise _Fallback("claims of a non-answer")
        strict = answered and not self._unreviewed_ok
        if strict and not claims:
            raise _Fallback("unreviewed")
        code_get = self._code.get
        policy, generator, labellers = self._policy, self._generator, self.labellers
        chosen_claims: list[tuple[list[Label], list[Label]]] = []
        named = bool(claim_added)  # claims named as label files name them: c1, c2... or their ID
        # Named before the checks below: a claim that is not an object, or whose ID is not a
        # non-empty string, falls back in the loop whatever name it was given here.
        names = claim_ids(c.get("id") if type(c) is dict else None for c in claims) if named else []
        given = False  # some claim has its own ID (else c1, c2... are distinct)
        claim_flags = 0
        in_context: set[int] | None = None
        claim_names, cited_as_written = self.claim_names, self.cited_as_written
        cit, cit_n = self.cit, self.cit_n
        for n, claim in enumerate(claims, start=1):
            if type(claim) is not dict or not claim.keys() <= CLAIM_KEYS:
                raise _Fallback("claim")
            text, cid = claim.get("text"), claim.get("id")
            if not is_text(text):
                raise _Fallback("claim text")
            if cid is not None:
                if type(cid) is not str or not cid:
                    raise _Fallback("claim id")
                given = True
                cid = intern(cid)
            claim_names.append(cid)
            cits = claim.get("citations", NO_LIST)
            cited = _known(code_get, cits)
            if cited is None or (-1 in cited and not ids(cits)):  # known: a non-empty string
                raise _Fallback("citations")
            cited_as_written.append(tuple(cits) if -1 in cited else None)
            cit += cited
            cit_n.append(len(cited))
            labels = own = claim.get("labels", NO_LIST)
            if type(labels) is not list:
                raise _Fallback("claim labels")
            if named and names[n - 1] in claim_added:
                labels = [*labels, *claim_added[names[n - 1]]]
            for lab in labels:
                claim_flags |= _label(lab, CLAIM_LABEL_KEYS, CLAIM_VERDICTS, generator, labellers)
                cited_by = lab.get("supported_by", NO_LIST)
                if not cited_by and type(cited_by) is list:  # none: not `supported`
                    if lab["verdict"] == "supported":
                        raise _Fallback("supported_by")
                    continue
                within = _known(code_get, cited_by)
                if within is None or lab["verdict"] != "supported":
                    raise _Fallback("supported_by")
                if in_context is None:  # in the context: known, so a non-empty string
                    in_context = set(context)
                if not in_context.issuperset(within):
                    raise _Fallback("supported_by")
            if len(own) > 1 and self._as_written and _twice(own, False):
                raise _Fallback("a claim labelled twice by one labeller")
            chosen = counted_labels(labels, policy, record_kind)
            if strict and not chosen:
                raise _Fallback("unlabelled claim")
            chosen_claims.append((labels, chosen))
        if given and not named and len(claims) > 1:
            names = claim_ids(claim.get("id") for claim in claims)
            named = True
        if named and (len(set(names)) < len(names) or not claim_added.keys() <= set(names)):
            raise _Fallback("claim IDs")
        by_fact: dict[str, list[Label]] = {}
        covered = False
        fact_flags = 0
        for lab in fact_labels:
            fact_flags |= _label(lab, FACT_LABEL_KEYS, FACT_VERDICTS, generator, labellers)
            fact = lab.get("fact_id")
            if type(fact) is not str or not fact:
                raise _Fallback("fact_id")
            covered = covered or lab["verdict"] == "covered"
            by_fact.setdefault(fact, []).append(lab)
        if covered and stopped:
            raise _Fallback("claims of a non-answer")
        # Some fact has two labels before any labeller can have labelled one twice (rare).
        twice = len(own_facts) > 1 and self._as_written and len(by_fact) < len(fact_labels)
        if twice and _twice(own_facts, True):
            raise _Fallback("a fact labelled twice by one labeller")
        self_claim, self_fact = bool(claim_flags & _SELF_MADE), bool(fact_flags & _SELF_MADE)
        if (self_claim or self_fact) and not self._accept_self:
            raise _Fallback("self-labelling")
        hash_now = current(res) if (claim_flags | fact_flags) & _STAMPED else None
        supporting: list[str] = []  # first seen first, as the answer's claims name them
        claim_state, claim_marks, claim_marks_n = (
            self.claim_state, self.claim_marks, self.claim_marks_n
        )
        for labels, chosen in chosen_claims:
            state, counted = _tally(labels, chosen, hash_now, policy, _CLAIM_CODE, claim_marks)
            claim_state.append(state)
            claim_marks_n.append(len(labels))
            if claim_flags & _BY_JUDGE:  # some judge label among the result's
                self._judged(labels, len(claim_marks), self.claim_judged, self.claim_judges)
            if state == 0:
                for lab in counted:
                    supporting.extend(lab["supported_by"])
        self.claim_n.append(len(claims))
        support = dict.fromkeys(map(self._code.__getitem__, supporting))
        self.sup.extend(support)
        self.sup_n.append(len(support))
        fact_state, fact_marks, fact_marks_n = self.fact_state, self.fact_marks, self.fact_marks_n
        labelled = 0  # the question's facts with a label (its fact IDs are distinct)
        for fact in facts:
            found = by_fact.get(fact)
            if found is None:  # no label: unlabelled, without marks
                if strict:
                    raise _Fallback("unlabelled fact")
                fact_state.append(_UNLABELLED_FACT)
                fact_marks_n.append(0)
                continue
            labelled += 1
            chosen = counted_labels(found, policy, record_kind)
            if strict and not chosen:
                raise _Fallback("unlabelled fact")
            fact_state.append(_tally(found, chosen, hash_now, policy, _FACT_CODE, fact_marks)[0])
            fact_marks_n.append(len(found))
            if fact_flags & _BY_JUDGE:
                self._judged(found, len(fact_marks), self.fact_judged, self.fact_judges)
        if labelled < len(by_fact):  # a label names a fact the question does not have
            raise _Fallback("fact_id")
        self.self_claim.append(self_claim)
        self.self_fact.append(self_fact)

    def plain_ids(self) -> bool:
        """No ID read holds a control character (`schemas.Identifier`): the claims' own IDs,
        citations the snapshot lacks (known ones are the snapshot's, checked by the loader)
        and labeller names, each checked once over all of them."""
        cited = chain.from_iterable(filter(None, self.cited_as_written))
        return plain_ids(chain(filter(None, self.claim_names), cited, self.labellers))

    def _judged(self, labels: list[Label], end: int, at: array[int], out: array[int]) -> None:
        """Each judge label's judge (its index in `judges`, to `out`) and its position among
        the run's claim (or fact) labels (to `at`; `labels` are those just before `end`)."""
        for n, lab in enumerate(labels, start=end - len(labels)):
            who = lab["labeller"]
            if who["kind"] != "judge":
                continue
            key = labeller_key(who)
            code = self._judge_code.get(key)
            if code is None:
                code = self._judge_code[key] = len(self.judges)
                self.judges.append(who)
            at.append(n)
            out.append(code)
