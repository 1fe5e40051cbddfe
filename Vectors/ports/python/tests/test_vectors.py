"""Both vector files of the repository pass, and a changed expectation is caught."""

import json
import os
from pathlib import Path

import pytest

from pushseal import vectors

ROOT = Path(os.environ.get("PUSHSEAL_VECTORS", Path(__file__).resolve().parents[3]))
RECEIVER = ROOT / "pushseal-v1.json"
PROVIDER = ROOT / "pushseal-v1-provider.json"


@pytest.mark.parametrize("path", [RECEIVER, PROVIDER], ids=["receiver", "provider"])
def test_vector_file_passes(path, capsys):
    passed, failed = vectors.run_file(path)
    assert (passed, failed) == (json.loads(path.read_text())["numberOfTests"], 0), capsys.readouterr().out


def test_a_wrong_payload_byte_is_caught(tmp_path, capsys):
    doc = json.loads(PROVIDER.read_text())
    case = next(t for t in doc["tests"] if t.get("path") == "truncated")
    case["payload"] = case["payload"].replace("\"mutable-content\":1", "\"mutable-content\": 1", 1)
    (tmp_path / "p.json").write_text(json.dumps(doc))
    assert vectors.run_file(tmp_path / "p.json")[1] == 1
    assert "payload differs" in capsys.readouterr().out


@pytest.mark.parametrize("member", ["keyBundle", "ttl", "sound"])
def test_an_option_the_runner_does_not_know_fails_its_case(member, tmp_path, capsys):
    doc = json.loads(PROVIDER.read_text())
    case = next(t for t in doc["tests"] if member in t["options"])
    case["options"][member + "X"] = case["options"].pop(member)
    (tmp_path / "p.json").write_text(json.dumps(doc))
    assert vectors.run_file(tmp_path / "p.json") == (doc["numberOfTests"] - 1, 1)
    assert f"unknown {case['transport']} option {member}X" in capsys.readouterr().out


def test_a_file_in_another_schema_fails(tmp_path):
    (tmp_path / "x.json").write_text('{"schema":"other","tests":[]}')
    assert vectors.main([str(tmp_path / "x.json")]) == 1
