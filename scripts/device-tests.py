#!/usr/bin/env python3
"""The CUDA device test binaries of the test package, read from the package itself.

  device-tests.py list      every test target of wavekit-tests (tests/Cargo.toml) whose source
                            gates on the `cuda` feature or holds a test ignored as needing a CUDA
                            device, and whose required features are `cuda` at most: what
                            scripts/gpu-test.sh builds and stages, one name a line.
  device-tests.py several   "target test-name" for each of those tests that needs several GPUs
                            (ignored as "needs several CUDA devices"): run.sh skips them aloud on
                            a machine with one GPU.

Reading the package (cargo metadata) instead of a list kept by hand is what keeps a new device
test file from being left out of the GPU run.
"""
import json
import re
import subprocess
import sys

CUDA_MARK = re.compile(r'feature\s*=\s*"cuda"|#\[ignore = "needs (a CUDA device|several CUDA devices)')
# A whole file gated on another feature (`#![cfg(feature = "nccl")]`) is an empty binary here.
OTHER_GATE = re.compile(r'^#!\[cfg\(feature = "(?!cuda")[^"]+"\)\]', re.M)
SEVERAL = re.compile(r'#\[ignore = "needs several CUDA devices"\]\s*\n\s*(?:#\[[^\n]*\]\s*\n\s*)*(?:pub\s+)?fn\s+(\w+)')


def targets():
    meta = json.loads(
        subprocess.run(
            ["cargo", "metadata", "--format-version", "1", "--no-deps"],
            check=True,
            capture_output=True,
            text=True,
        ).stdout
    )
    pkg = next(p for p in meta["packages"] if p["name"] == "wavekit-tests")
    for t in pkg["targets"]:
        if t["kind"] != ["test"]:
            continue
        if not set(t.get("required-features", [])) <= {"cuda"}:
            continue
        src = open(t["src_path"], encoding="utf-8").read()
        if CUDA_MARK.search(src) and not OTHER_GATE.search(src):
            yield t["name"], src


def main():
    mode = sys.argv[1] if len(sys.argv) > 1 else "list"
    found = sorted(targets())
    if mode == "list":
        for name, _ in found:
            print(name)
    elif mode == "several":
        for name, src in found:
            for m in SEVERAL.finditer(src):
                print(name, m.group(1))
    else:
        sys.exit(f"usage: {sys.argv[0]} list|several")


if __name__ == "__main__":
    main()
