# SPDX-License-Identifier: GPL-2.0
"""python3 -m evaluation {sim,bench,seeds,record,docs}: the governor
evaluation's one entry point (make sim, bench, seeds, record,
evaluation-docs call it).

  sim [OUTDIR] [-- SIMARGS...]  the simulator alone over its stored corpus:
                   OUTDIR/sim.md, sim-summary.md, sim.json (also as
                   summary.json, the name runs are compared by), the energy
                   model against the
                   tables' target residencies (model.md), one `cpuidle-sim
                   run`, and the plots (sim-*.png, evaluation/sim_plots.py)
  bench [OUTDIR]   the guest benchmarks, the recording and the tick costs on
                   the bench kernel, the simulator, the report
                   (evaluation/bench.sh)
  seeds [OUTDIR]   the seeds' measurements replicated (evaluation/seeds.sh)
  record [OUTDIR]  idle periods recorded over several boots
                   (evaluation/record-boots.sh)
  docs             Documentation/evaluation/'s generated files made again

OUTDIR defaults to out/NAME in the repository (not tracked).  Run with
Debian's /usr/bin/python3 (numpy, matplotlib) from the repository's top.
"""

import argparse
import os
import shutil
import subprocess
import sys
import tempfile

from evaluation import paths

# what `sim` writes and `docs` keeps, beside the plots
# (sim.md, some 8,000 lines, stays in OUTDIR)
SIM_DOCS = ["sim-summary.md", "sim.json", "model.md"]


def sim(out, extra=()):
    """The simulator over its corpus into OUT, then its plots."""
    try:
        from evaluation import sim_plots
    except ImportError as e:
        sys.exit("evaluation sim: %s: matplotlib is needed for the plots (Debian: apt-get "
                 "install python3-matplotlib, run with /usr/bin/python3)" % e)
    os.makedirs(out, exist_ok=True)
    binary = paths.simulator()
    extra = list(extra)
    # one run of the corpus writes every report
    subprocess.run([binary, "run", "--json", os.path.join(out, "sim.json"),
                    "--md", os.path.join(out, "sim.md"),
                    "--summary", os.path.join(out, "sim-summary.md"),
                    "--model", os.path.join(out, "model.md")] + extra, check=True)
    sim_plots.main([os.path.join(out, "sim.json"), out, "--md", os.path.join(out, "sim.md")])
    shutil.copyfile(os.path.join(out, "sim.json"), os.path.join(out, "summary.json"))
    print("sim: report in %s/sim.md (the sets' tables in sim-summary.md), summary in "
          "%s/summary.json, model in %s/model.md" % (out, out, out))


def docs():
    """Documentation/evaluation/'s generated files from the current code."""
    with tempfile.TemporaryDirectory() as tmp:
        sim(tmp)
        made = SIM_DOCS + sorted(f for f in os.listdir(tmp) if f.endswith(".png"))
        for f in made:
            shutil.copyfile(os.path.join(tmp, f), os.path.join(paths.DOCS, f))
    with open(os.path.join(paths.DOCS, "bench-kept.md"), "w") as f:
        subprocess.run([os.path.join(paths.TOP, "evaluation", "bench-kept.sh")], stdout=f,
                       check=True)
    made.append("bench-kept.md")
    print("evaluation-docs: %s made again in Documentation/evaluation/" % " ".join(made))


def script(name, out):
    """One of the shell drivers that boot the bench kernel."""
    return subprocess.run([os.path.join(paths.TOP, "evaluation", name), out]).returncode


def main(argv=None):
    ap = argparse.ArgumentParser(prog="python3 -m evaluation", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="command", required=True)
    for name, what in (("sim", "the simulator over its stored corpus, and its plots"),
                       ("bench", "the guest benchmarks on the bench kernel, and the report"),
                       ("seeds", "the seeds' measurements replicated in guests"),
                       ("record", "idle periods recorded over several boots")):
        p = sub.add_parser(name, help=what)
        p.add_argument("outdir", nargs="?", default=os.path.join(paths.TOP, "out", name))
        if name == "sim":
            p.add_argument("simargs", nargs="*", help="more cpuidle-sim arguments (after --)")
    sub.add_parser("docs", help="Documentation/evaluation/'s generated files made again")
    args = ap.parse_args(argv)
    if args.command == "sim":
        sim(args.outdir, args.simargs)
        return 0
    if args.command == "docs":
        docs()
        return 0
    return script({"bench": "bench.sh", "seeds": "seeds.sh", "record": "record-boots.sh"}
                  [args.command], args.outdir)


if __name__ == "__main__":
    sys.exit(main())
