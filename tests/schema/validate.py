#!/usr/bin/env python3
"""Validates napkin's JSON output against docs/output.schema.json (JSON Schema draft 2020-12).

Usage: validate.py NAPKIN SCHEMA EXAMPLES_DIR

Checked:
  - the schema is itself a valid draft 2020-12 schema, and it rejects broken objects (so this
    test can fail: no schema_version, another version, a placeholder "-" for a missing value, a
    number without its unit, an empty assumption flag);
  - every golden --json / --jsonl output (EXAMPLES_DIR/*/expected.json, expected.jsonl,
    expected.compact.jsonl), and live outputs: presets models/hardware, sweeps (--json array and
    --jsonl lines), serve --per-op, --jsonl --compact (a header line, then rows of values);
  - in every object "schema_version" comes first and "command" second;
  - error cases (EXAMPLES_DIR/*/expected.code = 2), run again with --json and --jsonl: exit 2,
    nothing on stdout, one stderr line starting "napkin: error: ".
Needs the jsonschema module (Debian: python3-jsonschema; scripts/deps installs it).
"""
import copy
import json
import pathlib
import subprocess
import sys

import jsonschema

# Live outputs the goldens do not hold: (arguments, what stdout must be: one object, an array of
# objects, or one object per line).
LIVE = [
    (["presets", "models", "--json"], "array"),
    (["presets", "hardware", "--json"], "array"),
    (["presets", "hardware", "--jsonl"], "lines"),
    (["flops", "matmul", "--m", "1,2,4", "--k", "8", "--n", "8..16:+8", "--json"], "array"),
    (["memory", "llama-3.1-8b", "--batch", "1,8", "--context", "8Ki", "--hw", "h100-sxm", "--jsonl"], "lines"),
    (["memory", "llama-3.1-405b", "--hw", "l4", "--max", "batch", "--json"], "object"),  # null: nothing fits
    (["serve", "llama-3.1-8b", "--hw", "h100-sxm", "--per-op", "--json"], "object"),
    (["kernel", "online-softmax", "--scores", "-inf,0,ln2", "--values", "1,2,4", "--blocks", "1,2", "--json"],
     "object"),
    (["memory", "llama-3.1-8b,gpt-oss-20b", "--batch", "1,8", "--hw", "h100-sxm", "--jsonl", "--compact"], "lines"),
    (["serve", "llama-3.1-8b", "--hw", "h100-sxm", "--batch", "1,2", "--per-op", "--jsonl", "--compact"], "lines"),
    (["presets", "hardware", "--jsonl", "--compact"], "lines"),
]


def first_keys(pairs):
    keys = [k for k, _ in pairs]
    if "command" in keys:  # a result set, not a nested object
        if keys[:2] != ["schema_version", "command"]:
            raise ValueError(f"keys start {keys[:2]}, expected ['schema_version', 'command']")
    return dict(pairs)


def documents(text, lines):
    """The JSON documents of one output: the whole text, or one per line for JSONL."""
    parts = text.splitlines() if lines else [text]
    return [json.loads(p, object_pairs_hook=first_keys) for p in parts if p.strip()]


def run(napkin, args):
    return subprocess.run([napkin, *args], capture_output=True, text=True, timeout=60)


