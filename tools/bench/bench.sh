#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make bench: boot the VM once per platform, measure qpi_uncore and then
# intel_uncore on the same qpisim topology, and write the table with the
# ratios to Documentation/benchmarks.rst.
set -euo pipefail
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$repo"
make -s -C tools/bench
out=Documentation/benchmarks.rst
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

for p in snbep ivbep; do
	tools/vm/run-vm --platform "$p" --sockets 2 --cores 2 --quiet --timeout 1800 \
		--cmd "$(cat tools/bench/guest.sh)" | grep '^BENCH ' | sed 's/^BENCH //' > "$tmp/$p"
done

kver=$(tools/vm/kver.sh)
qemu=$(qemu-system-x86_64 --version | head -n 1)
val() { awk -v d="$2" -v k="$3" -F= '/^driver=/ { cur = $2 } cur == d && $1 == k { print $2 }' "$1"; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "-" }'; }

{
	cat <<EOT
.. SPDX-License-Identifier: GPL-2.0

==========
Benchmarks
==========

Written by \`\`make bench\`\` (\`\`tools/bench/\`\`) on $(date -u +%Y-%m-%d): QEMU TCG
(\`\`$qemu\`\`), guest kernel $kver, two sockets of two cores, qpisim.  Each
platform boots once; qpi_uncore is measured, unloaded, then Debian's
intel_uncore is loaded on the same simulated functions and measured the
same way.  Config accesses are exact (qpisim counts them); times are
wall-clock in an emulator and only their ratios mean anything.

EOT
	for p in snbep ivbep; do
		f=$tmp/$p
		title="$p: qpi_uncore against intel_uncore"
		echo "$title"
		echo "$title" | sed 's/./-/g'
		echo
		echo "==================================  ============  ============  ======"
		echo "measure                             qpi_uncore    intel_uncore  ratio"
		echo "==================================  ============  ============  ======"
		for k in accesses_per_read accesses_per_del_add accesses_per_interval \
			 accesses_idle_10s accesses_open_close read_median_ns read_p99_ns \
			 group_read_median_ns group_read_p99_ns stime_ms; do
			a=$(val "$f" qpi_uncore "$k")
			b=$(val "$f" intel_uncore "$k")
			printf '%-34s  %12s  %12s  %6s\n' "$k" "$a" "$b" "$(ratio "$a" "$b")"
		done
		echo "==================================  ============  ============  ======"
		echo
		echo "Sampling, qpi_uncore only (perf record -c 1000 at about 1000 samples/s):"
		echo
		echo "==================================  ============"
		echo "measure                             qpi_uncore"
		echo "==================================  ============"
		for k in samples accesses_per_sample accesses_per_sample_readback_off \
			 busy_ms_counting busy_ms_sampling \
			 frozen_windows frozen_ns_per_window frozen_accesses_per_window \
			 counting_lost_per_sample counting_lost_ppm \
			 counting_lost_ppm_group sampling_lost_ppm \
			 sampling_idle_accesses_per_s steady_looks_5s \
			 steady_looks_per_sample; do
			printf '%-34s  %12s\n' "$k" "$(val "$f" qpi_uncore "$k")"
		done
		echo "==================================  ============"
		echo
		echo "Throttles, qpi_uncore only (perf record -c 1000, perf's limit lowered to twice the rate and pinned):"
		echo
		echo "==================================  ============"
		echo "measure                             qpi_uncore"
		echo "==================================  ============"
		for r in 1000 10000; do
			for k in throttle_limit throttle_samples_per_s throttle_missing \
				 throttle_records throttle_lost_records \
				 throttle_uncounted; do
				printf '%-34s  %12s\n' "${k}_$r" "$(val "$f" qpi_uncore "${k}_$r")"
			done
		done
		echo "==================================  ============"
		echo
		echo "Foreign writers, qpi_uncore only (the control read-back, 14 counters on 8 boxes, idle):"
		echo
		echo "==================================  ============"
		echo "measure                             qpi_uncore"
		echo "==================================  ============"
		for k in foreign_check_ms foreign_accesses_10s \
			 foreign_accesses_per_counter_s foreign_marks \
			 foreign_mark_accesses foreign_mark_out_us \
			 mux_interval_ms; do
			printf '%-34s  %12s\n' "$k" "$(val "$f" qpi_uncore "$k")"
		done
		echo "==================================  ============"
		echo
	done
	cat tools/bench/notes.rst
} > "$out"
echo "wrote $out"
