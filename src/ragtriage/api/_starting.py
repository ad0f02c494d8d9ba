"""`ragtriage init`: write a starter dataset to edit into one's own."""

from __future__ import annotations

from ..errors import InputError, flag_problems
from ..paths import PathArg, check_paths
from ..starter import StarterDataset, write_starter


def init_files(directory: PathArg, *, force: bool = False) -> StarterDataset:
    """`ragtriage init DIR [--force]`: write the starter dataset (snapshot, evaluation set, a
    run, its labels, a gate policy and a README with the next commands) into `directory`.

    A directory that already holds anything is refused (`InputError`) unless `force`.
    """
    check_paths(("directory", directory))
    if problems := flag_problems(("--force", force)):
        raise InputError(problems)
    return write_starter(directory, force=force)
