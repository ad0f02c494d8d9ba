"""Tokenization for the lexical retriever: jieba for Chinese, a Snowball stemmer for English."""

from __future__ import annotations

import logging
import re
import unicodedata
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any

from .._optional import require_extra

CHINESE_CHARACTERS = "\u3400-\u9fff\uf900-\ufaff\U00020000-\U0003ffff"
"""The CJK ideographs, as a character-class body: extension A, the basic block, the
compatibility block, and the two ideographic planes (extensions B to H, as in names)."""
# A run of CJK ideographs is segmented by jieba; everything else is split into word tokens.
_CJK_RUN = re.compile(f"[{CHINESE_CHARACTERS}]+")
# Two or more word characters, like bm25s's default tokenizer, so English behaves as there.
_WORD = re.compile(r"(?u)\b\w\w+\b")
_PUNCT_OR_SPACE = re.compile(r"^[\W_]+$")


@dataclass(frozen=True)
class TokenizerSpec:
    """How text becomes tokens; part of the lexical index's cache key."""

    stemmer: str | None = "english"
    """Snowball stemmer language for non-Chinese words (`None`: no stemming)."""
    stopwords: str | None = "en"
    """bm25s stopword list for non-Chinese words (`None`: keep every word)."""
    chinese: bool = True
    """Segment runs of Chinese characters with jieba (else each run is one token)."""

    def describe(self) -> str:
        """A short label for provenance."""
        parts = [f"stemmer={self.stemmer or 'none'}", f"stopwords={self.stopwords or 'none'}"]
        parts.append("chinese=jieba" if self.chinese else "chinese=none")
        return ",".join(parts)

    def libraries(self) -> dict[str, str]:
        """The installed version of each library this tokenization uses (PyStemmer when
        stemming, jieba when segmenting Chinese), for the cache key and provenance."""
        from importlib.metadata import version

        used = {"pystemmer": ("PyStemmer", self.stemmer), "jieba": ("jieba", self.chinese)}
        return {key: version(name) for key, (name, on) in used.items() if on}


@cache
def _stopwords(name: str) -> frozenset[str]:
    require_extra("retrieval", "stopword lists")
    from bm25s.stopwords import STOPWORDS_EN

    if name != "en":
        raise ValueError(f"unknown stopword list {name!r}")
    return frozenset(STOPWORDS_EN)


@cache
def _stem_function(language: str) -> Callable[[str], str]:
    require_extra("retrieval", "stemming")
    import Stemmer

    stemmer = Stemmer.Stemmer(language)
    stem: Callable[[str], str] = stemmer.stemWord
    return stem


@cache
def _jieba() -> Any:
    require_extra("retrieval", "Chinese word segmentation")
    import jieba

    # jieba logs its dictionary loading at DEBUG/INFO on the root of its own logger.
    jieba.setLogLevel(logging.WARNING)
    jieba.initialize()
    return jieba


class Tokenizer:
    """Turns text into index terms according to a `TokenizerSpec`."""

    def __init__(self, spec: TokenizerSpec) -> None:
        self.spec = spec
        self._stop = _stopwords(spec.stopwords) if spec.stopwords else frozenset()
        # each word is stemmed once: a corpus repeats its words many times over
        self._stem = cache(_stem_function(spec.stemmer)) if spec.stemmer else None

    def _latin(self, text: str) -> list[str]:
        out = []
        for word in _WORD.findall(text.lower()):
            if word in self._stop:
                continue
            out.append(word if self._stem is None else self._stem(word))
        return out

    def tokens(self, text: str) -> list[str]:
        """The index terms of one text, in order. The text is read in NFKC form, so full-width
        letters and digits (as Chinese input methods type them) and decomposed accents are
        the same terms as their ordinary forms."""
        text = unicodedata.normalize("NFKC", text)
        if not self.spec.chinese:
            return self._latin(text)
        out: list[str] = []
        position = 0
        for match in _CJK_RUN.finditer(text):
            out.extend(self._latin(text[position : match.start()]))
            out.extend(
                word
                for word in _jieba().lcut(match.group(), HMM=True)
                if not _PUNCT_OR_SPACE.match(word)
            )
            position = match.end()
        out.extend(self._latin(text[position:]))
        return out

    def many(
        self, texts: Iterable[str], advance: Callable[[], None] | None = None
    ) -> list[list[str]]:
        """Tokens of several texts; `advance` is called after each (for a progress bar)."""
        result = []
        for text in texts:
            result.append(self.tokens(text))
            if advance is not None:
                advance()
        return result


def has_chinese(texts: Sequence[str]) -> bool:
    """True when any text holds a Chinese character (decides whether jieba is loaded)."""
    return any(_CJK_RUN.search(text) for text in texts)
