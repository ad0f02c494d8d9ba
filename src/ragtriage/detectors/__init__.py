"""Detectors: what one question's inputs and outputs hold that no score shows by itself —
documents the asker may not read, instructions in documents, sensitive values, labels made
against another context or by the run's own generator.

Detectors sit below the metrics and the diagnosis (both count what they find) and import
neither: they read a question through `DetectorView`, the fields of `metrics.QuestionView`
they need. The diagnosis stages built on them live in `ragtriage.diagnosis`, the report
sections in `ragtriage.render`. The bundled rule sets are the package data `rules/*.toml`.
"""

from typing import TYPE_CHECKING

from .._lazy import lazy_names

if TYPE_CHECKING:
    from .checks import (
        BoundaryQuestions as BoundaryQuestions,
        RunBoundaries as RunBoundaries,
        boundary_questions as boundary_questions,
        run_boundaries as run_boundaries,
    )
    from .checksums import (
        card_valid as card_valid,
        gb11643_valid as gb11643_valid,
        iban_registry_valid as iban_registry_valid,
        iban_valid as iban_valid,
        jwt_valid as jwt_valid,
        luhn_valid as luhn_valid,
        ssn_valid as ssn_valid,
    )
    from .injection import (
        DEFAULT_INJECTION_RULES as DEFAULT_INJECTION_RULES,
        FlaggedItem as FlaggedItem,
        InjectionMatch as InjectionMatch,
        InjectionRule as InjectionRule,
        InjectionRules as InjectionRules,
        bundled_injection_rules as bundled_injection_rules,
        carries_marker as carries_marker,
        default_injection_rules as default_injection_rules,
        detect_injection as detect_injection,
        flag_context as flag_context,
        load_injection_rules as load_injection_rules,
    )
    from .labels_trust import (
        SelfLabelling as SelfLabelling,
        context_hash as context_hash,
        context_hash_of as context_hash_of,
        context_texts as context_texts,
        find_self_labelling as find_self_labelling,
        fresh_labels as fresh_labels,
        is_stale as is_stale,
        item_text as item_text,
        label_context_hash as label_context_hash,
        recorded_texts as recorded_texts,
        self_labelling_problems as self_labelling_problems,
        sent_texts as sent_texts,
        texts_of as texts_of,
    )
    from .normalise import (
        MappedText as MappedText,
        fold as fold,
        instruction_texts as instruction_texts,
        instruction_views as instruction_views,
        matching_form as matching_form,
    )
    from .permissions import (
        BLOCKING_STAGES as BLOCKING_STAGES,
        PERMISSION_STAGES as PERMISSION_STAGES,
        PermissionCheck as PermissionCheck,
        PermissionSummary as PermissionSummary,
        StageLeaks as StageLeaks,
        check_permissions as check_permissions,
    )
    from .sensitive import (
        DEFAULT_SENSITIVE_RULES as DEFAULT_SENSITIVE_RULES,
        ContextFindings as ContextFindings,
        SensitiveConfig as SensitiveConfig,
        SensitiveDetector as SensitiveDetector,
        SensitiveFinding as SensitiveFinding,
        SensitiveScan as SensitiveScan,
        bundled_sensitive_config as bundled_sensitive_config,
        default_sensitive_config as default_sensitive_config,
        find_sensitive as find_sensitive,
        load_sensitive_config as load_sensitive_config,
        mask_span as mask_span,
        mask_text as mask_text,
        masked_item_text as masked_item_text,
        scan_view as scan_view,
        sensitive_labels as sensitive_labels,
    )
    from .view import (
        NO_FLAGS as NO_FLAGS,
        ClaimRead as ClaimRead,
        DetectorView as DetectorView,
        StageFlags as StageFlags,
        stage_items as stage_items,
    )

# Each name is imported from its module on first use, so that a command loads only
# what it runs (`ragtriage trec-eval` needs none of the evaluation stack).
_LAZY = {
    ".checks": ("BoundaryQuestions", "RunBoundaries", "boundary_questions", "run_boundaries"),
    ".checksums": (
        "card_valid", "gb11643_valid", "iban_registry_valid", "iban_valid", "jwt_valid",
        "luhn_valid", "ssn_valid",
    ),
    ".injection": (
        "DEFAULT_INJECTION_RULES", "FlaggedItem", "InjectionMatch", "InjectionRule",
        "InjectionRules", "bundled_injection_rules", "carries_marker", "default_injection_rules",
        "detect_injection", "flag_context", "load_injection_rules",
    ),
    ".labels_trust": (
        "SelfLabelling", "context_hash", "context_hash_of", "context_texts",
        "find_self_labelling", "fresh_labels", "is_stale", "item_text", "label_context_hash",
        "recorded_texts", "self_labelling_problems", "sent_texts", "texts_of",
    ),
    ".normalise": ("MappedText", "fold", "instruction_texts", "instruction_views", "matching_form"),
    ".permissions": (
        "BLOCKING_STAGES", "PERMISSION_STAGES", "PermissionCheck", "PermissionSummary",
        "StageLeaks", "check_permissions",
    ),
    ".sensitive": (
        "DEFAULT_SENSITIVE_RULES", "ContextFindings", "SensitiveConfig", "SensitiveDetector",
        "SensitiveFinding", "SensitiveScan", "bundled_sensitive_config", "default_sensitive_config",
        "find_sensitive", "load_sensitive_config", "mask_span", "mask_text", "masked_item_text",
        "scan_view", "sensitive_labels",
    ),
    ".view": ("NO_FLAGS", "ClaimRead", "DetectorView", "StageFlags", "stage_items"),
}


__getattr__, __all__ = lazy_names(__name__, _LAZY, globals())
