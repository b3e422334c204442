/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Every counter the project reads, one row each (see sn_counters.h). */
#include <string.h>

#include "config/sn_counters.h"

#define NONE SN_COUNTER_NO_LIMIT
#define COUNT SN_UNIT_COUNT
#define PER_H SN_UNIT_PER_HOUR
#define PER_TB SN_UNIT_PER_TB

/*
 * An error counter of a port that a threshold may name, limits in u, that
 * grows with traffic in direction d (PORT_ERR: both), r who can raise it
 * (HW, DRV, USER: enum sn_counter_raiser).
 */
#define PORT_ERR_DIR(n, src, b, u, w, c, p, d, r)                              \
	{                                                                      \
		.name = n, .source = src, .kind = SN_COUNTER_ERROR, .bits = b, \
		.word_bytes = 1, .judged = true, .unit = u, .warn = w,         \
		.crit = c, .dir = d, .raised_by = r, .prom = p                 \
	}
#define PORT_ERR(n, src, b, u, w, c, p, r) \
	PORT_ERR_DIR(n, src, b, u, w, c, p, SN_COUNTER_BOTH, r)
#define PORT_RX(n, b, u, w, c, p, r) PORT_ERR_DIR(n, IB, b, u, w, c, p, RX, r)
#define PORT_TX(n, b, u, w, c, p, r) PORT_ERR_DIR(n, IB, b, u, w, c, p, TX, r)

/*
 * A traffic or congestion counter of a port, without a default limit:
 * what it counts is the users' traffic (USER).
 */
#define PORT_TRAFFIC(n, src, b, m32, wb, wd, j, p)                           \
	{                                                                    \
		.name = n, .source = src, .kind = SN_COUNTER_TRAFFIC,        \
		.bits = b, .maybe_32bit = m32, .word_bytes = wb, .wide = wd, \
		.judged = j, .unit = PER_H, .warn = NONE, .crit = NONE,      \
		.raised_by = USER, .prom = p                                 \
	}

/*
 * An accelerator's error counter (NVML), k its snapshot key: ECC, PCIe and
 * NVLink errors, which only the GPU's memory or its links make (HW).
 */
#define ACCEL_ROW(n, b, u, w, c, k, link, legacy, p, h)                 \
	{                                                               \
		.name = n, .source = SN_COUNTER_ACCEL,                  \
		.kind = SN_COUNTER_ERROR, .bits = b, .word_bytes = 1,   \
		.judged = true, .unit = u, .warn = w, .crit = c,        \
		.raised_by = HW, .prom = p, .key = k, .per_link = link, \
		.legacy_nvlink = legacy, .help = h                      \
	}
#define ACCEL(n, b, u, w, c, k, p, h) \
	ACCEL_ROW(n, b, u, w, c, k, false, false, p, h)
#define NVLINK_LEGACY(n, u, w, c, k, p, h) \
	ACCEL_ROW(n, 64, u, w, c, k, true, true, p, h)

#define IB SN_COUNTER_IB
#define ROCE SN_COUNTER_ROCE
#define RX SN_COUNTER_RX
#define TX SN_COUNTER_TX
#define HW SN_RAISED_HARDWARE
#define DRV SN_RAISED_DRIVER
#define USER SN_RAISED_USER

