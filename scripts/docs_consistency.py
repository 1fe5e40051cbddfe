#!/usr/bin/env python3
"""Checks that the docs agree with each other and with the code, where a check can be written:

1. One store path: every `<container>/…` store directory and every
   `container?.appendingPathComponent("…")` in Docs/ and README.md name the same directory.
2. Current file-format numbers: Docs/KEY-STORE.md's status line names the key store's file format
   version that Sources/PushSealKeyStore/Schema.swift writes (`currentVersion`).
3. Section numbers: in every Markdown file of Docs/, README.md and Vectors/README.md, no section
   number occurs twice and the top-level sections are in ascending order.
4. README snippets: each Swift code block of README.md is, line for line (imports and comment-only
   lines aside, indentation ignored), the block between `// README: NAME` and `// README end` in
   Tests/PushSealVectorsTests/ReadmeExampleTests.swift, which compiles and runs it.
5. Vectors/README.md counts: the vector files it says it has ("four files", "each of the four")
   are the files of its table and the Vectors/pushseal-v1*.json files on disk.

  scripts/docs_consistency.py [ROOT]     exit 1 with one line per problem

scripts/docs-check.sh runs it first."""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import List

NUMBERS = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten"]


def markdown_files(root: Path) -> List[Path]:
    return sorted((root / "Docs").glob("*.md")) + [root / "README.md", root / "Vectors" / "README.md"]


def outside_code(text: str) -> List[str]:
    """The lines of a Markdown text outside fenced code blocks."""
    lines, fenced = [], False
    for line in text.splitlines():
        if line.startswith("```"):
            fenced = not fenced
            continue
        if not fenced:
            lines.append(line)
    return lines


def check_store_path(root: Path) -> List[str]:
    found = []
    for path in markdown_files(root):
        text = path.read_text()
        for m in re.finditer(r"<container>/([A-Za-z0-9_./-]*PushSeal)\b", text):
            found.append((m.group(1), f"{path.relative_to(root)}: <container>/{m.group(1)}"))
        for m in re.finditer(r'container\??\.appendingPathComponent\("([^"]+)"', text):
            found.append((m.group(1).strip("/"), f'{path.relative_to(root)}: appendingPathComponent("{m.group(1)}")'))
    if not found:
        return ["store path: no <container>/… store directory found in the docs"]
    paths = {p for p, _ in found}
    if len(paths) > 1:
        return ["store path: the docs name different store directories: " + "; ".join(where for _, where in found)]
    return []


def check_format_number(root: Path) -> List[str]:
    schema = (root / "Sources" / "PushSealKeyStore" / "Schema.swift").read_text()
    m = re.search(r"static let currentVersion: Int64 = (\d+)", schema)
    if not m:
        return ["file format: Schema.swift has no `static let currentVersion: Int64 = N`"]
    current = m.group(1)
    status = re.search(r"^Status: describes file format version (\d+) \(`PRAGMA user_version = (\d+)`\)",
                       (root / "Docs" / "KEY-STORE.md").read_text(), re.M)
    if not status:
        return ["file format: Docs/KEY-STORE.md has no status line 'Status: describes file format version N (`PRAGMA user_version = N`)'"]
    if status.group(1) != current or status.group(2) != current:
        return [f"file format: Docs/KEY-STORE.md's status names version {status.group(1)}/{status.group(2)}, Schema.swift writes {current}"]
    return []


def check_sections(root: Path) -> List[str]:
    problems = []
    for path in markdown_files(root):
        numbers, top = [], []
        for line in outside_code(path.read_text()):
            m = re.match(r"#{1,6} ((?:\d+|[A-Z])(?:\.\d+)*)[.\s]", line)
            if m:
                numbers.append(m.group(1))
                if m.group(1).isdigit():
                    top.append(int(m.group(1)))
        for number in sorted({n for n in numbers if numbers.count(n) > 1}):
            problems.append(f"sections: {path.relative_to(root)} has section {number} {numbers.count(number)} times")
        if top != sorted(top):
            problems.append(f"sections: {path.relative_to(root)}'s top-level sections are out of order: {top}")
    return problems


def code_lines(lines: List[str]) -> List[str]:
    kept = []
    for line in lines:
        stripped = line.strip()
        if not stripped or stripped.startswith("import ") or stripped.startswith("//"):
            continue
        kept.append(stripped)
    return kept


def check_readme_snippets(root: Path) -> List[str]:
    readme = (root / "README.md").read_text()
    blocks = [code_lines(b.splitlines()) for b in re.findall(r"```swift\n(.*?)```", readme, re.S)]
    test_path = root / "Tests" / "PushSealVectorsTests" / "ReadmeExampleTests.swift"
    test = test_path.read_text()
    compiled = {name: code_lines(body.splitlines())
                for name, body in re.findall(r"// README: (\w+)\n(.*?)// README end", test, re.S)}
    problems = []
    if not blocks:
        problems.append("README snippets: README.md has no Swift code block")
    for index, block in enumerate(blocks, 1):
        if block not in compiled.values():
            problems.append(f"README snippets: README.md's Swift block {index} (starting {block[0]!r}) is not the code of any "
                            f"`// README: NAME` block of {test_path.relative_to(root)} (copy it there verbatim)")
    return problems


def check_vector_counts(root: Path) -> List[str]:
    text = (root / "Vectors" / "README.md").read_text()
    on_disk = sorted(p.name for p in (root / "Vectors").glob("pushseal-v1*.json"))
    in_table = sorted(set(re.findall(r"^\| `(pushseal-v1[a-z-]*\.json)` \|", text, re.M)))
    problems = []
    if in_table != on_disk:
        problems.append(f"vector counts: Vectors/README.md's table lists {in_table}, the directory has {on_disk}")
    word = NUMBERS[len(on_disk)] if len(on_disk) < len(NUMBERS) else str(len(on_disk))
    prose = " ".join(outside_code(text))
    pattern = r"\b(%s)\b(?= (?:cross-implementation test-vector )?files\b| generated\b)|(?:each of the|all|of the) (%s)\b" % (
        "|".join(NUMBERS[2:]), "|".join(NUMBERS[2:]))
    for m in re.finditer(pattern, prose, re.I):
        said = (m.group(1) or m.group(2)).lower()
        if said != word:
            problems.append(f"vector counts: Vectors/README.md says {m.group(0)!r}; there are {word} vector files ({', '.join(on_disk)})")
    return problems


def main(argv: List[str]) -> int:
    root = Path(argv[1]) if len(argv) > 1 else Path(__file__).resolve().parents[1]
    problems = (check_store_path(root) + check_format_number(root) + check_sections(root)
                + check_readme_snippets(root) + check_vector_counts(root))
    for problem in problems:
        print(f"docs-consistency: error: {problem}", file=sys.stderr)
    if problems:
        print("docs-consistency: hint: fix the docs (or the check, when the code changed on purpose)", file=sys.stderr)
        return 1
    print("docs-consistency: store path, file format, section numbers, README snippets and vector counts agree")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
