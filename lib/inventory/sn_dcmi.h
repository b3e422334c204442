/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SN_DCMI_H
#define SN_DCMI_H

/*
 * Huawei Ascend's driver management library (DCMI, libdcmi.so), loaded at
 * run time for one thing: the super pod a node's NPUs belong to (an Ascend
 * CloudMatrix / Atlas 900 SuperPoD is one supernode).
 *
 * Transcribed from the DCMI API reference for Atlas A3 (Ascend 910_93),
 * dcmi_get_device_info and its DCMI_MAIN_CMD_CHIP_INF sub-commands (as
 * published in the verylucky01/driver mirror of Ascend's docs, commit
 * 04370735, docs/zh/Ascend_910_93_DCMI_API), and the struct in dcmi's
 * headers:
 *
 *   int dcmi_init(void);
 *   int dcmi_get_card_list(int *card_num, int *card_list, int list_len);
 *   int dcmi_get_device_info(int card_id, int device_id,
 *           enum dcmi_main_cmd main_cmd, unsigned int sub_cmd,
 *           void *buf, unsigned int *size);
 *   enum dcmi_main_cmd { DCMI_MAIN_CMD_DVPP = 0, ..., DCMI_MAIN_CMD_TS = 11,
 *           DCMI_MAIN_CMD_CHIP_INF = 12, ... };
 *   DCMI_CHIP_INF_SUB_CMD_CHIP_ID 0, _SPOD_INFO 1, _SPOD_NODE_STATUS 2
 *   struct dcmi_spod_info {                  48 bytes
 *       unsigned int sdid, super_pod_size, super_pod_id, server_index,
 *                    chassis_id, super_pod_type;
 *       unsigned int reserve[6];
 *   };
 *
 * Every DCMI function returns 0 on success, a negative DCMI error code
 * otherwise.  Device 0 of each card is asked (device_id 0 and 1 are NPU
 * chips on the A3, 2 the MCU).
 */
#include <stdint.h>

#include "util/sn_error.h"

#define SN_DCMI_MAX_CARDS 64

/* struct sn_dcmi_pod - the super pod every card of the node reports. */
struct sn_dcmi_pod {
	unsigned int cards;	 /* cards read (all agree) */
	uint32_t super_pod_id;	 /* the supernode's identity */
	uint32_t super_pod_size; /* NPUs in the super pod */
	uint32_t server_index;	 /* this server's index in it */
};

/*
 * sn_dcmi_super_pod - dlopen path (a name for the loader, or absolute),
 * dcmi_init, list the cards and read each card's super pod info.
 * Returns 0 with *out filled; -1 with err naming the cause: the library
 * or a symbol missing, a DCMI call's code ("dcmi_get_device_info card 3:
 * error -8005"), no cards, more than SN_DCMI_MAX_CARDS, or cards that
 * disagree ("card 1 in super pod 7, card 0 in 3").  The library is
 * closed before return (DCMI has no shutdown call).
 */
int sn_dcmi_super_pod(const char *path, struct sn_dcmi_pod *out,
		      struct sn_error *err);

#endif
