"""The notification content (SPEC §5): schema, strict decoding and the sender's deterministic
encoding."""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from typing import Any, Dict, Iterator, List, Mapping, Optional

from .errors import ContentError
from .strictjson import JNum, JObj, JSONError, parse_json

__all__ = ["Sender", "Content", "MAX_CONTENT_BYTES", "json_string", "escaped_length"]

MAX_CONTENT_BYTES = 4000
_TS_MAX = 253402300799
_BADGE_MAX = 2147483647
_KNOWN = ("cid", "mid", "ts", "title", "subtitle", "body", "sender", "thread", "category", "badge", "trunc", "x")


@dataclass(frozen=True)
class Sender:
    """``sender``: who sent the message (for communication notifications)."""

    id: str
    name: Optional[str] = None


@dataclass(frozen=True)
class Content:
    """One notification content. ``body is None`` is the content-free (wake-and-fetch) form."""

    cid: str
    mid: str
    ts: int
    body: Optional[str] = None
    title: Optional[str] = None
    subtitle: Optional[str] = None
    sender: Optional[Sender] = None
    thread: Optional[str] = None
    category: Optional[str] = None
    badge: Optional[int] = None
    trunc: bool = False
    x: Dict[str, str] = field(default_factory=dict)

    @property
    def requires_fetch(self) -> bool:
        """True for a content-free content: the app must fetch the message by (cid, mid)."""
        return self.body is None

    @property
    def content_free(self) -> "Content":
        """Only ``cid``, ``mid`` and ``ts``."""
        return Content(self.cid, self.mid, self.ts)

    def is_content_free_shape(self) -> bool:
        """Exactly ``cid``, ``mid``, ``ts`` (SPEC §9.5)."""
        return self == self.content_free

    def replace(self, **changes: Any) -> "Content":
        """A copy with some fields changed."""
        return replace(self, **changes)

    # ------------------------------------------------------------------ validation

    def validate(self) -> None:
        """Raises ContentError when a field violates SPEC §5.1 (sizes are not checked)."""
        def ident(name: str, value: Optional[str], required: bool = False) -> None:
            if value is None:
                if required:
                    raise ContentError(f"{name} is required")
                return
            if not isinstance(value, str) or not 1 <= _utf8_len(value) <= 256:
                raise ContentError(f"{name} must be a string of 1-256 bytes")
            if any(ord(ch) < 0x20 for ch in value):
                raise ContentError(f"{name} must not contain a control character U+0000-U+001F")
        ident("cid", self.cid, True)
        ident("mid", self.mid, True)
        if isinstance(self.ts, bool) or not isinstance(self.ts, int) or not 0 <= self.ts <= _TS_MAX:
            raise ContentError("ts must be an integer 0...253402300799")
        for name in ("title", "subtitle", "body"):
            value = getattr(self, name)
            if value is not None and not isinstance(value, str):
                raise ContentError(f"{name} must be a string")
        ident("thread", self.thread)
        ident("category", self.category)
        if self.sender is not None:
            ident("sender.id", self.sender.id, True)
            if self.sender.name is not None and not isinstance(self.sender.name, str):
                raise ContentError("sender.name must be a string")
        if self.badge is not None and (isinstance(self.badge, bool) or not isinstance(self.badge, int)
                                       or not 0 <= self.badge <= _BADGE_MAX):
            raise ContentError("badge must be an integer 0...2147483647")
        if not all(isinstance(k, str) and isinstance(v, str) for k, v in self.x.items()):
            raise ContentError("x must map strings to strings")
        for value in self._strings():
            try:
                value.encode("utf-8")
            except UnicodeEncodeError:
                raise ContentError("strings must not contain lone surrogates") from None

    def _strings(self) -> Iterator[str]:
        for value in (self.cid, self.mid, self.title, self.subtitle, self.body, self.thread, self.category):
            if value is not None:
                yield value
        if self.sender is not None:
            yield self.sender.id
            if self.sender.name is not None:
                yield self.sender.name
        for k, v in self.x.items():
            yield k
            yield v

    # ------------------------------------------------------------------ encoding (SPEC §5.3)

    def encode(self) -> bytes:
        """The deterministic compact UTF-8 JSON of SPEC §5.3 (no size check)."""
        parts = [f'"cid":{json_string(self.cid)}', f'"mid":{json_string(self.mid)}', f'"ts":{self.ts}']
        for name in ("title", "subtitle", "body"):
            value = getattr(self, name)
            if value is not None:
                parts.append(f'"{name}":{json_string(value)}')
        if self.sender is not None:
            s = f'"id":{json_string(self.sender.id)}'
            if self.sender.name is not None:
                s += f',"name":{json_string(self.sender.name)}'
            parts.append('"sender":{' + s + "}")
        for name in ("thread", "category"):
            value = getattr(self, name)
            if value is not None:
                parts.append(f'"{name}":{json_string(value)}')
        if self.badge is not None:
            parts.append(f'"badge":{self.badge}')
        if self.trunc:
            parts.append('"trunc":true')
        if self.x:
            items = sorted(self.x.items(), key=lambda kv: kv[0].encode("utf-8"))
            parts.append('"x":{' + ",".join(f"{json_string(k)}:{json_string(v)}" for k, v in items) + "}")
        return ("{" + ",".join(parts) + "}").encode("utf-8")

    # ------------------------------------------------------------------ decoding

    @classmethod
    def from_mapping(cls, m: Mapping[str, Any], validate: bool = True) -> "Content":
        """A content from a plain mapping with the content's member names (e.g. ``json.loads``
        output); unknown members are ignored. Raises ContentError on wrong types (and, with
        ``validate``, on values outside the schema)."""
        sender = m.get("sender")
        try:
            content = cls(
                cid=m["cid"], mid=m["mid"], ts=m["ts"], body=m.get("body"), title=m.get("title"),
                subtitle=m.get("subtitle"),
                sender=Sender(sender["id"], sender.get("name")) if sender is not None else None,
                thread=m.get("thread"), category=m.get("category"), badge=m.get("badge"),
                trunc=m.get("trunc") is True, x=dict(m.get("x") or {}))
        except (KeyError, TypeError, AttributeError) as e:
            raise ContentError(f"not a content: {e}") from None
        if "trunc" in m and m["trunc"] is not True:
            raise ContentError("trunc must be true")
        if validate:
            content.validate()
        return content

    @classmethod
    def decode(cls, data: bytes, max_bytes: Optional[int] = MAX_CONTENT_BYTES) -> "Content":
        """Strictly parses and validates content bytes as a receiver does (SPEC §5, at most
        ``max_bytes``; None for a sealer's input, which the size policy shortens). Unknown members
        are ignored. Raises ContentError."""
        if max_bytes is not None and len(data) > max_bytes:
            raise ContentError("content longer than 4000 bytes")
        try:
            root = parse_json(data)
        except JSONError as e:
            raise ContentError(str(e)) from None
        if not isinstance(root, JObj):
            raise ContentError("top level is not an object")
        f = dict(root.pairs)
        for name in ("cid", "mid"):
            if name not in f or not isinstance(f[name], str):
                raise ContentError(f"{name} must be a string of 1-256 bytes")
        if "ts" not in f or not _int_form(f["ts"]):
            raise ContentError("ts must be an integer 0...253402300799")
        for name in ("title", "subtitle", "body", "thread", "category"):
            if name in f and not isinstance(f[name], str):
                raise ContentError(f"{name} must be a string")
        sender = None
        if "sender" in f:
            s = f["sender"]
            if not isinstance(s, JObj):
                raise ContentError("sender must be an object")
            sf = dict(s.pairs)
            if not isinstance(sf.get("id"), str) or ("name" in sf and not isinstance(sf["name"], str)):
                raise ContentError("sender.id must be a string and sender.name a string")
            sender = Sender(sf["id"], sf.get("name"))
        if "badge" in f and not _int_form(f["badge"]):
            raise ContentError("badge must be an integer 0...2147483647")
        if "trunc" in f and f["trunc"] is not True:
            raise ContentError("trunc must be true")
        x: Dict[str, str] = {}
        if "x" in f:
            if not isinstance(f["x"], JObj) or not all(isinstance(v, str) for _, v in f["x"].pairs):
                raise ContentError("x must be an object of strings")
            x = dict(f["x"].pairs)
        content = cls(
            cid=f["cid"], mid=f["mid"], ts=int(f["ts"].raw), body=f.get("body"), title=f.get("title"),
            subtitle=f.get("subtitle"), sender=sender, thread=f.get("thread"), category=f.get("category"),
            badge=int(f["badge"].raw) if "badge" in f else None, trunc="trunc" in f, x=x)
        content.validate()
        return content

    @staticmethod
    def unknown_members(data: bytes) -> List[str]:
        """Names of the top-level members a v1 content does not define."""
        root = parse_json(data)
        return [k for k, _ in root.pairs if k not in _KNOWN] if isinstance(root, JObj) else []


def _int_form(v: Any) -> bool:
    return isinstance(v, JNum) and len(v.raw) <= 20 and re.fullmatch(r"0|[1-9][0-9]*", v.raw) is not None


def _utf8_len(s: str) -> int:
    return len(s.encode("utf-8", errors="surrogatepass"))


def json_string(s: str) -> str:
    """A string in the deterministic encoding of SPEC §5.3."""
    out = ['"']
    for ch in s:
        o = ord(ch)
        if ch == '"':
            out.append('\\"')
        elif ch == "\\":
            out.append("\\\\")
        elif o < 0x20:
            out.append({8: "\\b", 12: "\\f", 10: "\\n", 13: "\\r", 9: "\\t"}.get(o, "\\u%04x" % o))
        else:
            out.append(ch)
    out.append('"')
    return "".join(out)


def escaped_length(s: str) -> int:
    """Bytes of ``s`` inside a JSON string as :func:`json_string` writes it (without quotes)."""
    n = 0
    for b in s.encode("utf-8"):
        if b in (0x22, 0x5C, 0x08, 0x0C, 0x0A, 0x0D, 0x09):
            n += 2
        elif b < 0x20:
            n += 6
        else:
            n += 1
    return n
