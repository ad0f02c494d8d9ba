"""Write Ragas and DeepEval dataset files with the peers' own libraries (run by the peers'
Python, `RAGTRIAGE_PEERS_PYTHON`, not by the test interpreter).

Usage: python write_peer_files.py OUT_DIR. Every file is written by the peer's own writer:
Ragas `EvaluationDataset.to_jsonl`, `to_list` (dumped with json), `to_pandas().to_json(
orient="records")` and `to_csv`, for single-turn samples and a multi-turn one; DeepEval
`EvaluationDataset.save_as("json" | "jsonl" | "csv")`, for goldens and for test cases (one
with a `RetrievedContextData`), and a conversational golden. The importer refuses the
conversations. It prints the versions used as JSON.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

os.environ.setdefault("DEEPEVAL_TELEMETRY_OPT_OUT", "1")

REFUND = "Refunds are accepted within 30 days of delivery."
SHIPPING = "Standard shipping takes 5 business days."
FOUNDED = "The company was founded in 2004 by two engineers."


def ragas_files(out: Path) -> None:
    from ragas import EvaluationDataset, SingleTurnSample

    by_id = EvaluationDataset(
        samples=[
            SingleTurnSample(
                user_input="How long is the refund window?",
                retrieved_contexts=[REFUND, SHIPPING],
                retrieved_context_ids=["doc-refund", "doc-shipping"],
                response="30 days from delivery.",
                reference="Refunds are accepted within 30 days.",
                reference_context_ids=["doc-refund"],
            ),
            SingleTurnSample(
                user_input="What is the CEO's favourite colour?",
                retrieved_contexts=[FOUNDED],
                retrieved_context_ids=["doc-founded"],
                response="I cannot tell from the documents.",
                reference_context_ids=[],
            ),
        ]
    )
    by_id.to_jsonl(str(out / "ragas_ids.jsonl"))
    (out / "ragas_ids_list.json").write_text(json.dumps(by_id.to_list()), encoding="utf-8")
    (out / "ragas_ids_pandas.json").write_text(
        by_id.to_pandas().to_json(orient="records"), encoding="utf-8"
    )
    by_id.to_csv(str(out / "ragas_ids.csv"))
    # One sample with IDs, one with texts only: pandas writes the other's columns as null.
    mixed = EvaluationDataset(
        samples=[
            SingleTurnSample(
                user_input="How long is the refund window?",
                retrieved_contexts=[REFUND, SHIPPING],
                retrieved_context_ids=["doc-refund", "doc-shipping"],
                response="30 days from delivery.",
                reference="Refunds are accepted within 30 days.",
                reference_context_ids=["doc-refund"],
            ),
            SingleTurnSample(
                user_input="When was the company founded?",
                retrieved_contexts=[SHIPPING, FOUNDED],
                response="In 2004.",
                reference="It was founded in 2004.",
                reference_contexts=[FOUNDED],
            ),
        ]
    )
    (out / "ragas_mixed_pandas.json").write_text(
        mixed.to_pandas().to_json(orient="records"), encoding="utf-8"
    )
    mixed.to_jsonl(str(out / "ragas_mixed.jsonl"))
    from ragas import MultiTurnSample
    from ragas.messages import AIMessage, HumanMessage

    turns = [HumanMessage(content="How long is the refund window?"), AIMessage(content="30 days.")]
    multi = EvaluationDataset(samples=[MultiTurnSample(user_input=turns, reference="30 days.")])
    multi.to_jsonl(str(out / "ragas_multi.jsonl"))
    (out / "ragas_multi_list.json").write_text(json.dumps(multi.to_list()), encoding="utf-8")
    (out / "ragas_multi_pandas.json").write_text(
        multi.to_pandas().to_json(orient="records"), encoding="utf-8"
    )
    multi.to_csv(str(out / "ragas_multi.csv"))


def deepeval_files(out: Path) -> None:
    from deepeval.dataset import EvaluationDataset, Golden
    from deepeval.test_case import LLMTestCase

    goldens = EvaluationDataset(
        goldens=[
            Golden(
                input="How long is the refund window?",
                actual_output="30 days from delivery.",
                expected_output="Refunds are accepted within 30 days.",
                retrieval_context=[REFUND, SHIPPING],
                context=[REFUND],
            ),
            Golden(
                input="When was the company founded?",
                actual_output="In 2004.",
                expected_output="It was founded in 2004.",
                retrieval_context=[SHIPPING, FOUNDED],
                context=[FOUNDED],
                additional_metadata={"source": "faq"},
            ),
        ]
    )
    for kind in ("json", "jsonl", "csv"):
        goldens.save_as(kind, str(out), file_name="deepeval_goldens")
    cases = EvaluationDataset()
    cases.add_test_case(
        LLMTestCase(
            input="How long is the refund window?",
            actual_output="30 days from delivery.",
            expected_output="Refunds are accepted within 30 days.",
            retrieval_context=[REFUND, SHIPPING],
            context=[REFUND],
            token_cost=0.002,
        )
    )
    cases.add_test_case(
        LLMTestCase(
            input="When was the company founded?",
            actual_output="In 2004.",
            expected_output="It was founded in 2004.",
            retrieval_context=[SHIPPING, FOUNDED],
            context=[FOUNDED],
        )
    )
    for kind in ("json", "jsonl", "csv"):
        cases.save_as(kind, str(out), file_name="deepeval_cases", include_test_cases=True)
    # A retrieved context with its source: DeepEval writes it as one marker string.
    from deepeval.test_case import RetrievedContextData

    sourced = EvaluationDataset()
    sourced.add_test_case(
        LLMTestCase(
            input="How long is the refund window?",
            actual_output="30 days from delivery.",
            retrieval_context=[RetrievedContextData(source="faq.md", context=REFUND), SHIPPING],
            context=[REFUND],
        )
    )
    for kind in ("json", "jsonl", "csv"):
        sourced.save_as(kind, str(out), file_name="deepeval_sourced", include_test_cases=True)
    # A test case with neither reference contexts nor a reference answer: nothing to score
    # retrieval against, which the importer refuses.
    bare = EvaluationDataset()
    bare.add_test_case(
        LLMTestCase(input="Who founded it?", actual_output="Two engineers.", retrieval_context=[])
    )
    bare.save_as("json", str(out), file_name="deepeval_bare", include_test_cases=True)
    # A conversation (DeepEval saves a conversational test case as this golden too).
    from deepeval.dataset import ConversationalGolden
    from deepeval.test_case import Turn

    turns = [
        Turn(role="user", content="Refund window?"), Turn(role="assistant", content="30 days.")
    ]
    talk = EvaluationDataset(goldens=[ConversationalGolden(scenario="Refunds.", turns=turns)])
    for kind in ("json", "jsonl", "csv"):
        talk.save_as(kind, str(out), file_name="deepeval_talk")


def main() -> None:
    from importlib.metadata import version

    out = Path(sys.argv[1])
    out.mkdir(parents=True, exist_ok=True)
    ragas_files(out)
    deepeval_files(out)
    print(json.dumps({"ragas": version("ragas"), "deepeval": version("deepeval")}))


if __name__ == "__main__":
    main()
