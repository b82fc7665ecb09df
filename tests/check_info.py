#!/usr/bin/env python3
"""CTest info_output: clnorm-info's JSON and text on the test device. Every device that has a
clnorm context lists one launch plan per op x dtype x cols, none with an error, each with every
field of clnorm_launch_info as a non-negative integer; the text table has the same plans, each
row with all its numbers. Usage: check_info.py CLNORM_INFO"""
import json
import subprocess
import sys

FIELDS = ("vector_width items_per_row rows_per_group work_group_size register_cache "
          "register_accumulators work_groups rows_per_item raw_cache pipelined reread_batch "
          "local_accumulators local_row reread_vectors column_sweep one_read_stats l2_prefetch "
          "unaligned row_phase residual_early row_sum_butterfly local_weight l2_prefetch_current").split()
OPS = ("forward", "backward", "bwd_dx", "bwd_res", "bwd_dx_res")


def fail(msg):
    print("check_info.py: " + msg)
    sys.exit(1)


def main():
    tool = sys.argv[1]
    doc = json.loads(subprocess.run([tool, "--json"], check=True, capture_output=True, text=True).stdout)
    json_plans = 0
    for platform in doc["platforms"]:
        for dev in platform.get("devices") or []:
            if not dev.get("clnorm_context", {}).get("ok"):
                continue
            plans = dev["launch_plans"]
            ops = {p["op"] for p in plans}
            if ops != set(OPS):
                fail("%s: ops %s, expected %s" % (dev["name"], sorted(ops), sorted(OPS)))
            if len(plans) % len(OPS):
                fail("%s: %d plans, not the same count per op" % (dev["name"], len(plans)))
            for p in plans:
                if "error" in p:
                    fail("%s: plan %s %s %s: %s" % (dev["name"], p["op"], p["dtype"], p["cols"], p["error"]))
                for f in FIELDS:
                    if not isinstance(p.get(f), int) or p[f] < 0:
                        fail("%s: plan %s %s %s: field %s is %r" % (dev["name"], p["op"], p["dtype"], p["cols"], f, p.get(f)))
            json_plans += len(plans)
    if not json_plans:
        fail("no device with a clnorm context and launch plans")
    text = subprocess.run([tool], check=True, capture_output=True, text=True).stdout
    rows = 0
    for line in text.splitlines():
        tok = line.split()
        if len(tok) >= 2 and tok[0] in OPS and tok[1] in ("f32", "bf16", "f16"):
            nums = tok[2:]
            if len(nums) != 1 + len(FIELDS) or not all(n.isdigit() for n in nums):
                fail("text row with %d values, expected cols and %d fields: %s" % (len(nums), len(FIELDS), line.strip()))
            rows += 1
    if rows != json_plans:
        fail("%d plan rows in the text, %d plans in the JSON" % (rows, json_plans))
    print("check_info.py: %d plans, every field, in JSON and text" % rows)


main()
