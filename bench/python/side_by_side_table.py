#!/usr/bin/python3
"""Prints the Markdown table of bench/side_by_side.sh from its JSON records.

    /usr/bin/python3 bench/python/side_by_side_table.py bench/results/<run>
"""
import json
import sys
from pathlib import Path


def load(path):
    return json.loads(path.read_text().strip().splitlines()[-1])


def main(directory):
    root = Path(directory)
    print((root / "machine.txt").read_text().strip().replace("\n", "; "))
    gemm = load(root / "gemm.json")["gemm_gflops_per_s"]
    print(f"measured matrix product: {gemm:.0f} GFLOP/s\n")
    # Percentages against the GEMM rate measured once for the whole run (a single process's
    # own short measurement is noisier).
    print("| benchmark | unit | C++ median (min-max) | Python median (min-max) | dls_bench / Python "
          "| C++ matmul GFLOP/s (% of GEMM) | C++ peak RSS MB (growth) | Python peak RSS MB |")
    print("|---|---|---|---|---|---|---|---|")
    for cpp_file in sorted(root.glob("*.cpp.json")):
        name = cpp_file.name[: -len(".cpp.json")]
        py_file = root / f"{name}.python.json"
        cpp = load(cpp_file)
        py = load(py_file) if py_file.exists() else None
        ratio = f"{cpp['median'] / py['median']:.2f}x" if py else "-"
        py_cell = (f"{py['median']:.3g} ({py['min']:.3g}-{py['max']:.3g}) [{py['impl']}]"
                   if py else "-")
        print(f"| {name} | {cpp['unit']} | {cpp['median']:.3g} ({cpp['min']:.3g}-{cpp['max']:.3g}) "
              f"| {py_cell} | {ratio} | {cpp['matmul_gflops_per_s']:.1f} "
              f"({100 * cpp['matmul_gflops_per_s'] / gemm:.0f}%) | {cpp['peak_rss_mb']:.0f} "
              f"({cpp['rss_growth_mb']:+.0f}) | {py['peak_rss_mb'] if py else '-'} |")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "bench/results")
