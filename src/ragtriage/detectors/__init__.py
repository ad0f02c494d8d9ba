"""Detectors: what one question's inputs and outputs hold that no score shows by itself —
documents the asker may not read, instructions in documents, sensitive values, labels made
against another context or by the run's own generator.

Detectors sit below the metrics and the diagnosis (both count what they find) and import
neither: they read a question through `DetectorView`, the fields of `metrics.QuestionView`
they need. The diagnosis stages built on them live in `ragtriage.diagnosis`, the report
sections in `ragtriage.render`. The bundled rule sets are the package data `rules/*.toml`.
"""

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .checks import (
        RunBoundaries,
        boundary_details,
        merge_boundaries,
        run_boundaries,
    )
    from .checksums import (
        card_valid,
        gb11643_valid,
        iban_valid,
        jwt_valid,
        luhn_valid,
        ssn_valid,
    )
    from .injection import (
        DEFAULT_INJECTION_RULES,
        FlaggedItem,
        InjectionMatch,
        InjectionRule,
        InjectionRules,
        bundled_injection_rules,
        canary_in_context,
        canary_obeyed,
        carries_marker,
        default_injection_rules,
        detect_injection,
        flag_context,
        flag_items,
        is_injection,
        load_injection_rules,
    )
    from .labels_trust import (
        LABEL_INPUTS,
        SelfLabelling,
        affected_metrics,
        context_hash,
        context_hash_of,
        context_texts,
        find_self_labelling,
        is_stale,
        item_text,
        self_labelling_problems,
    )
    from .normalise import (
        MappedText,
        fold,
        instruction_texts,
        instruction_views,
        matching_form,
    )
    from .permissions import (
        BLOCKING_STAGES,
        PERMISSION_STAGES,
        PermissionCheck,
        PermissionSummary,
        StageLeaks,
        blocking_permission_leaks,
        check_permissions,
        leaked_documents,
        summarize_permissions,
    )
    from .sensitive import (
        DEFAULT_SENSITIVE_RULES,
        ContextFindings,
        SensitiveConfig,
        SensitiveDetector,
        SensitiveFinding,
        SensitiveScan,
        bundled_sensitive_config,
        default_sensitive_config,
        find_sensitive,
        load_sensitive_config,
        mask_text,
        scan_view,
    )
    from .view import (
        ClaimRead,
        DetectorView,
        stage_items,
    )

# Each name is imported from its module on first use, so that a command loads only
# what it runs (`ragtriage trec-eval` needs none of the evaluation stack).
_LAZY = {
    "RunBoundaries": ".checks",
    "boundary_details": ".checks",
    "merge_boundaries": ".checks",
    "run_boundaries": ".checks",
    "card_valid": ".checksums",
    "gb11643_valid": ".checksums",
    "iban_valid": ".checksums",
    "jwt_valid": ".checksums",
    "luhn_valid": ".checksums",
    "ssn_valid": ".checksums",
    "DEFAULT_INJECTION_RULES": ".injection",
    "FlaggedItem": ".injection",
    "InjectionMatch": ".injection",
    "InjectionRule": ".injection",
    "InjectionRules": ".injection",
    "bundled_injection_rules": ".injection",
    "canary_in_context": ".injection",
    "canary_obeyed": ".injection",
    "carries_marker": ".injection",
    "default_injection_rules": ".injection",
    "detect_injection": ".injection",
    "flag_context": ".injection",
    "flag_items": ".injection",
    "is_injection": ".injection",
    "load_injection_rules": ".injection",
    "LABEL_INPUTS": ".labels_trust",
    "SelfLabelling": ".labels_trust",
    "affected_metrics": ".labels_trust",
    "context_hash": ".labels_trust",
    "context_hash_of": ".labels_trust",
    "context_texts": ".labels_trust",
    "find_self_labelling": ".labels_trust",
    "is_stale": ".labels_trust",
    "item_text": ".labels_trust",
    "self_labelling_problems": ".labels_trust",
    "MappedText": ".normalise",
    "fold": ".normalise",
    "instruction_texts": ".normalise",
    "instruction_views": ".normalise",
    "matching_form": ".normalise",
    "BLOCKING_STAGES": ".permissions",
    "PERMISSION_STAGES": ".permissions",
    "PermissionCheck": ".permissions",
    "PermissionSummary": ".permissions",
    "StageLeaks": ".permissions",
    "blocking_permission_leaks": ".permissions",
    "check_permissions": ".permissions",
    "leaked_documents": ".permissions",
    "summarize_permissions": ".permissions",
    "DEFAULT_SENSITIVE_RULES": ".sensitive",
    "ContextFindings": ".sensitive",
    "SensitiveConfig": ".sensitive",
    "SensitiveDetector": ".sensitive",
    "SensitiveFinding": ".sensitive",
    "SensitiveScan": ".sensitive",
    "bundled_sensitive_config": ".sensitive",
    "default_sensitive_config": ".sensitive",
    "find_sensitive": ".sensitive",
    "load_sensitive_config": ".sensitive",
    "mask_text": ".sensitive",
    "scan_view": ".sensitive",
    "ClaimRead": ".view",
    "DetectorView": ".view",
    "stage_items": ".view",
}

__all__ = [
    "BLOCKING_STAGES",
    "DEFAULT_INJECTION_RULES",
    "DEFAULT_SENSITIVE_RULES",
    "LABEL_INPUTS",
    "PERMISSION_STAGES",
    "ClaimRead",
    "ContextFindings",
    "DetectorView",
    "FlaggedItem",
    "InjectionMatch",
    "InjectionRule",
    "InjectionRules",
    "MappedText",
    "PermissionCheck",
    "PermissionSummary",
    "RunBoundaries",
    "SelfLabelling",
    "SensitiveConfig",
    "SensitiveDetector",
    "SensitiveFinding",
    "SensitiveScan",
    "StageLeaks",
    "affected_metrics",
    "blocking_permission_leaks",
    "boundary_details",
    "bundled_injection_rules",
    "bundled_sensitive_config",
    "canary_in_context",
    "canary_obeyed",
    "card_valid",
    "carries_marker",
    "check_permissions",
    "context_hash",
    "context_hash_of",
    "context_texts",
    "default_injection_rules",
    "default_sensitive_config",
    "detect_injection",
    "find_self_labelling",
    "find_sensitive",
    "flag_context",
    "flag_items",
    "fold",
    "gb11643_valid",
    "iban_valid",
    "instruction_texts",
    "instruction_views",
    "is_injection",
    "is_stale",
    "item_text",
    "jwt_valid",
    "leaked_documents",
    "load_injection_rules",
    "load_sensitive_config",
    "luhn_valid",
    "mask_text",
    "matching_form",
    "merge_boundaries",
    "run_boundaries",
    "scan_view",
    "self_labelling_problems",
    "ssn_valid",
    "stage_items",
    "summarize_permissions",
]


def __getattr__(name: str) -> Any:
    """Import a public name's module on first use."""
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(import_module(module, __name__), name)
    globals()[name] = value
    return value
