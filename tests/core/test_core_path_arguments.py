"""Every public function takes `str | os.PathLike` where it takes a path, never `Path` only."""

from __future__ import annotations

import importlib
import inspect
import pkgutil

import ragtriage


def _public_functions() -> dict[str, object]:
    found: dict[str, object] = {}
    for info in pkgutil.walk_packages(ragtriage.__path__, "ragtriage."):
        parts = info.name.split(".")[1:]
        if any(p.startswith("_") for p in parts) or parts[0] == "cli":
            continue
        module = importlib.import_module(info.name)
        for attr in getattr(module, "__all__", [n for n in vars(module) if not n.startswith("_")]):
            obj = getattr(module, attr, None)
            home = getattr(obj, "__module__", "") or ""
            if inspect.isfunction(obj) and home.startswith("ragtriage."):
                found[f"{home}.{obj.__qualname__}"] = obj
    return found


def _path_only(annotation: str) -> bool:
    # `Callable[[Path], None]` is a callback that receives a path, not a path argument.
    return "Path" in annotation and "PathArg" not in annotation and "Callable" not in annotation


def test_no_public_function_takes_only_path() -> None:
    functions = _public_functions()
    assert len(functions) > 100
    offenders = sorted(
        f"{name}({param.name}: {param.annotation})"
        for name, func in functions.items()
        for param in inspect.signature(func).parameters.values()  # type: ignore[arg-type]
        if _path_only(str(param.annotation))
    )
    assert offenders == []
