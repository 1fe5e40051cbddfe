#!/usr/bin/env python3
"""One version everywhere: the repository's VERSION file is the source of truth, and
`pushseal --version`, the Python package, the Node package, the Java library and the newest
CHANGELOG.md entry must all say the same.

  scripts/check_version.py PUSHSEAL_BINARY

Prints one line per place; exits 1 when any differs."""

import json
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def grep(path, pattern):
    m = re.search(pattern, (ROOT / path).read_text(), re.M)
    return m.group(1) if m else None


def main(argv):
    if len(argv) != 1:
        print(__doc__.strip(), file=sys.stderr)
        return 64
    truth = (ROOT / "VERSION").read_text().strip()
    if not re.fullmatch(r"[0-9]+\.[0-9]+\.[0-9]+", truth):
        print(f"check_version: VERSION is not x.y.z: {truth!r}")
        return 1
    places = {
        "pushseal --version": subprocess.run([argv[0], "--version"], capture_output=True, text=True).stdout.strip(),
        "Sources/PushSealCommands/PushSealTool.swift": grep("Sources/PushSealCommands/PushSealTool.swift", r'static let version = "([^"]+)"'),
        "Vectors/ports/python (pushseal/_version.py)": grep("Vectors/ports/python/pushseal/_version.py", r'__version__ = "([^"]+)"'),
        "Vectors/ports/node/package.json": json.loads((ROOT / "Vectors/ports/node/package.json").read_text())["version"],
        "Vectors/ports/java (PushSeal.VERSION)": grep("Vectors/ports/java/src/dev/pushseal/PushSeal.java", r'VERSION = "([^"]+)"'),
        "CHANGELOG.md (newest entry)": grep("CHANGELOG.md", r"^## \[?([0-9]+\.[0-9]+\.[0-9]+)"),
    }
    bad = 0
    for place, version in places.items():
        ok = version == truth
        bad += not ok
        print(f"{'ok  ' if ok else 'FAIL'} {place}: {version}" + ("" if ok else f" (VERSION says {truth})"))
    for package in ("python", "node"):
        if (ROOT / "Vectors/ports" / package / "LICENSE").read_bytes() != (ROOT / "LICENSE").read_bytes():
            print(f"FAIL Vectors/ports/{package}/LICENSE differs from LICENSE")
            bad += 1
    print(f"version {truth}: {bad} of {len(places) + 2} checks differ")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
