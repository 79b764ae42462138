#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# qpisim packet traffic: flit events and clockticks derived from injected QPI
# packets, CTO_COUNT through the port's MATCH/MASK registers, and the
# rx_count_pct knob that makes a port's Rx flit events miscount.
. "$(dirname "$0")/lib.sh"

ktap_plan 7

expect_ok "insmod" qsim snbep
q=$(qpi_bdf 0 0)
mm=$(mm_bdf 0 1)
q1=$(qpi_bdf 0 1)

t_begin "rx_drs_flits_and_clockticks"
cfg_wr "$q" "$(ctl 0)" $((EN | 0x14))
cfg_wr "$q" "$(ctl 1)" $((EN | $(um 2) | 0x01))
cfg_wr "$q" "$(ctl 2)" $((EN | $(um 4) | 0x01))
cfg_wr "$q" "$(ctl 3)" $((EN | EXT | $(um 8) | 0x02))
inject packet socket=0 port=0 dir=rx mc=drs count=3
expect_num "clockticks (27 flits, 2 per cycle)" "$(cfg_rd64 "$q" "$(ctr 0)")" 14
expect_num "RxL_FLITS_G0.DATA" "$(cfg_rd64 "$q" "$(ctr 1)")" 24
expect_num "RxL_FLITS_G0.NON_DATA" "$(cfg_rd64 "$q" "$(ctr 2)")" 3
expect_num "RxL_FLITS_G1.DRS_DATA" "$(cfg_rd64 "$q" "$(ctr 3)")" 24
expect_num "other port" "$(cfg_rd64 "$q1" "$(ctr 0)")" 0
t_end

t_begin "tx_flit_groups"
cfg_wr "$q" $BOX_CTL $RST_CTRS
cfg_wr "$q" "$(ctl 1)" $((EN | $(um 6) | 0x00))		# TxL_FLITS_G0 all
cfg_wr "$q" "$(ctl 2)" $((EN | EXT | $(um 4) | 0x01))	# TxL_FLITS_G2.NCB_DATA
cfg_wr "$q" "$(ctl 3)" $((EN | EXT | $(um 3) | 0x00))	# TxL_FLITS_G1.SNP+HOM_REQ
inject packet socket=0 port=0 dir=tx mc=ncb flits=11 count=5
inject packet socket=0 port=0 dir=tx mc=snp count=7
inject packet socket=0 port=0 dir=tx mc=hom_req count=2
inject packet socket=0 port=0 dir=tx mc=ndr ring=ak count=1
inject packet socket=0 port=0 dir=rx mc=ncb flits=11 count=5
expect_num "clockticks" "$(cfg_rd64 "$q" "$(ctr 0)")" $((28 + 4 + 1 + 1 + 28))
expect_num "TxL_FLITS_G0" "$(cfg_rd64 "$q" "$(ctr 1)")" $((55 + 7 + 2 + 1))
expect_num "TxL_FLITS_G2.NCB_DATA" "$(cfg_rd64 "$q" "$(ctr 2)")" 50
expect_num "TxL_FLITS_G1.SNP+HOM_REQ" "$(cfg_rd64 "$q" "$(ctr 3)")" 9
t_end

t_begin "rx_g2_ndr_rings_and_ncs"
cfg_wr "$q" $BOX_CTL $RST_CTRS
cfg_wr "$q" "$(ctl 0)" $((EN | EXT | $(um 1) | 0x03))	# NDR_AD
cfg_wr "$q" "$(ctl 1)" $((EN | EXT | $(um 2) | 0x03))	# NDR_AK
cfg_wr "$q" "$(ctl 2)" $((EN | EXT | $(um 0x10) | 0x03))	# NCS
cfg_wr "$q" "$(ctl 3)" $((EN | EXT | $(um 8) | 0x03))	# NCB_NONDATA
inject packet socket=0 port=0 dir=rx mc=ndr count=4
inject packet socket=0 port=0 dir=rx mc=ndr ring=ak count=6
inject packet socket=0 port=0 dir=rx mc=ncs flits=3 count=5
inject packet socket=0 port=0 dir=rx mc=ncb count=2
expect_num "NDR_AD" "$(cfg_rd64 "$q" "$(ctr 0)")" 4
expect_num "NDR_AK" "$(cfg_rd64 "$q" "$(ctr 1)")" 6
expect_num "NCS" "$(cfg_rd64 "$q" "$(ctr 2)")" 15
expect_num "NCB_NONDATA" "$(cfg_rd64 "$q" "$(ctr 3)")" 2
t_end

t_begin "odd_flit_packets_through_threshold"
cfg_wr "$q" $BOX_CTL $RST_CTRS
cfg_wr "$q" "$(ctl 0)" $((EN | $(um 2) | 0x01 | $(th 2)))
cfg_wr "$q" "$(ctl 1)" $((EN | $(um 2) | 0x01 | $(th 1) | INV))
cfg_wr "$q" "$(ctl 2)" $((EN | $(um 4) | 0x01 | $(th 1) | EDGE))
cfg_wr "$q" "$(ctl 3)" $((EN | 0x14))
inject packet socket=0 port=0 dir=rx mc=drs count=3
# headers in cycles 0, 4 and 9 of 14; the last cycle carries one flit
expect_num "cycles with 2 data flits" "$(cfg_rd64 "$q" "$(ctr 0)")" 10
expect_num "cycles without data" "$(cfg_rd64 "$q" "$(ctr 1)")" 0
expect_num "header bursts" "$(cfg_rd64 "$q" "$(ctr 2)")" 3
expect_num "cycles" "$(cfg_rd64 "$q" "$(ctr 3)")" 14
t_end