/*
 * Default limits (issue 12: rates per generation), each with its source:
 *
 * Absolute floors (SN_UNIT_COUNT), events fatal on their first step:
 *  - link_downed: the port "failed the link error recovery process and
 *    downed the link" (IBTA PortCounters LinkDownedCounter);
 *  - local_link_integrity_errors, excessive_buffer_overrun_errors: each
 *    counts a threshold crossing of the port's own error policy (IBTA
 *    LocalPhyErrors / OverrunErrors exceeded), already a verdict;
 *  - ecc_uncorrected: DCGM's memory health watch fails on any volatile
 *    double-bit error (DcgmHealthWatch MonitorMemVolatileDbes);
 *  - nvlink_recovery_failed (NVLink 5): a link recovery that failed;
 *  - nvlink_recovery (before NVLink 4.0), nvlink_dl_recovery (NVLink 4.0
 *    on): DCGM's NVLink health watch fails on the first recovery error
 *    (DcgmHealthWatch MonitorNVLink4Fields, DCGM_LIMIT_MAX_NVLINK_ERROR
 *    = 1: "NVLink recovery errors" are a failure).  Counted per job, not
 *    per hour: as a rate with crit 1/h, 23 recoveries in a 24 h job were
 *    0.96/h and passed silently.
 *
 * Per hour (SN_UNIT_PER_HOUR), error counters:
 *  - symbol_error: warn 10/h, crit 120/h (the example).  On
 *    EDR/HDR/NDR these are the errors left after FEC, what the
 *    application sees (NVIDIA ibdiagnet manual, "Bit Error Rate"), whose
 *    BER threshold 1e-12 is 1440/h at 400 Gb/s: 120/h stays far below it,
 *    a healthy link shows none.  nvlink_symbol_errors (NVLink 5, the same
 *    PortCounters) the same;
 *  - link_error_recovery (a retrain that worked), nvlink_recovery_successful
 *    (NVLink 5): warn 1/h, crit 10/h (field practice: one retrain an hour
 *    is a marginal cable);
 *  - pcie_replay: warn 60/h, crit 480/h: DCGM's DCGM_LIMIT_MAX_PCIREPLAY_RATE,
 *    "8 replays per minute is the maximum recommended by RM";
 *  - nvlink_replay (before NVLink 4.0), nvlink_dl_replay (NVLink 4.0 on):
 *    warn 1/h, crit 10/h.  DCGM fails on the first replay too
 *    (DCGM_LIMIT_MAX_NVLINK_ERROR = 1, MonitorNVLink4Fields), but a replay
 *    is a retransmit the link survived: a few an hour only warn;
 *  - port_xmit_discards, VL15_dropped, the RoCE retry counters: warn
 *    100/h, crit 100000/h (congestion and timeouts as much as faults:
 *    only a storm, and for the counters a user can raise only one that
 *    came with a physical-layer error, drains), out_of_sequence warn
 *    1000/h.
 *
 * Per TB moved (SN_UNIT_PER_TB), errors that grow with traffic:
 *  - nvlink_crc_flit, nvlink_crc_data (before NVLink 4.0), nvlink_dl_crc
 *    (4.0 on): warn 10/TB, crit 100/TB.  DCGM warns on any CRC error and
 *    fails at 100 per second (DCGM_LIMIT_MAX_NVLINK_CRC_ERROR: "RM has
 *    informed us that CRC errors only matter at rates of 100+ per
 *    second"); a GPU moves at most 0.9 TB/s over NVLink 4 (18 links x 50
 *    GB/s), so 100/s is about 110 per TB moved;
 *  - nvlink_effective_errors (NVLink 5, errors after FEC): warn 1/TB,
 *    crit 8/TB: DCGM fails above an effective BER of 1e-12
 *    (MonitorNVLink5Fields), and 1 TB is 8e12 bits;
 *  - the other vendors' link counters (issue 18), read through their
 *    libraries and summed over a device's links.  No vendor publishes a
 *    rate limit for them; each default is the row of the same kind above:
 *    hccs_crc (Ascend HCCS CRC errors, DCMI HCCS statistics crc_err_cnt)
 *    as symbol_error, a link-layer CRC error: warn 10/h, crit 120/h;
 *    hccs_retry (retry_cnt, a link-level retransmission) as
 *    nvlink_dl_replay: warn 1/h, crit 10/h; mlulink_fec_uncorrected
 *    (Cambricon MLU-Link frames FEC could not repair) and mlulink_fcs_
 *    {rx,tx}_bad (frames with a bad frame check sequence) as
 *    nvlink_dl_replay: warn 1/h, crit 10/h, the link retransmits them;
 *    xgmi_error_status (ROCm SMI rsmi_dev_xgmi_error_status: 0 no errors,
 *    1 an error, 2 several, since the last reset) as a step: crit on any
 *    rise, like ecc_uncorrected.  mlulink_fec_corrected is information
 *    (FEC at work on a healthy link), as ecc_corrected.  Their ECC goes to
 *    ecc_uncorrected and ecc_corrected (the same keys as NVML's);
 *  - port_rcv_errors, port_rcv_remote_physical_errors: warn 10/TB, crit
 *    1000/TB (bad packets received, counted per packet: they grow with
 *    what the port receives, so they are taken over its received bytes
 *    only, port_rcv_data; a transmit-side counter given a per-TB limit is
 *    taken over port_xmit_data; sn_counter_dir).
 *
 * Information, never a verdict by default: nvlink_ecc_data (legacy type
 * 4, corrections of the data ECC of NVLink 3.0 and later), ecc_corrected (corrected
 * events: DCGM judges memory on uncorrected errors only, its SBE limit
 * DCGM_LIMIT_MAX_SBE_RATE being a "dummy value"), and the legacy per-link
 * NVLink counters from NVLink 4.0 on and where the version is not known
 * (legacy_nvlink): on a healthy H200 under load crc_data rises by tens and
 * ecc_data by ~35/s per link while nvidia-smi's Replay/Recovery/CRC and
 * the DL fields stay 0 (tests/unit/fixtures/nvidia/traffic-h200x2).  A
 * traffic counter takes a limit only when the config gives one.
 */
