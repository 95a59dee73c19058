#!/usr/bin/env python3
"""The baseline that verify's trace analysis is measured against.

The source documents check a capture with a Python script that reads the whole
ftrace file and tries a regular expression on every line. This is that
approach, written for the benchmark: it counts what I3 needs (imports,
releases, submits, fence waits) and collects the imported inodes and
exporters, then prints one JSON object. It does no frame join and no
accounting, so it is a lower bound on what such a script costs.

    python3 bench/seed_checker.py TRACE
"""
import json
import re
import sys

EVENT = re.compile(r"\b(axl_dmabuf_import|axl_dmabuf_release|axl_job_submit|"
                   r"dma_fence_wait_start|dma_fence_wait_end):\s*(.*)")
FIELD = re.compile(r"(\w+)=(\S+)")


def check(path):
    counts = {"axl_dmabuf_import": 0, "axl_dmabuf_release": 0, "axl_job_submit": 0,
              "dma_fence_wait_start": 0, "dma_fence_wait_end": 0}
    inodes, exporters = set(), set()
    with open(path, encoding="utf-8", errors="replace") as f:
        lines = f.read().splitlines()
    for line in lines:
        m = EVENT.search(line)
        if not m:
            continue
        name = m.group(1)
        counts[name] += 1
        if name == "axl_dmabuf_import":
            fields = dict(FIELD.findall(m.group(2)))
            inodes.add(fields.get("inode"))
            exporters.add(fields.get("exporter"))
    return {
        "lines": len(lines),
        "imports": counts["axl_dmabuf_import"],
        "releases": counts["axl_dmabuf_release"],
        "submits": counts["axl_job_submit"],
        "fence_wait_lines": counts["dma_fence_wait_start"] + counts["dma_fence_wait_end"],
        "inodes": len(inodes),
        "exporters": sorted(e for e in exporters if e),
    }


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: seed_checker.py TRACE")
    print(json.dumps(check(sys.argv[1])))
