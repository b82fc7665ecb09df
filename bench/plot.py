#!/usr/bin/env python3
"""Draw clnorm-bench results: GB/s and fraction of a plain copy against cols, one line per op and dtype.

    python3 bench/plot.py results.json -o out.png
    python3 bench/plot.py results.csv --device "NVIDIA H200" -o out.png
    python3 bench/plot.py a.json b.json -o out.png     # one PNG per device: out-<device>.png

Reads what `clnorm-bench --json FILE` or `--csv FILE` writes. The JSON header names the device
(and platform, driver, date, set) for the title; a CSV has only the results, so its device comes
from --device, else from the file name. Extra shapes (`--full`'s cols beyond the headline ones,
"headline": false) are drawn with hollow markers, or left out with --headline-only. Rows of the
library compared with (`--vs onednn`) are lines of their own ("onednn forward f32"). Files from
before those fields existed read as clnorm rows of headline shapes. Needs matplotlib
(pip install matplotlib).
"""

import argparse
import csv
import json
import math
import os
import re
import sys
from collections import OrderedDict

OPS = ["forward", "backward", "backward_res", "unfused", "backward_dx", "backward_dx_res"]  # clnorm-bench's order
OP_COLORS = {"forward": "#1f77b4", "backward": "#d62728", "backward_res": "#2ca02c", "unfused": "#7f7f7f",
             "backward_dx": "#ff7f0e", "backward_dx_res": "#9467bd",
             "onednn forward": "#17becf", "onednn backward": "#8c564b"}
DTYPE_STYLES = {"f32": "-", "bf16": "--", "f16": ":"}
FIELDS = ["op", "dtype", "rows", "cols", "ms", "gbps", "copy_gbps", "fraction"]  # required
OPTIONAL = ["headline", "impl"]  # newer files; defaults: a headline shape, clnorm


def flag(v):
    """headline as JSON true/false, CSV 1/0, or absent (older files: every shape was a headline one)."""
    if v is None or v == "":
        return True
    if isinstance(v, str):
        return v.strip().lower() not in ("0", "false", "no")
    return bool(v)


def number(v):
    if v is None or v == "":
        return math.nan
    return float(v)


def read_json(path):
    with open(path, encoding="utf-8") as f:
        doc = json.load(f)
    header = {k: v for k, v in doc.items() if k != "results"}
    return header, [{k: r.get(k) for k in FIELDS + OPTIONAL} for r in doc["results"]]


