/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Every counter the project reads, one row each (see sn_counters.h). */
#include <string.h>

#include "config/sn_counters.h"

#define NONE SN_COUNTER_NO_LIMIT

/* An error counter of a port that a threshold may name. */
#define PORT_ERR(n, src, b, w, c, p)                                           \
	{                                                                      \
		.name = n, .source = src, .kind = SN_COUNTER_ERROR, .bits = b, \
		.word_bytes = 1, .judged = true, .warn = w, .crit = c,         \
		.prom = p                                                      \
	}

/* A traffic or congestion counter of a port, without a default limit. */
#define PORT_TRAFFIC(n, src, b, m32, wb, wd, j, p)                           \
	{                                                                    \
		.name = n, .source = src, .kind = SN_COUNTER_TRAFFIC,        \
		.bits = b, .maybe_32bit = m32, .word_bytes = wb, .wide = wd, \
		.judged = j, .warn = NONE, .crit = NONE, .prom = p           \
	}

/* An accelerator's error counter (NVML), k its snapshot key. */
#define ACCEL(n, b, w, c, k, link, p, h)                                   \
	{                                                                  \
		.name = n, .source = SN_COUNTER_ACCEL,                     \
		.kind = SN_COUNTER_ERROR, .bits = b, .word_bytes = 1,      \
		.judged = true, .warn = w, .crit = c, .prom = p, .key = k, \
		.per_link = link, .help = h                                \
	}

#define IB SN_COUNTER_IB
#define ROCE SN_COUNTER_ROCE

/*
 * Default limits: a link that went down, a link integrity or buffer overrun
 * error, or an uncorrectable ECC error during one job is enough to take the
 * node out; noise counters (symbol errors, receive errors, discards, NVLink
 * replays) warn first and drain only when large.  A limit on traffic is
 * rarely wanted, but allowed.
 */
const struct sn_counter sn_counters[] = {
	PORT_ERR("link_downed", IB, 8, NONE, 1,
		 "supernode_port_link_downed_total"),
	PORT_ERR("link_error_recovery", IB, 8, 1, 10,
		 "supernode_port_link_error_recovery_total"),
	PORT_ERR("symbol_error", IB, 16, 10, 10000,
		 "supernode_port_symbol_error_total"),
	PORT_ERR("port_rcv_errors", IB, 16, 10, 10000,
		 "supernode_port_rcv_errors_total"),
	PORT_ERR("port_rcv_remote_physical_errors", IB, 16, 10, 10000,
		 "supernode_port_rcv_remote_physical_errors_total"),
	PORT_ERR("local_link_integrity_errors", IB, 4, NONE, 1,
		 "supernode_port_local_link_integrity_errors_total"),
	PORT_ERR("excessive_buffer_overrun_errors", IB, 4, NONE, 1,
		 "supernode_port_excessive_buffer_overrun_errors_total"),
	PORT_ERR("port_xmit_discards", IB, 16, 100, 100000,
		 "supernode_port_xmit_discards_total"),
	PORT_ERR("VL15_dropped", IB, 16, 100, NONE,
		 "supernode_port_vl15_dropped_total"),
	PORT_ERR("port_rcv_switch_relay_errors", IB, 16, NONE, NONE,
		 "supernode_port_rcv_switch_relay_errors_total"),
	PORT_ERR("port_xmit_constraint_errors", IB, 8, NONE, NONE,
		 "supernode_port_xmit_constraint_errors_total"),
	PORT_ERR("port_rcv_constraint_errors", IB, 8, NONE, NONE,
		 "supernode_port_rcv_constraint_errors_total"),
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
	ACCEL("ecc_uncorrected", 64, NONE, 1, "ecc_uncorrected_volatile", false,
	      "supernode_gpu_ecc_uncorrected_errors_total",
	      "Uncorrected ECC errors since the driver loaded (NVML volatile)."),
	ACCEL("ecc_corrected", 64, 1000, NONE, "ecc_corrected_volatile", false,
	      "supernode_gpu_ecc_corrected_errors_total",
	      "Corrected ECC errors since the driver loaded (NVML volatile)."),
	ACCEL("pcie_replay", 32, 100, 100000, "pcie_replay_counter", false,
	      "supernode_gpu_pcie_replays_total",
	      "PCIe replays of the GPU (NVML pcie replay counter)."),
	ACCEL("nvlink_replay", 64, 100, 100000, "replay", true,
	      "supernode_gpu_nvlink_replay_errors_total",
	      "NVLink replay errors per link (NVML)."),
	ACCEL("nvlink_recovery", 64, 1, 100, "recovery", true,
	      "supernode_gpu_nvlink_recovery_errors_total",
	      "NVLink recovery errors per link (NVML)."),
	ACCEL("nvlink_crc_flit", 64, 100, 100000, "crc_flit", true,
	      "supernode_gpu_nvlink_crc_flit_errors_total",
	      "NVLink flit CRC errors per link (NVML)."),
	ACCEL("nvlink_crc_data", 64, 100, 100000, "crc_data", true,
	      "supernode_gpu_nvlink_crc_data_errors_total",
	      "NVLink data CRC errors per link (NVML)."),
	PORT_ERR("local_ack_timeout_err", ROCE, 64, 100, 100000,
		 "supernode_port_local_ack_timeout_err_total"),
	PORT_ERR("rnr_nak_retry_err", ROCE, 64, 100, 100000,
		 "supernode_port_rnr_nak_retry_err_total"),
	PORT_ERR("packet_seq_err", ROCE, 64, 100, 100000,
		 "supernode_port_packet_seq_err_total"),
	PORT_ERR("out_of_sequence", ROCE, 64, 1000, NONE,
		 "supernode_port_out_of_sequence_total"),
	PORT_ERR("out_of_buffer", ROCE, 64, NONE, NONE,
		 "supernode_port_out_of_buffer_total"),
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
