#!/usr/bin/env python3
"""Summarises MLX's C++ suite runs of scripts/gpu/run (suite-ARM-DEVICE.log/.rc in the folder
given) as JSON: per arm and device (gpujitN: GPU cases run apart, see run_suite) the cases run, passed and failed with the failing case
names, and per device the failures of the patched arm that stock does not have; with a second
argument (the patched arm's SERIES file from scripts/gpu/pack), the patches it ran, by sha256."""
import json
import pathlib
import re
import sys


def failing_cases(text):
    """Cases with an error in one of their report blocks; doctest also names a case in a block
    for a MESSAGE, which is not a failure."""
    failing = set()
    for block in re.split(r"^={20,}$", text, flags=re.M):
        name = re.search(r"^TEST CASE:\s*(.*)$", block, re.M)
        if name and re.search(r": (ERROR|FATAL ERROR): |CRASHED", block):
            failing.add(name.group(1).strip())
    return sorted(failing)


out = pathlib.Path(sys.argv[1])
runs = {}
for log in sorted(out.glob("suite-*-*.log")):
    arm, device = log.stem.removeprefix("suite-").rsplit("-", 1)  # arm names may hold "-"
    text = log.read_text(errors="replace")
    rc_file = log.with_suffix(".rc")
    summary = re.search(r"\[doctest\] test cases:\s*(\d+)\s*\|\s*(\d+) passed\s*\|\s*(\d+) failed", text)
    runs.setdefault(arm, {})[device] = {
        "exit_status": int(rc_file.read_text()) if rc_file.exists() else None,
        "finished": summary is not None,
        "cases": int(summary.group(1)) if summary else None,
        "passed": int(summary.group(2)) if summary else None,
        "failed": int(summary.group(3)) if summary else None,
        "failing_cases": failing_cases(text),
        "last_lines": text.splitlines()[-3:] if summary is None else [],
    }
patch_only = {}
for device in sorted({d for arm in runs.values() for d in arm}):
    stock = runs.get("stock", {}).get(device)
    patched = runs.get("patched", {}).get(device)
    if stock and patched:
        patch_only[device] = sorted(set(patched["failing_cases"]) - set(stock["failing_cases"]))
patches = []
if len(sys.argv) > 2:
    for line in pathlib.Path(sys.argv[2]).read_text().splitlines():
        sha256, name = line.split()
        patches.append({"name": name, "sha256": sha256})
json.dump({"patches": patches, "runs": runs, "patch_only_failures": patch_only}, sys.stdout, indent=2)
print()
