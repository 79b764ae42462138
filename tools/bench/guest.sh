# SPDX-License-Identifier: GPL-2.0
# make bench, inside the guest (busybox sh): the same measurements with
# qpi_uncore and then with the stock intel_uncore, on one qpisim topology.
D=/sys/kernel/debug/qpisim
F=$D/socket0/qpi0
EVS="-e uncore_qpi_0/event=0x14/ -e uncore_qpi_0/event=0x1,umask=0x2/
     -e uncore_qpi_1/event=0x14/ -e uncore_qpi_1/event=0x0,umask=0x2/
     -e uncore_r3qpi_0/event=0x1/ -e uncore_r3qpi_1/event=0x1/
     -e uncore_r3qpi_0/event=0x7/"

reset_all() { for f in "$D"/socket*/*/reads "$D"/socket*/*/writes; do echo 0 > "$f"; done; }
total() { cat "$D"/socket*/*/reads "$D"/socket*/*/writes | awk '{ s += $1 } END { print s }'; }

# busy: jiffies all CPUs spent outside idle (and iowait) so far
busy() { awk '/^cpu / { print $2 + $3 + $4 + $7 + $8 }' /proc/stat; }

# Sampling (qpi_uncore only; intel_uncore cannot): 100 injections a second
# of 10000 clockticks, sampled every 1000 (1000 samples/s), against the same
# traffic counted.  Config accesses per sample, and CPU time of the whole
# machine over the 500 injections (injection loop and perf included: the same in both).
cat > /tmp/traffic.sh <<EOT
i=0
while [ \$i -lt 500 ]; do
	echo 'event socket=0 box=qpi0 event=0x14 count=10000' > $D/inject
	usleep 10000
	i=\$((i + 1))
done
EOT
sampling()
{
	reset_all; b0=$(busy)
	perf stat -a -e uncore_qpi_0/clockticks/ -x, -o /tmp/bst -- sh /tmp/traffic.sh > /dev/null 2>&1
	b1=$(busy); counted=$(total)
	reset_all
	perf record -q -a -c 1000 -e uncore_qpi_0/clockticks/ -o /tmp/brec -- sh /tmp/traffic.sh > /dev/null 2>&1
	b2=$(busy); sampled=$(total)
	n=$(perf script -i /tmp/brec -F cpu 2> /dev/null | grep -c .)
	echo "BENCH samples=$n"
	echo "BENCH accesses_per_sample=$(( (sampled - counted) / (n ? n : 1) ))"
	echo "BENCH busy_ms_counting=$(( (b1 - b0) * 10 ))"
	echo "BENCH busy_ms_sampling=$(( (b2 - b1) * 10 ))"
}

insmod /lib/modules/qpi/qpisim.ko platform="$QPI_PLATFORM"
for driver in qpi_uncore intel_uncore; do
	if [ $driver = qpi_uncore ]; then
		insmod /lib/modules/qpi/qpi_uncore.ko
	else
		for m in $(cat /lib/modules/stock/load-order); do insmod "/lib/modules/stock/$m"; done
	fi
	echo "BENCH driver=$driver"
	qpibench reads "$F" 10000 | sed 's/^/BENCH /'
	qpibench toggle "$F" 2000 | sed 's/^/BENCH /'
	# shellcheck disable=SC2086 # a word list
	{
		reset_all; perf stat -a $EVS sleep 2 > /dev/null 2>&1; base=$(total)
		reset_all; perf stat -a -I 100 $EVS sleep 2 > /tmp/ivals 2>&1; ival=$(total)
		n=$(grep -c 'uncore_qpi_0/event=0x14/' /tmp/ivals)
		echo "BENCH intervals=$n"
		echo "BENCH accesses_per_interval=$(( (ival - base) / n ))"
		reset_all; perf stat -a $EVS sleep 10 > /dev/null 2>&1
		echo "BENCH accesses_idle_10s=$(total)"
		echo "BENCH accesses_open_close=$base"
	}
	qpibench latency 100000 | sed 's/^/BENCH /'
	# shellcheck disable=SC2086
	qpibench stime perf stat -a -I 10 $EVS sleep 10 2>/dev/null | grep time_ms | sed 's/^/BENCH /'
	[ $driver = qpi_uncore ] && sampling
	if [ $driver = qpi_uncore ]; then rmmod qpi_uncore; else rmmod intel_uncore; fi
done