/*
 * Who can raise each counter (the last column of a port row; enum
 * sn_counter_raiser says what the epilog does with it):
 *
 * HW, the hardware or its link only:
 *  - symbol_error, link_error_recovery, link_downed,
 *    local_link_integrity_errors: the physical layer's own events (IBTA
 *    PortCounters: SymbolErrorCounter "minor link errors detected on one
 *    or more physical lanes", LinkErrorRecoveryCounter, LinkDownedCounter,
 *    LocalLinkIntegrityErrors).  Only root takes a link down on purpose
 *    (ibportstate, ip link, a driver reload);
 *  - port_rcv_errors: packets received with an error of the physical or
 *    link layer (ICRC, VCRC, LPCRC, malformed link and data packets,
 *    IBTA PortRcvErrors); the link-layer CRCs are made by the sending
 *    port's hardware, so a user's verbs cannot forge a bad one, and
 *    port_rcv_remote_physical_errors: packets marked bad (EBP) by a hop
 *    upstream;
 *  - excessive_buffer_overrun_errors: the link partner overran the input
 *    buffer, which credit-based flow control rules out on a sound link;
 *  - every accelerator row (ECC, PCIe replay, NVLink errors).
 * DRV, the driver, its firmware or the subnet manager:
 *  - VL15_dropped: subnet management packets (VL15, QP0: the kernel's and
 *    the SM's alone) dropped for lack of resources.
 * USER, any user's traffic on a healthy port:
 *  - local_ack_timeout_err, rnr_nak_retry_err, packet_seq_err,
 *    out_of_sequence, out_of_buffer (mlx5 hw_counters/): the driver's
 *    "Q counters" (drivers/infiniband/hw/mlx5/counters.c INIT_Q_COUNTER;
 *    kernel commit 0ad17a8f7fa0 "IB/mlx5: Add port protocol stats":
 *    errors "for the associated QP"), the port's view summing every QP on
 *    it, a user's too: a peer that never posts receives raises
 *    rnr_nak_retry_err, one that stops answering local_ack_timeout_err,
 *    and an unprivileged verbs program can be either;
 *  - port_xmit_discards: packets dropped because the port was down or
 *    congested (head-of-queue lifetime), and incast is a job's own doing;
 *  - port_rcv_switch_relay_errors, port_{xmit,rcv}_constraint_errors:
 *    packets dropped for their addresses or partition keys, which a UD
 *    QP's sender chooses;
 *  - every traffic and congestion counter (PORT_TRAFFIC).
 */
