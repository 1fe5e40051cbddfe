#!/usr/bin/env python3
"""Round trips between the `pushseal` tool and the three ports.

  roundtrip.py [--require] [PUSHSEAL_BINARY]

For a few contents (one long enough to be truncated), with a fixed key and salt:
  1. `pushseal seal` -> APNs payload; every port's `open` must decrypt it to the sealed content;
  2. every port's `seal --apns` -> payload; `pushseal open` must decrypt it to the same content;
  3. the APNs payload and the FCM message of `pushseal seal` and of every port's `seal` must be
     identical byte for byte (same key, salt, pad block, size policy and payload shape).
The ports run from the source tree: `python -m pushseal`, `node/bin/pushseal.mjs`, and the Java
library jar built by `java/build.sh` with `dev.pushseal.PortCli`.
The binary defaults to $PUSHSEAL, then .build/debug/pushseal, then `pushseal` on PATH. When it has
no working `seal`/`open` yet, the script prints a SKIP line and exits 0 (exit 1 with --require).
Ends with "N passed, N failed"; exits non-zero on any failure.
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(HERE / "python"))
from pushseal import Content, b64url_encode  # noqa: E402

KEY = b64url_encode(bytes(range(32)))
SALT = b64url_encode(bytes(range(0xa0, 0xb8)))
NOW = 1764400000
CONTENTS = [
    {"cid": "conv-rt", "mid": "m-1", "ts": NOW - 5, "title": "Ana", "body": "Hello"},
    {"cid": "conv-rt", "mid": "m-2", "ts": NOW, "body": "Grüße 👋🏽 \"q\" \\ \n\t\u0001 / \u2028"},
    {"cid": "conv-rt", "mid": "m-3", "ts": NOW - 60, "title": "T", "subtitle": "S", "body": "",
     "sender": {"id": "u-1", "name": "Ana"}, "thread": "t", "category": "reply", "badge": 7, "trunc": True,
     "x": {"z": "1", "a": "2", "é": "3"}},
    {"cid": "conv-rt", "mid": "m-4", "ts": NOW - 1, "title": "Long", "body": "क्षत्रिय 👨‍👩‍👧‍👦 Grüße " * 200},
]
FCM_TOKEN = "round-trip-token"
PAD_BLOCK = "32"


def find_binary(arg):
    for cand in (arg, os.environ.get("PUSHSEAL"), str(ROOT / ".build" / "debug" / "pushseal"), shutil.which("pushseal")):
        if cand and Path(cand).is_file() and os.access(cand, os.X_OK):
            return cand
    return None


def run(cmd, stdin):
    p = subprocess.run(cmd, input=stdin, capture_output=True, timeout=120)
    return p.returncode, p.stdout, p.stderr


def probe(binary):
    """True when `pushseal seal` prints a JSON payload with a top-level pushseal member."""
    src = json.dumps(CONTENTS[0]).encode()
    try:
        rc, out, _ = run([binary, "seal", "--key", KEY, "--salt", SALT, "--test-vectors-only", "--pad-block", PAD_BLOCK], src)
        return rc == 0 and isinstance(json.loads(out).get("pushseal"), str)
    except (ValueError, AttributeError, OSError, subprocess.TimeoutExpired):
        return False


def main(argv):
    require = "--require" in argv
    args = [a for a in argv if a != "--require"]
    binary = find_binary(args[0] if args else None)
    java_dir = tempfile.mkdtemp()
    try:
        if binary is None or not probe(binary):
            print(f"roundtrip: SKIP: no `pushseal` whose `seal` prints an APNs payload (looked for {binary or 'pushseal'})")
            return 1 if require else 0
        subprocess.run([str(HERE / "java" / "build.sh"), java_dir], check=True, stdout=subprocess.DEVNULL)
        jar = Path(java_dir) / f"pushseal-{(HERE.parents[1] / 'VERSION').read_text().strip()}.jar"  # not the -sources/-javadoc jars
        os.environ["PYTHONPATH"] = str(HERE / "python")
        ports = {
            "python": [sys.executable, "-m", "pushseal"],
            "node": ["node", str(HERE / "node" / "bin" / "pushseal.mjs")],
            "java": ["java", "-cp", f"{jar}:{java_dir}/runner", "dev.pushseal.PortCli"],
        }
        passed = failed = 0

        def check(ok, label, detail=""):
            nonlocal passed, failed
            if ok:
                passed += 1
            else:
                failed += 1
                print(f"FAIL {label}{': ' + detail if detail else ''}")

        for i, c in enumerate(CONTENTS, 1):
            src = json.dumps(c, ensure_ascii=False).encode("utf-8")
            cid = c["cid"]
            rc, swift_payload, err = run([binary, "seal", "--key", KEY, "--salt", SALT, "--test-vectors-only", "--pad-block", PAD_BLOCK], src)
            if rc != 0:
                check(False, f"content {i}: pushseal seal", err.decode(errors="replace").strip())
                continue
            rc, swift_fcm, err = run([binary, "seal", "--key", KEY, "--salt", SALT, "--test-vectors-only", "--pad-block", PAD_BLOCK,
                                      "--transport", "fcm", "--fcm-token", FCM_TOKEN], src)
            check(rc == 0, f"content {i}: pushseal seal --transport fcm", err.decode(errors="replace").strip())
            rc, out, err = run([binary, "open", "--key", KEY, "--conversation", cid, "--now", str(NOW)], swift_payload)
            try:
                canonical = json.dumps(json.loads(out)["content"], ensure_ascii=False, separators=(",", ":"))
            except (ValueError, KeyError, TypeError):
                check(False, f"content {i}: pushseal opens its own payload", (out + err).decode(errors="replace").strip())
                continue
            for name, cmd in ports.items():
                rc, out, err = run(cmd + ["open", "--key", KEY, "--conversation", cid, "--now", str(NOW)], swift_payload)
                res = json.loads(out) if rc in (0, 3) and out.strip() else {}
                check(rc == 0 and res.get("outcome") == "decrypted"
                      and json.dumps(res.get("content"), ensure_ascii=False, separators=(",", ":")) == canonical,
                      f"content {i}: {name} opens pushseal's payload", (out + err).decode(errors="replace").strip())
                rc, port_fcm, err = run(cmd + ["seal", "--key", KEY, "--salt", SALT, "--pad-block", PAD_BLOCK, "--fcm", FCM_TOKEN], src)
                check(rc == 0 and port_fcm.strip() == swift_fcm.strip(), f"content {i}: {name} FCM message == pushseal's",
                      (port_fcm + err).decode(errors="replace").strip()[:300])
                rc, port_payload, err = run(cmd + ["seal", "--key", KEY, "--salt", SALT, "--pad-block", PAD_BLOCK, "--apns"], src)
                check(rc == 0 and port_payload.strip() == swift_payload.strip(), f"content {i}: {name} APNs payload == pushseal's",
                      (port_payload + err).decode(errors="replace").strip()[:300])
                rc2, out, err2 = run([binary, "open", "--key", KEY, "--conversation", cid, "--now", str(NOW)], port_payload)
                try:
                    res = json.loads(out)
                except ValueError:
                    res = {}
                check(rc == 0 and rc2 == 0 and res.get("outcome") == "decrypted" and res.get("reason") is None,
                      f"content {i}: pushseal opens {name}'s payload", (out + err2).decode(errors="replace").strip())
        print(f"{passed} passed, {failed} failed")
        return 0 if failed == 0 and passed > 0 else 1
    finally:
        shutil.rmtree(java_dir, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
