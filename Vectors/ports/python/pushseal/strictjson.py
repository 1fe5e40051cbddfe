"""Strict JSON (SPEC §5.2): RFC 8259 plus UTF-8 validation, distinct member names, no lone
surrogates and a depth limit. Python's ``json`` module accepts what these rules forbid (last
duplicate wins, lone surrogates, NaN), so PushSeal parses with this parser."""

from __future__ import annotations

import re
from typing import Any, List, NoReturn, Set, Tuple

MAX_DEPTH = 16

__all__ = ["JSONError", "JNum", "JObj", "JSONValue", "parse_json", "to_plain"]


class JSONError(Exception):
    """Not strict JSON; the message names the offset."""


class JNum:
    """A JSON number kept as its exact lexeme."""
    __slots__ = ("raw",)

    def __init__(self, raw: str) -> None:
        self.raw = raw


class JObj:
    """A JSON object as an ordered list of (name, value); duplicates preserved when recorded."""
    __slots__ = ("pairs", "has_dups")

    def __init__(self, pairs: List[Tuple[str, "JSONValue"]], has_dups: bool) -> None:
        self.pairs = pairs
        self.has_dups = has_dups

    def get_all(self, name: str) -> List["JSONValue"]:
        return [v for k, v in self.pairs if k == name]

    def get(self, name: str, default: "JSONValue" = None) -> "JSONValue":
        for k, v in self.pairs:
            if k == name:
                return v
        return default

    def dup_names(self) -> Set[str]:
        seen: Set[str] = set()
        dups: Set[str] = set()
        for k, _ in self.pairs:
            if k in seen:
                dups.add(k)
            seen.add(k)
        return dups


JSONValue = Any
"""A parsed value: None, a bool, a str, a JNum (a number as its lexeme), a JObj or a list of values.
(``Any``: callers check the shape they need at run time, as SPEC §5.1 asks.)"""

_NUMBER_RE = re.compile(r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?")
_WS = " \t\n\r"
_ESCAPES = {'"': '"', "\\": "\\", "/": "/", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t"}
_HEX = "0123456789abcdefABCDEF"


class _Parser:
    def __init__(self, text: str, record_dups: bool, max_depth: int) -> None:
        self.s = text
        self.i = 0
        self.record_dups = record_dups
        self.max_depth = max_depth

    def fail(self, msg: str) -> NoReturn:
        raise JSONError(f"{msg} at offset {self.i}")

    def ws(self) -> None:
        s, i = self.s, self.i
        while i < len(s) and s[i] in _WS:
            i += 1
        self.i = i

    def value(self, depth: int) -> JSONValue:
        self.ws()
        if self.i >= len(self.s):
            self.fail("unexpected end")
        c = self.s[self.i]
        if c == "{":
            return self.obj(depth + 1)
        if c == "[":
            return self.arr(depth + 1)
        if c == '"':
            return self.string()
        for lit, val in (("true", True), ("false", False), ("null", None)):
            if self.s.startswith(lit, self.i):
                self.i += len(lit)
                return val
        m = _NUMBER_RE.match(self.s, self.i)
        if m and m.end() > self.i:
            self.i = m.end()
            return JNum(m.group(0))
        self.fail("unexpected character")

    def obj(self, depth: int) -> JObj:
        if depth > self.max_depth:
            self.fail("nesting too deep")
        self.i += 1
        pairs: List[Tuple[str, JSONValue]] = []
        names: Set[str] = set()
        dups = False
        self.ws()
        if self.i < len(self.s) and self.s[self.i] == "}":
            self.i += 1
            return JObj(pairs, False)
        while True:
            self.ws()
            if self.i >= len(self.s) or self.s[self.i] != '"':
                self.fail("expected member name")
            name = self.string()
            if name in names:
                if not self.record_dups:
                    self.fail("duplicate member name")
                dups = True
            names.add(name)
            self.ws()
            if self.i >= len(self.s) or self.s[self.i] != ":":
                self.fail("expected ':'")
            self.i += 1
            pairs.append((name, self.value(depth)))
            self.ws()
            if self.i < len(self.s) and self.s[self.i] == ",":
                self.i += 1
                continue
            if self.i < len(self.s) and self.s[self.i] == "}":
                self.i += 1
                return JObj(pairs, dups)
            self.fail("expected ',' or '}'")

    def arr(self, depth: int) -> List[JSONValue]:
        if depth > self.max_depth:
            self.fail("nesting too deep")
        self.i += 1
        items: List[JSONValue] = []
        self.ws()
        if self.i < len(self.s) and self.s[self.i] == "]":
            self.i += 1
            return items
        while True:
            items.append(self.value(depth))
            self.ws()
            if self.i < len(self.s) and self.s[self.i] == ",":
                self.i += 1
                continue
            if self.i < len(self.s) and self.s[self.i] == "]":
                self.i += 1
                return items
            self.fail("expected ',' or ']'")

    def hex4(self) -> int:
        h = self.s[self.i:self.i + 4]
        if len(h) != 4 or any(c not in _HEX for c in h):
            self.fail("bad \\u escape")
        self.i += 4
        return int(h, 16)

    def string(self) -> str:
        s = self.s
        self.i += 1  # opening quote
        out: List[str] = []
        while True:
            if self.i >= len(s):
                self.fail("unterminated string")
            c = s[self.i]
            if c == '"':
                self.i += 1
                return "".join(out)
            if ord(c) < 0x20:
                self.fail("control character in string")
            if c != "\\":
                out.append(c)
                self.i += 1
                continue
            self.i += 1
            if self.i >= len(s):
                self.fail("unterminated escape")
            e = s[self.i]
            self.i += 1
            if e in _ESCAPES:
                out.append(_ESCAPES[e])
            elif e == "u":
                cp = self.hex4()
                if 0xDC00 <= cp <= 0xDFFF:
                    self.fail("lone low surrogate")
                if 0xD800 <= cp <= 0xDBFF:
                    if s[self.i:self.i + 2] != "\\u":
                        self.fail("lone high surrogate")
                    self.i += 2
                    lo = self.hex4()
                    if not 0xDC00 <= lo <= 0xDFFF:
                        self.fail("high surrogate not followed by low surrogate")
                    cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00)
                out.append(chr(cp))
            else:
                self.fail("invalid escape")


def parse_json(data: bytes, record_dups: bool = False, max_depth: int = MAX_DEPTH) -> JSONValue:
    """Strict RFC 8259 parse of UTF-8 bytes. Raises JSONError."""
    try:
        text = data.decode("utf-8", errors="strict")  # rejects overlongs, surrogates, > U+10FFFF
    except UnicodeDecodeError as e:
        raise JSONError(f"invalid UTF-8: {e}") from None
    p = _Parser(text, record_dups, max_depth)
    v = p.value(0)
    p.ws()
    if p.i != len(text):
        p.fail("trailing data")
    return v



def to_plain(v: Any) -> Any:
    """Converts parsed JSON to plain Python values (objects become dicts; numbers int or float)."""
    if isinstance(v, JObj):
        return {k: to_plain(x) for k, x in v.pairs}
    if isinstance(v, list):
        return [to_plain(x) for x in v]
    if isinstance(v, JNum):
        if re.fullmatch(r"-?(0|[1-9][0-9]*)", v.raw):
            return int(v.raw)
        return float(v.raw)
    return v