# The traffic mix for the filter tests, on port 1 of socket 0:
mix()
{
	inject packet socket=0 port=1 dir=rx mc=drs dnid=1 rnid=2 rds=8 opc=0 count=5
	inject packet socket=0 port=1 dir=rx mc=drs dnid=1 rnid=2 rds=4 opc=1 count=6
	inject packet socket=0 port=1 dir=rx mc=drs dnid=2 rnid=3 rds=2 opc=2 count=7
	inject packet socket=0 port=1 dir=rx mc=ncb dnid=1 rnid=17 count=8
	inject packet socket=0 port=1 dir=rx mc=snp dnid=0 rnid=2 vnw=1 count=9
	inject packet socket=0 port=1 dir=rx mc=hom_req dnid=3 rnid=4 count=10
	inject packet socket=0 port=1 dir=rx mc=ndr dnid=1 rnid=2 count=11
	inject packet socket=0 port=1 dir=tx mc=drs dnid=1 rds=8 count=12
	inject packet socket=0 port=1 dir=rx mc=ncs dnid=1 count=13
}

# filter NAME MATCH0 MASK0 MATCH1 MASK1 EXPECTED
filter()
{
	cfg_wr "$mm" 0x228 "$2"
	cfg_wr "$mm" 0x238 "$3"
	cfg_wr "$mm" 0x22c "$4"
	cfg_wr "$mm" 0x23c "$5"
	cfg_wr "$q1" "$(ctl 0)" $((RST | EN | EXT | 0x38))
	mix
	expect_num "CTO_COUNT $1" "$(cfg_rd64 "$q1" "$(ctr 0)")" "$6"
}

MC=9
DNID=13
t_begin "cto_count_through_mask_match"
filter "no filter" 0 0 0 0 69
filter "DRS" $((0xe << MC)) $((0xf << MC)) 0 0 18
filter "DRS in M state" $((0xe << MC)) $((0xf << MC)) 0x80000 0xf0000 5
filter "to node 1" $((1 << DNID)) $((0x1f << DNID)) 0 0 43
filter "from node 2" 0 0x80000000 2 0xf 31
filter "from node 17" 0x80000000 0x80000000 1 0xf 8
filter "DRS opcode 1" $((0xe << MC | 1 << 5)) $((0xf << MC | 0xf << 5)) 0 0 6
filter "VN1" $((1 << 3)) $((3 << 3)) 0 0 9
filter "NCB or DRS" $((0xc << MC)) $((0xd << MC)) 0 0 26
expect_num "no reserved writes" "$(cat "$DBG/socket0/qpi1_mm/rsvd_writes")" 0
t_end

t_begin "filter_is_per_port"
q0=$(qpi_bdf 0 0)
cfg_wr "$q0" "$(ctl 0)" $((RST | EN | EXT | 0x38))
filter "port 1, DRS M" $((0xe << MC)) $((0xf << MC)) 0x80000 0xf0000 5
inject packet socket=0 port=0 dir=rx mc=snp count=4
expect_num "port 0 unfiltered" "$(cfg_rd64 "$q0" "$(ctr 0)")" 4
t_end

# rx_count_pct: the Rx flit events see that share of the packets, the Tx
# events and clockticks all of them; 201 is refused.
t_begin "rx_count_pct_miscounts_rx_flits"
q0=$(qpi_bdf 0 0)
cfg_wr "$q0" $BOX_CTL $RST_CTRS
cfg_wr "$q0" "$(ctl 0)" $((EN | 0x14))
cfg_wr "$q0" "$(ctl 1)" $((EN | $(um 2) | 0x01))	# RxL_FLITS_G0.DATA
cfg_wr "$q0" "$(ctl 2)" $((EN | EXT | $(um 8) | 0x02))	# RxL_FLITS_G1.DRS_DATA
cfg_wr "$q0" "$(ctl 3)" $((EN | $(um 2) | 0x00))	# TxL_FLITS_G0.DATA
expect_num "default" "$(cat "$DBG/socket0/qpi0/rx_count_pct")" 100
echo 110 > "$DBG/socket0/qpi0/rx_count_pct"
inject packet socket=0 port=0 dir=rx mc=drs count=100
inject packet socket=0 port=0 dir=tx mc=drs count=100
expect_num "clockticks (2 x 450)" "$(cfg_rd64 "$q0" "$(ctr 0)")" 900
expect_num "RxL_FLITS_G0.DATA, 110 %" "$(cfg_rd64 "$q0" "$(ctr 1)")" 880
expect_num "RxL_FLITS_G1.DRS_DATA, 110 %" "$(cfg_rd64 "$q0" "$(ctr 2)")" 880
expect_num "TxL_FLITS_G0.DATA, exact" "$(cfg_rd64 "$q0" "$(ctr 3)")" 800
cfg_wr "$q0" $BOX_CTL $RST_CTRS
echo 90 > "$DBG/socket0/qpi0/rx_count_pct"
inject packet socket=0 port=0 dir=rx mc=drs count=100
expect_num "RxL_FLITS_G0.DATA, 90 %" "$(cfg_rd64 "$q0" "$(ctr 1)")" 720
expect_num "clockticks, all 100 packets" "$(cfg_rd64 "$q0" "$(ctr 0)")" 450
echo 201 > "$DBG/socket0/qpi0/rx_count_pct" 2> /dev/null && fail "201 accepted"
expect_num "after 201" "$(cat "$DBG/socket0/qpi0/rx_count_pct")" 90
echo 100 > "$DBG/socket0/qpi0/rx_count_pct"
t_end

qpisim_unload
ktap_finish
