"""Every file ragtriage reads or writes goes through here.

Reading: only regular files (no FIFO, directory or device), within size bounds checked
before or while reading, UTF-8 only (one byte-order-mark rule), strict JSON and TOML (no
duplicate keys, finite numbers, bounded integers and nesting). Writing: whole or not at all
(a temporary file renamed into place), with one message when a target cannot be written;
every indented JSON document is the text of `json_text`.
See `docs/files.md`.
"""

from ._decode import decode, strip_bom
from ._json_text import (
    content_hash,
    json_float,
    json_line,
    json_text,
    json_text_table,
    plain_json,
)
from ._limits import (
    CUTOFF_RANGE,
    MAX_CUTOFF,
    MAX_DEPTH,
    MAX_DOCUMENT_BYTES,
    MAX_GRADE,
    MAX_LINE_BYTES,
    MIN_GRADE,
)
from ._open import LONGER_LINE, check_input, file_problem, iter_lines, open_input, read_bytes
from ._read import json_lines, read_json, read_text, read_toml, refuse_blank, text_lines
from ._strict_json import (
    StrictJSONError,
    loads_strict,
    parse_json,
    parse_json_values,
    parse_toml,
)
from ._threads import room_for_a_thread
from ._write import (
    OutputError,
    atomic_output,
    cannot_create,
    check_output,
    lock_file,
    make_folder,
    os_reason,
    outputs_together,
    refuse_inputs,
    refuse_overwrites,
    same_file,
    write_bytes,
    write_text,
)

__all__ = [
    "CUTOFF_RANGE",
    "LONGER_LINE",
    "MAX_CUTOFF",
    "MAX_DEPTH",
    "MAX_DOCUMENT_BYTES",
    "MAX_GRADE",
    "MAX_LINE_BYTES",
    "MIN_GRADE",
    "OutputError",
    "StrictJSONError",
    "atomic_output",
    "cannot_create",
    "check_input",
    "check_output",
    "content_hash",
    "decode",
    "file_problem",
    "iter_lines",
    "json_float",
    "json_line",
    "json_lines",
    "json_text",
    "json_text_table",
    "loads_strict",
    "lock_file",
    "make_folder",
    "open_input",
    "os_reason",
    "outputs_together",
    "parse_json",
    "parse_json_values",
    "parse_toml",
    "plain_json",
    "read_bytes",
    "read_json",
    "read_text",
    "read_toml",
    "refuse_blank",
    "refuse_inputs",
    "refuse_overwrites",
    "room_for_a_thread",
    "same_file",
    "strip_bom",
    "text_lines",
    "write_bytes",
    "write_text",
]