def read_csv(path):
    with open(path, newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    missing = [k for k in FIELDS if rows and k not in rows[0]]
    if missing:
        raise ValueError(f"{path}: not a clnorm-bench CSV (no column {', '.join(missing)})")
    return {}, rows


def read(path, device, headline_only=False):
    with open(path, encoding="utf-8") as f:
        first = f.read(1)
    header, rows = read_json(path) if first == "{" else read_csv(path)
    if device:
        header["device"] = device
    header.setdefault("device", os.path.splitext(os.path.basename(path))[0])
    results = []
    for r in rows:
        headline = flag(r.get("headline"))
        if headline_only and not headline:
            continue
        impl = r.get("impl") or "clnorm"
        op = r["op"] if impl == "clnorm" else f"{impl} {r['op']}"
        results.append({"op": op, "dtype": r["dtype"], "rows": int(r["rows"]), "cols": int(r["cols"]),
                        "gbps": number(r["gbps"]), "copy_gbps": number(r["copy_gbps"]),
                        "fraction": number(r["fraction"]), "headline": headline})
    return header, results


def slug(text):
    return re.sub(r"[^A-Za-z0-9]+", "-", text).strip("-").lower() or "device"


def plot(header, results, out, dpi):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.ticker import FixedLocator, NullLocator

    dtypes = [d for d in DTYPE_STYLES if any(r["dtype"] == d for r in results)]
    dtypes += sorted({r["dtype"] for r in results} - set(dtypes))
    ops = [o for o in OPS if any(r["op"] == o for r in results)]
    # then the compared library's ops ("onednn forward"), in clnorm-bench's op order
    rank = {o: i for i, o in enumerate(OPS)}
    ops += sorted({r["op"] for r in results} - set(ops), key=lambda o: (o.split()[0], rank.get(o.split()[-1], 99), o))
    cols = sorted({r["cols"] for r in results})

    # 9 inches wide, more when the legend has more columns than fit (one column per op and copy)
    fig, (ax_bw, ax_fr) = plt.subplots(1, 2, figsize=(max(9.0, 1.6 * (len(ops) + 1)), 5), dpi=dpi)
    for dt in dtypes:
        style = DTYPE_STYLES.get(dt, "-.")
        copy = sorted({(r["cols"], r["copy_gbps"]) for r in results if r["dtype"] == dt})
        if copy:
            ax_bw.plot([c for c, _ in copy], [g for _, g in copy], style, color="black", lw=1, alpha=0.45,
                       label=f"copy {dt}")
        for op in ops:
            pts = sorted((r["cols"], r["gbps"], r["fraction"], r["headline"]) for r in results
                         if r["op"] == op and r["dtype"] == dt)
            if not pts:
                continue
            x = [p[0] for p in pts]
            color = OP_COLORS.get(op)
            line, = ax_bw.plot(x, [p[1] for p in pts], style, marker="o", ms=3.5, color=color, label=f"{op} {dt}")
            color = line.get_color()
            ax_fr.plot(x, [p[2] for p in pts], style, marker="o", ms=3.5, color=color, label=f"{op} {dt}")
            extra = [p for p in pts if not p[3]]
            if extra:  # hollow markers over the filled ones: extra shapes
                for ax, k in ((ax_bw, 1), (ax_fr, 2)):
                    ax.plot([p[0] for p in extra], [p[k] for p in extra], ls="none", marker="o", ms=3.5,
                            mfc="white", mec=color)

    for ax in (ax_bw, ax_fr):
        ax.set_xscale("log", base=2)
        ax.xaxis.set_major_locator(FixedLocator(cols))
        ax.xaxis.set_minor_locator(NullLocator())
        # many widths (--full with its extra shapes) crowd a log axis: slant the labels then
        ax.set_xticks(cols, [str(c) for c in cols], fontsize=8, rotation=45 if len(cols) > 8 else 0)
        ax.set_xlabel("cols (elements per row)")
        ax.grid(True, alpha=0.3)
        ax.tick_params(axis="y", labelsize=8)
    ax_bw.set_ylabel("GB/s (bytes of the tensors moved / time)")
    ax_bw.set_ylim(bottom=0)
    ax_bw.set_title("bandwidth", fontsize=10)
    ax_fr.set_ylabel("fraction of a float4 copy's GB/s")
    top = max([1.0] + [r["fraction"] for r in results if not math.isnan(r["fraction"])])
    ax_fr.set_ylim(0, top * 1.05)
    ax_fr.axhline(1.0, color="black", lw=0.8, alpha=0.45)
    ax_fr.set_title("fraction of copy", fontsize=10)
    # Legend: one row per dtype (matplotlib fills a legend column by column).
    entries = dict(zip(*reversed(ax_bw.get_legend_handles_labels())))
    names = ["copy"] + ops
    ncol = len(names)
    labels = [f"{n} {dt}" for n in names for dt in dtypes]
    handles = [entries.get(l) for l in labels]
    if None in handles:  # some op missing for some dtype: keep the plain order
        handles, labels = ax_bw.get_legend_handles_labels()
        ncol = min(len(labels), 5)
    fig.legend(handles, labels, loc="lower center", ncol=ncol, fontsize=7.5, frameon=False)

    title = f"clnorm-bench on {header['device']}"
    if header.get("set"):
        title += f" ({header['set']})"
    if any(not r["headline"] for r in results):
        title += " — hollow markers: extra shapes"
    sub = " | ".join(str(header[k]) for k in ("platform", "driver", "date") if header.get(k))
    fig.suptitle(title + ("\n" + sub if sub else ""), fontsize=11)
    nrows_legend = math.ceil(len(labels) / ncol)
    fig.tight_layout(rect=(0, 0.045 * nrows_legend + 0.01, 1, 1))
    fig.savefig(out, dpi=dpi)
    plt.close(fig)


def main(argv=None):
    ap = argparse.ArgumentParser(description="Plot clnorm-bench --json/--csv results (one PNG per device).")
    ap.add_argument("files", nargs="+", help="results.json or results.csv from clnorm-bench")
    ap.add_argument("-o", "--output", required=True, help="PNG to write (out-<device>.png for several devices)")
    ap.add_argument("--device", help="device name for the title (CSV files carry none)")
    ap.add_argument("--headline-only", action="store_true", help="leave out the extra shapes (\"headline\": false)")
    ap.add_argument("--dpi", type=int, default=100, help="dots per inch; the figure is 9 x 5 inches, wider for more than 4 ops (default 100)")
    args = ap.parse_args(argv)

    by_device = OrderedDict()
    for path in args.files:
        try:
            header, results = read(path, args.device, args.headline_only)
        except (OSError, ValueError, KeyError) as e:
            print(f"plot.py: {path}: {e}", file=sys.stderr)
            return 1
        if not results:
            print(f"plot.py: {path}: no results", file=sys.stderr)
            return 1
        entry = by_device.setdefault(header["device"], [header, []])
        entry[1].extend(results)

    base, ext = os.path.splitext(args.output)
    for device, (header, results) in by_device.items():
        out = args.output if len(by_device) == 1 else f"{base}-{slug(device)}{ext or '.png'}"
        plot(header, results, out, args.dpi)
        print(out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
