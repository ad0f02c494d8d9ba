"""Importers: bring other tools' files in as native snapshot, evaluation set and run files.

- `import_tau2`: the tau2-bench banking knowledge base and tasks (real data, MIT, attributed).
- `import_records`: Ragas-style records, the seed article's sample record, DeepEval test cases.
- `import_trec` / `export_trec`: TREC qrels and runs (parsed by `ragtriage.formats.trec_files`).
- `import_openinference`: OpenInference traces (OTLP JSON, console exporter, Phoenix spans).
- `write_native`: write any native model as JSON or JSONL.
"""

from ._native_writer import native_text, write_native
from ._openinference import ImportedTraces, import_openinference
from ._rag_records import ImportedRecords, import_records
from ._record_dialects import DIALECTS, RecordFormat
from ._records import text_id
from ._tau2 import TAU2_ATTRIBUTION, TAU2_MAX_BYTES, Tau2Data, import_tau2
from ._trec_native import (
    ImportedTrec,
    QuestionQrels,
    ResultRanking,
    evalset_to_qrels,
    export_trec,
    import_trec,
    question_qrels,
    result_ranking,
    run_to_trec,
)

__all__ = [
    "DIALECTS",
    "TAU2_ATTRIBUTION",
    "TAU2_MAX_BYTES",
    "ImportedRecords",
    "ImportedTraces",
    "ImportedTrec",
    "QuestionQrels",
    "RecordFormat",
    "ResultRanking",
    "Tau2Data",
    "evalset_to_qrels",
    "export_trec",
    "import_openinference",
    "import_records",
    "import_tau2",
    "import_trec",
    "native_text",
    "question_qrels",
    "result_ranking",
    "run_to_trec",
    "text_id",
    "write_native",
]
