# SPDX-License-Identifier: GPL-2.0
# make demo, inside the guest (busybox sh): count simulated QPI traffic
# with perf on a two-socket Xeon E5-2600.
set -e
D=/sys/kernel/debug/qpisim
say() { printf '\n== %s\n' "$*"; }

say "CPU: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2) (model $(grep -m1 '^model' /proc/cpuinfo | awk '{print $3}')), $(grep -c ^processor /proc/cpuinfo) CPUs in $(cat /sys/devices/system/cpu/cpu*/topology/physical_package_id | sort -u | wc -l) sockets"
insmod /lib/modules/qpi/qpisim.ko platform=snbep
insmod /lib/modules/qpi/qpi_uncore.ko
say "qpisim created the uncore PCI functions of both sockets; qpi_uncore bound them:"
dmesg | grep 'qpi_uncore 0000' | sed 's/^\[[^]]*\] /   /'
say "perf PMUs: $(ls /sys/bus/event_source/devices | grep uncore | paste -sd' ' -), read from CPUs $(cat /sys/bus/event_source/devices/uncore_qpi_0/cpumask)"

cat > /tmp/traffic.sh <<'EOT'
D=/sys/kernel/debug/qpisim
# Socket 0 reads 100000 cache lines from socket 1 over QPI port 0:
# 100000 HOM read requests leave socket 0 and arrive at socket 1, and
# 100000 9-flit DRS data responses come back (qpisim delivers what a port
# sends at the far end of its link).
cat > $D/inject <<EOF2
packet socket=0 port=0 dir=tx mc=hom_req dnid=1 count=100000
packet socket=1 port=0 dir=tx mc=drs dnid=0 rds=8 count=100000
EOF2
# and socket 1 writes 25000 lines back to socket 0 over port 1
cat > $D/inject <<EOF2
packet socket=1 port=1 dir=tx mc=drs dnid=0 count=25000
EOF2
EOT

say "perf stat -a --per-socket, while the traffic above is injected (four events per PMU: no multiplexing):"
perf stat -a --per-socket \
	-e uncore_qpi_0/clockticks/ \
	-e uncore_qpi_0/rxl_flits_g0.data/ -e uncore_qpi_0/txl_flits_g0.data/ \
	-e uncore_qpi_0/txl_flits_g1.hom_req/ \
	-e uncore_qpi_1/rxl_flits_g0.data/ -e uncore_qpi_1/txl_flits_g0.data/ \
	-- sh /tmp/traffic.sh 2>&1 | sed 's/^/   /'

say "What qpisim says the counts must be, per socket:"
cat <<'EOT'
   port 0 clockticks      socket 0: (100000 x 1 + 100000 x 9 flits) / 2 = 500000
                          socket 1: the same, 500000
   port 0 Rx data         socket 0: 100000 lines x 8 flits x 8 B = 6400000 Bytes
   port 0 Tx data         socket 1: 6400000 Bytes
   port 0 Tx HOM requests socket 0: 100000 flits
   port 1 Rx data         socket 0: 25000 x 64 B = 1600000 Bytes
   port 1 Tx data         socket 1: 1600000 Bytes
   (the data flit aliases read in bytes: .scale 8, .unit Bytes)
EOT

say "qpistat: bandwidth, link utilization and overhead per socket and port:"
qpistat -- sh /tmp/traffic.sh | sed 's/^/   /'
say "qpistat --prometheus (for a node_exporter textfile collector), first lines:"
qpistat --prometheus -- sh /tmp/traffic.sh | grep -E '^(# TYPE|qpi_rx_bytes|qpi_rx_utilization)' | head -8 | sed 's/^/   /'

say "perf's own Sandy Bridge-EP event names work too (perf stat -e unc_q_clockticks):"
perf stat -a -e unc_q_clockticks -- sh -c \
	"echo 'event socket=0 box=qpi1 event=0x14 count=1234567' > $D/inject" 2>&1 |
	grep -E 'unc_q|elapsed' | sed 's/^/   /'

say "perf record: one sample per 1000000 data flits received on port 0 (perf record -a -c 1000000 -P):"
perf record -q -a -o /tmp/rec.data -e uncore_qpi_0/rxl_flits_g0.data/ -c 1000000 -P -- sh -c \
	"echo 'event socket=0 box=qpi0 event=0x01 umask=0x02 count=3000000' > $D/inject; sleep 0.05;
	 echo 'event socket=1 box=qpi0 event=0x01 umask=0x02 count=2000000' > $D/inject; sleep 0.05" 2>&1 |
	sed 's/^/   /'
say "perf script -F cpu,time,event,period: 3 samples from socket 0's reader CPU, 2 from socket 1's:"
perf script -i /tmp/rec.data -F cpu,time,event,period 2> /dev/null | sed 's/^/   /'
