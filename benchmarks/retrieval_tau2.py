"""Retrieval on the tau2-bench banking data: ragtriage's retrievers against the published figures.

Imports the data, runs bm25 / dense / hybrid (and two reranked variants) through
`run_retrieval`, scores them with `evaluate`, and prints recall@10 and nDCG@10 beside the
published baselines (README of the data). As a same-run peer, it also scores plain bm25s with
its own tokenizer (`bm25s.tokenize`, English stemmer and stopwords), the configuration the
published bm25s figure describes: the two must agree.

    python benchmarks/retrieval_tau2.py [DATA_DIR] [--cache-dir DIR]

The first run embeds 698 documents and 97 long queries with USE (about 20 s on one core);
the embeddings are cached, later runs only embed the queries.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np

from ragtriage.columnar import evaluate
from ragtriage.importers import import_tau2
from ragtriage.loading import Dataset, SourceFile
from ragtriage.retrievers import RetrievalConfig, run_retrieval

PUBLISHED = {
    "bm25": (0.259, 0.306, "bm25s"),
    "dense": (0.225, 0.249, "multilingual USE (MiniLM: 0.251 / 0.289)"),
    "hybrid": (0.273, 0.304, "RRF of bm25s and MiniLM (ours fuses bm25s and USE)"),
}
CONFIGS = {
    "bm25": RetrievalConfig(retriever="bm25"),
    "dense": RetrievalConfig(retriever="dense"),
    "hybrid": RetrievalConfig(retriever="hybrid"),
    "bm25+rerank-dense": RetrievalConfig(retriever="bm25", rerank="dense", rerank_depth=30),
    "bm25-6000chars": RetrievalConfig(retriever="bm25", context_chars=6000),
}


def plain_bm25s(data_dir: Path) -> float:
    """Recall@10 of bm25s used directly, as the published baseline describes it."""
    import bm25s
    import Stemmer

    data = import_tau2(data_dir)
    docs = data.snapshot.documents
    stemmer = Stemmer.Stemmer("english")
    retriever = bm25s.BM25()
    corpus = [f"{d.title}\n{d.text}" for d in docs]
    retriever.index(
        bm25s.tokenize(corpus, stopwords="en", stemmer=stemmer, show_progress=False),
        show_progress=False,
    )
    queries = bm25s.tokenize(
        [q.text for q in data.evalset.questions],
        stopwords="en",
        stemmer=stemmer,
        show_progress=False,
    )
    found, _ = retriever.retrieve(queries, k=10, show_progress=False)
    recalls = []
    for question, row in zip(data.evalset.questions, found, strict=True):
        required = {g.any_of[0] for g in question.required_evidence}
        recalls.append(len(required & {docs[i].id for i in row}) / len(required))
    return float(np.mean(recalls))


def main() -> None:
    """Run every configuration once and print the table."""
    parser = argparse.ArgumentParser()
    parser.add_argument(
        "data_dir",
        nargs="?",
        default=str(Path(__file__).resolve().parents[2] / "shared/data/tau2-banking-knowledge"),
    )
    parser.add_argument("--cache-dir", default=None)
    args = parser.parse_args()
    data_dir = Path(args.data_dir)
    data = import_tau2(data_dir)
    runs = []
    timings = {}
    for name, config in CONFIGS.items():
        started = time.perf_counter()
        out = run_retrieval(
            data.snapshot,
            data.evalset,
            config,
            name=name,
            cache_dir=Path(args.cache_dir) if args.cache_dir else None,
        )
        timings[name] = (time.perf_counter() - started, out.index_from_cache)
        runs.append(out.run)
    sources = (
        SourceFile("tau2:evalset", "evalset", ""),
        SourceFile("tau2:snapshot", "snapshot", ""),
    )
    dataset = Dataset(data.snapshot, data.evalset, tuple(runs), sources)
    result = evaluate(dataset, metrics=["evidence_recall", "ndcg@10"])
    print(f"{'run':<20} {'recall@10':>9} {'nDCG@10':>8} {'seconds':>8}  published (recall / nDCG)")
    for run in result.runs:
        recall, ndcg = run.summary["evidence_recall"].value, run.summary["ndcg@10"].value
        assert recall is not None and ndcg is not None
        published = PUBLISHED.get(run.name)
        ref = f"{published[0]:.3f} / {published[1]:.3f} {published[2]}" if published else "-"
        seconds, cached = timings[run.name]
        when = f"{seconds:8.1f}{'*' if cached else ' '}"
        print(f"{run.name:<20} {recall:>9.3f} {ndcg:>8.3f} {when} {ref}")
    print(f"{'peer: bm25s direct':<20} {plain_bm25s(data_dir):>9.3f}")
    print("* index loaded from the cache (seconds include embedding the queries)")


if __name__ == "__main__":
    main()