def main():
    napkin, schema_path, examples = sys.argv[1], pathlib.Path(sys.argv[2]), pathlib.Path(sys.argv[3])
    schema = json.loads(schema_path.read_text())
    jsonschema.Draft202012Validator.check_schema(schema)
    validator = jsonschema.Draft202012Validator(schema)
    failures = []
    checked = 0
    golden_files = 0

    def check(where, doc):
        nonlocal checked
        checked += 1
        for e in sorted(validator.iter_errors(doc), key=lambda e: list(e.absolute_path)):
            path = "/".join(str(p) for p in e.absolute_path)
            failures.append(f"{where}: /{path}: {e.message[:300]}")

    # Golden outputs.
    for expected in sorted(examples.glob("*/expected.json*")):
        if expected.suffix not in (".json", ".jsonl"):
            continue
        case = expected.parent
        golden_files += 1
        code = (case / "expected.code").read_text().strip() if (case / "expected.code").exists() else "0"
        text = expected.read_text()
        if code == "2":
            if text.strip():
                failures.append(f"{expected}: an error case (exit 2) with output on stdout")
            continue
        try:
            docs = documents(text, expected.suffix == ".jsonl")
        except ValueError as e:
            failures.append(f"{expected}: {e}")
            continue
        if not docs:
            failures.append(f"{expected}: no JSON document")
        for i, doc in enumerate(docs):
            check(f"{expected}[{i}]", doc)
    goldens = checked

    # Live outputs the goldens do not hold.
    live = {}
    for args, shape in LIVE:
        where = "napkin " + " ".join(args)
        r = run(napkin, args)
        if r.returncode not in (0, 1):
            failures.append(f"{where}: exit {r.returncode}: {r.stderr.strip()}")
            continue
        try:
            docs = documents(r.stdout, shape == "lines")
        except ValueError as e:
            failures.append(f"{where}: {e}")
            continue
        if (len(docs) > 1) != (shape == "lines") or (shape == "array") != isinstance(docs[0], list):
            failures.append(f"{where}: stdout is not {shape}")
        live[" ".join(args)] = docs
        for doc in docs:
            check(where, doc)
    t4 = [o for o in live.get("presets hardware --json", [[]])[0] if o["inputs"]["hardware"] == "t4"]
    if not t4 or t4[0]["results"]["peak_bf16"]["value"] is not None:
        failures.append("presets hardware --json: t4's unpublished bf16 peak is not null")

    # The schema rejects what it must.
    sample = documents(run(napkin, ["flops", "matmul", "--m", "8", "--k", "8", "--n", "8", "--json"]).stdout, False)[0]
    broken = {
        "no schema_version": lambda d: d.pop("schema_version"),
        "schema_version 2": lambda d: d.update(schema_version=2),
        "a '-' for a missing value": lambda d: d["results"]["flops"].update(value="-"),
        "a number without its unit": lambda d: d["results"]["flops"].pop("unit"),
        "an empty assumption flag": lambda d: d["assumptions"][0].update(flag=""),
        "an unknown unit": lambda d: d["results"]["flops"].update(unit="FLOPs"),
        "a result without a formula": lambda d: d["results"]["flops"].pop("formula"),
    }
    for what, spoil in broken.items():
        doc = copy.deepcopy(sample)
        spoil(doc)
        if validator.is_valid(doc):
            failures.append(f"the schema accepts an object with {what}")
    # And the compact lines: a header, then a row.
    compact = documents(run(napkin, ["flops", "matmul", "--m", "8", "--k", "8", "--n", "8", "--jsonl", "--compact"]).stdout,
                        True)
    if len(compact) != 2 or "schema_version" not in compact[0] or "schema_version" in compact[1]:
        failures.append(f"flops matmul --jsonl --compact: expected a header line and a row, got {compact!r:.300}")
    else:
        broken_compact = {
            "a header without \"compact\"": (0, lambda d: d.pop("compact")),
            "a header whose results are an object": (0, lambda d: d.update(results={"flops": d["results"][0]})),
            "a header result with an unknown unit": (0, lambda d: d["results"][0].update(unit="FLOPs")),
            "a header result with its value": (0, lambda d: d["results"][0].update(value=1)),
            "a row with schema_version": (1, lambda d: d.update(schema_version=1)),
            "a row whose results are an object": (1, lambda d: d.update(results={"flops": 1024})),
            "a row with a '-' for a missing value": (1, lambda d: d["results"].__setitem__(0, "-")),
        }
        for what, (line, spoil) in broken_compact.items():
            doc = copy.deepcopy(compact[line])
            spoil(doc)
            if validator.is_valid(doc):
                failures.append(f"the schema accepts {what}")
        broken.update(broken_compact)

    # Errors under --json and --jsonl: one stderr line, exit 2, nothing on stdout.
    errors = 0
    for case in sorted(examples.iterdir()):
        code_file = case / "expected.code"
        if not code_file.exists() or code_file.read_text().strip() != "2":
            continue
        for fmt in ("--json", "--jsonl"):
            args = (case / "cmd").read_text().split() + [fmt]
            r = run(napkin, args)
            errors += 1
            lines = r.stderr.splitlines()
            if r.returncode != 2 or r.stdout or len(lines) != 1 or not lines[0].startswith("napkin: error: "):
                failures.append(f"{case.name} {fmt}: exit {r.returncode}, {len(r.stdout)} bytes on stdout, "
                                f"stderr {r.stderr!r}; expected exit 2, no stdout, one 'napkin: error:' line")

    for f in failures:
        print("FAIL " + f)
    print(f"schema: {checked} documents validated ({goldens} from {golden_files} golden files), {len(broken)} broken objects "
          f"rejected, {errors} error runs checked, {len(failures)} failures")
    if golden_files == 0 or errors == 0:
        print("FAIL: no golden JSON outputs or no error cases found in " + str(examples))
        return 1
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
