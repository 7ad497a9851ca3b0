# SPDX-License-Identifier: GPL-2.0
"""The governor evaluation: the simulator's plots (sim_plots), the guest
benchmark's report (bench_report, bench_power, fidelity, idle_bound,
tickcost), the recorder's conversion into the simulator's corpus
(trace2corpus) and the seeds' replication (seeds_report).  Each module is
also a program (python3 evaluation/NAME.py --help); their self-tests are in
evaluation/tests/, the in-guest halves in evaluation/guest/, the shell
drivers (make sim, bench, seeds, parity) beside them."""