const struct sn_counter sn_counters[] = {
	PORT_ERR("link_downed", IB, 8, COUNT, NONE, 1,
		 "supernode_port_link_downed_total", HW),
	PORT_ERR("link_error_recovery", IB, 8, PER_H, 1, 10,
		 "supernode_port_link_error_recovery_total", HW),
	PORT_ERR("symbol_error", IB, 16, PER_H, 10, 120,
		 "supernode_port_symbol_error_total", HW),
	PORT_RX("port_rcv_errors", 16, PER_TB, 10, 1000,
		"supernode_port_rcv_errors_total", HW),
	PORT_RX("port_rcv_remote_physical_errors", 16, PER_TB, 10, 1000,
		"supernode_port_rcv_remote_physical_errors_total", HW),
	PORT_ERR("local_link_integrity_errors", IB, 4, COUNT, NONE, 1,
		 "supernode_port_local_link_integrity_errors_total", HW),
	PORT_RX("excessive_buffer_overrun_errors", 4, COUNT, NONE, 1,
		"supernode_port_excessive_buffer_overrun_errors_total", HW),
	PORT_TX("port_xmit_discards", 16, PER_H, 100, 100000,
		"supernode_port_xmit_discards_total", USER),
	PORT_RX("VL15_dropped", 16, PER_H, 100, NONE,
		"supernode_port_vl15_dropped_total", DRV),
	PORT_RX("port_rcv_switch_relay_errors", 16, PER_H, NONE, NONE,
		"supernode_port_rcv_switch_relay_errors_total", USER),
	PORT_TX("port_xmit_constraint_errors", 8, PER_H, NONE, NONE,
		"supernode_port_xmit_constraint_errors_total", USER),
	PORT_RX("port_rcv_constraint_errors", 8, PER_H, NONE, NONE,
		"supernode_port_rcv_constraint_errors_total", USER),
	PORT_TRAFFIC("port_xmit_wait", IB, 32, false, 1, NULL, true,
		     "supernode_port_xmit_wait_total"),
	PORT_TRAFFIC("port_xmit_data", IB, 64, true, 4, "port_xmit_data_64",
		     true, "supernode_port_transmit_bytes_total"),
	PORT_TRAFFIC("port_rcv_data", IB, 64, true, 4, "port_rcv_data_64", true,
		     "supernode_port_receive_bytes_total"),
	PORT_TRAFFIC("port_xmit_packets", IB, 64, true, 1,
		     "port_xmit_packets_64", true,
		     "supernode_port_xmit_packets_total"),
	PORT_TRAFFIC("port_rcv_packets", IB, 64, true, 1, "port_rcv_packets_64",
		     true, "supernode_port_rcv_packets_total"),
	PORT_TRAFFIC("unicast_xmit_packets", IB, 64, true, 1, NULL, true,
		     "supernode_port_unicast_xmit_packets_total"),
	PORT_TRAFFIC("unicast_rcv_packets", IB, 64, true, 1, NULL, true,
		     "supernode_port_unicast_rcv_packets_total"),
	PORT_TRAFFIC("multicast_xmit_packets", IB, 64, true, 1, NULL, true,
		     "supernode_port_multicast_xmit_packets_total"),
	PORT_TRAFFIC("multicast_rcv_packets", IB, 64, true, 1, NULL, true,
		     "supernode_port_multicast_rcv_packets_total"),
	ACCEL("ecc_uncorrected", 64, COUNT, NONE, 1, "ecc_uncorrected_volatile",
	      "supernode_gpu_ecc_uncorrected_errors_total",
	      "Uncorrected ECC errors since the driver loaded (NVML volatile)."),
	ACCEL("ecc_corrected", 64, PER_H, NONE, NONE, "ecc_corrected_volatile",
	      "supernode_gpu_ecc_corrected_errors_total",
	      "Corrected ECC errors since the driver loaded (NVML volatile)."),
	ACCEL("pcie_replay", 32, PER_H, 60, 480, "pcie_replay_counter",
	      "supernode_gpu_pcie_replays_total",
	      "PCIe replays of the GPU (NVML pcie replay counter)."),
	NVLINK_LEGACY("nvlink_replay", PER_H, 1, 10, "replay",
		      "supernode_gpu_nvlink_replay_errors_total",
		      "NVLink replay errors per link (NVML)."),
	NVLINK_LEGACY("nvlink_recovery", COUNT, NONE, 1, "recovery",
		      "supernode_gpu_nvlink_recovery_errors_total",
		      "NVLink recovery errors per link (NVML)."),
	NVLINK_LEGACY("nvlink_crc_flit", PER_TB, 10, 100, "crc_flit",
		      "supernode_gpu_nvlink_crc_flit_errors_total",
		      "NVLink flit CRC errors per link (NVML)."),
	NVLINK_LEGACY("nvlink_crc_data", PER_TB, 10, 100, "crc_data",
		      "supernode_gpu_nvlink_crc_data_errors_total",
		      "NVLink data CRC errors per link (NVML)."),
	NVLINK_LEGACY("nvlink_ecc_data", PER_TB, NONE, NONE, "ecc_data",
		      "supernode_gpu_nvlink_ecc_data_corrected_total",
		      "NVLink data ECC corrections per link (NVML)."),
	ACCEL("nvlink_dl_replay", 64, PER_H, 1, 10, "nvlink_dl_replay",
	      "supernode_gpu_nvlink_dl_replay_errors_total",
	      "NVLink data link replays, all links (NVML field 161)."),
	ACCEL("nvlink_dl_recovery", 64, COUNT, NONE, 1, "nvlink_dl_recovery",
	      "supernode_gpu_nvlink_dl_recovery_errors_total",
	      "NVLink data link recoveries, all links (NVML field 162)."),
	ACCEL("nvlink_dl_crc", 64, PER_TB, 10, 100, "nvlink_dl_crc",
	      "supernode_gpu_nvlink_dl_crc_errors_total",
	      "NVLink data link CRC errors, all links (NVML field 163)."),
	ACCEL("nvlink_recovery_successful", 64, PER_H, 1, 10,
	      "nvlink_recovery_successful",
	      "supernode_gpu_nvlink_recovery_successful_total",
	      "NVLink 5 link recoveries that worked, all links (field 213)."),
	ACCEL("nvlink_recovery_failed", 64, COUNT, NONE, 1,
	      "nvlink_recovery_failed",
	      "supernode_gpu_nvlink_recovery_failed_total",
	      "NVLink 5 link recoveries that failed, all links (field 214)."),
	ACCEL("nvlink_symbol_errors", 64, PER_H, 10, 120,
	      "nvlink_symbol_errors",
	      "supernode_gpu_nvlink_symbol_errors_total",
	      "NVLink 5 symbol errors, all links (NVML field 221)."),
	ACCEL("nvlink_effective_errors", 64, PER_TB, 1, 8,
	      "nvlink_effective_errors",
	      "supernode_gpu_nvlink_effective_errors_total",
	      "NVLink 5 errors after FEC, all links (NVML field 219)."),
	ACCEL("hccs_crc", 64, PER_H, 10, 120, "hccs_crc",
	      "supernode_accel_hccs_crc_errors_total",
	      "Ascend HCCS CRC errors, all ports (DCMI HCCS statistics)."),
	ACCEL("hccs_retry", 64, PER_H, 1, 10, "hccs_retry",
	      "supernode_accel_hccs_retries_total",
	      "Ascend HCCS link retries, all ports (DCMI HCCS statistics)."),
	ACCEL("mlulink_fec_uncorrected", 64, PER_H, 1, 10,
	      "mlulink_fec_uncorrected",
	      "supernode_accel_mlulink_fec_uncorrected_total",
	      "Cambricon MLU-Link uncorrectable FEC errors, all links (CNDev)."),
	ACCEL("mlulink_fec_corrected", 64, PER_H, NONE, NONE,
	      "mlulink_fec_corrected",
	      "supernode_accel_mlulink_fec_corrected_total",
	      "Cambricon MLU-Link corrected FEC errors, all links (CNDev)."),
	ACCEL("mlulink_fcs_rx_bad", 64, PER_H, 1, 10, "mlulink_fcs_rx_bad",
	      "supernode_accel_mlulink_fcs_rx_bad_total",
	      "Cambricon MLU-Link frames received with a bad FCS (CNDev)."),
	ACCEL("mlulink_fcs_tx_bad", 64, PER_H, 1, 10, "mlulink_fcs_tx_bad",
	      "supernode_accel_mlulink_fcs_tx_bad_total",
	      "Cambricon MLU-Link frames sent with a bad FCS (CNDev)."),
	ACCEL("xgmi_error_status", 64, COUNT, NONE, 1, "xgmi_error_status",
	      "supernode_accel_xgmi_errors_total",
	      "Hygon XGMI error status since its reset: 0 none, 1 one, 2 several (ROCm SMI)."),
	PORT_ERR("local_ack_timeout_err", ROCE, 64, PER_H, 100, 100000,
		 "supernode_port_local_ack_timeout_err_total", USER),
	PORT_ERR("rnr_nak_retry_err", ROCE, 64, PER_H, 100, 100000,
		 "supernode_port_rnr_nak_retry_err_total", USER),
	PORT_ERR("packet_seq_err", ROCE, 64, PER_H, 100, 100000,
		 "supernode_port_packet_seq_err_total", USER),
	PORT_ERR("out_of_sequence", ROCE, 64, PER_H, 1000, NONE,
		 "supernode_port_out_of_sequence_total", USER),
	PORT_ERR("out_of_buffer", ROCE, 64, PER_H, NONE, NONE,
		 "supernode_port_out_of_buffer_total", USER),
	PORT_TRAFFIC("np_cnp_sent", ROCE, 64, false, 1, NULL, true,
		     "supernode_port_np_cnp_sent_total"),
	PORT_TRAFFIC("np_ecn_marked_roce_packets", ROCE, 64, false, 1, NULL,
		     true, "supernode_port_np_ecn_marked_roce_packets_total"),
	/* Read, never judged: the 64-bit forms and a congestion counter. */
	PORT_TRAFFIC("port_xmit_data_64", IB, 64, false, 4, NULL, false,
		     "supernode_port_transmit_bytes_total"),
	PORT_TRAFFIC("port_rcv_data_64", IB, 64, false, 4, NULL, false,
		     "supernode_port_receive_bytes_total"),
	PORT_TRAFFIC("port_xmit_packets_64", IB, 64, false, 1, NULL, false,
		     "supernode_port_xmit_packets_64_total"),
	PORT_TRAFFIC("port_rcv_packets_64", IB, 64, false, 1, NULL, false,
		     "supernode_port_rcv_packets_64_total"),
	PORT_TRAFFIC("port_unicast_xmit_packets", IB, 64, false, 1, NULL, false,
		     "supernode_port_unicast_xmit_packets_total"),
	PORT_TRAFFIC("port_unicast_rcv_packets", IB, 64, false, 1, NULL, false,
		     "supernode_port_unicast_rcv_packets_total"),
	PORT_TRAFFIC("port_multicast_xmit_packets", IB, 64, false, 1, NULL,
		     false, "supernode_port_multicast_xmit_packets_total"),
	PORT_TRAFFIC("port_multicast_rcv_packets", IB, 64, false, 1, NULL,
		     false, "supernode_port_multicast_rcv_packets_total"),
	PORT_TRAFFIC("rp_cnp_handled", ROCE, 64, false, 1, NULL, false,
		     "supernode_port_rp_cnp_handled_total"),
};

