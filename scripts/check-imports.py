#!/usr/bin/env python3
"""Every module a Swift file imports is a dependency its target declares.

SwiftPM's `--explicit-target-dependency-import-check` accepts a module that is
reached through another target's dependencies, so a target can lean on what a
dependency happens to pull in; this check reads the manifest (`swift package
dump-package`) and every Swift file of every target, and fails on an import of a
module the target does not name itself (its target dependencies, its products,
or the toolchain's own modules).

Usage: scripts/check-imports.py [PACKAGE_DIR]   (exit 1 and a list when one is found)
"""
import json
import os
import re
import subprocess
import sys

# Modules every target may import: the toolchain's and the platform's.
TOOLCHAIN = {
    "Swift", "_Concurrency", "_StringProcessing", "Foundation", "FoundationEssentials",
    "FoundationInternationalization", "FoundationNetworking", "FoundationXML", "Dispatch",
    "Synchronization", "Glibc", "Musl", "Darwin", "Android", "Testing", "XCTest", "os", "RegexBuilder",
}
IMPORT = re.compile(
    r"^\s*(?:@[\w(), :]+\s+)*(?:(?:public|package|internal|fileprivate|private)\s+)?import\s+"
    r"(?:(?:struct|class|enum|protocol|func|var|let|typealias)\s+)?([A-Za-z_][A-Za-z0-9_]*)",
    re.MULTILINE)


def main() -> int:
    root = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else ".")
    manifest = json.loads(subprocess.run(
        ["swift", "package", "dump-package"], cwd=root, check=True, capture_output=True, text=True).stdout)
    problems = []
    for target in manifest["targets"]:
        if target["type"] in ("system", "binary", "plugin"):
            continue
        declared = set()
        for dependency in target.get("dependencies", []):
            for kind in ("byName", "target", "product"):
                if kind in dependency:
                    declared.add(dependency[kind][0])
        path = target.get("path") or os.path.join("Tests" if target["type"] == "test" else "Sources", target["name"])
        folder = os.path.join(root, path)
        for directory, _, files in os.walk(folder):
            for name in sorted(files):
                if not name.endswith(".swift"):
                    continue
                file = os.path.join(directory, name)
                with open(file, encoding="utf-8") as handle:
                    text = handle.read()
                for module in sorted(set(IMPORT.findall(text))):
                    if module in declared or module in TOOLCHAIN or module == target["name"]:
                        continue
                    problems.append(f"{os.path.relpath(file, root)}: imports {module}, "
                                    f"which target {target['name']} does not declare")
    for problem in problems:
        print(problem)
    if problems:
        print(f"{len(problems)} undeclared import(s): add them to the target's dependencies in Package.swift")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