const size_t sn_counters_count = sizeof(sn_counters) / sizeof(sn_counters[0]);

const struct sn_counter *sn_counter_find(const char *name)
{
	for (size_t i = 0; name && i < sn_counters_count; i++)
		if (!strcmp(sn_counters[i].name, name))
			return &sn_counters[i];
	return NULL;
}

unsigned sn_counter_bits(const char *name)
{
	const struct sn_counter *c = sn_counter_find(name);

	return c ? c->bits : 64;
}

bool sn_counter_maybe_32bit(const char *name)
{
	const struct sn_counter *c = sn_counter_find(name);

	return c && c->maybe_32bit;
}

unsigned sn_counter_word_bytes(const char *name)
{
	const struct sn_counter *c = sn_counter_find(name);

	return c ? c->word_bytes : 1;
}

const char *sn_counter_wide(const char *name)
{
	const struct sn_counter *c = sn_counter_find(name);

	return c ? c->wide : NULL;
}

bool sn_counter_is_error(const char *name)
{
	const struct sn_counter *c = sn_counter_find(name);

	return !c || c->kind == SN_COUNTER_ERROR;
}

enum sn_counter_dir sn_counter_dir(const char *name)
{
	const struct sn_counter *c = sn_counter_find(name);

	return c ? c->dir : SN_COUNTER_BOTH;
}

enum sn_counter_raiser sn_counter_raised_by(const char *name)
{
	const struct sn_counter *c = sn_counter_find(name);

	return c ? c->raised_by : SN_RAISED_USER;
}

const char *sn_counter_raiser_name(enum sn_counter_raiser r)
{
	return r == SN_RAISED_HARDWARE ? "hardware" :
	       r == SN_RAISED_DRIVER   ? "driver" :
					 "user";
}

const char *sn_rate_unit_name(enum sn_rate_unit u)
{
	return u == SN_UNIT_PER_HOUR ? "/h" : u == SN_UNIT_PER_TB ? "/TB" : "";
}
