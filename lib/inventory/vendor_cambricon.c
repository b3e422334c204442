/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Cambricon MLU through CNDev (libcndev.so): count, PCI bus ids, the
 * card's health with its incidents, ECC, MLU-Link state and error
 * counters (see sn_vendor_lib.h for the interface).
 *
 * Types and signatures transcribed on their own from Cambricon/mlu-exporter
 * pkg/cndev/include/cndev.h (snapshot 934abae): cndevRet_t l.71-175,
 * CNDEV_VERSION_6 l.26, cndevDevice_t l.47, cndevCardInfo_t l.320-323,
 * cndevVersionInfo_t l.343-352, cndevECCInfo_t l.355-365,
 * cndevPCIeInfoV2_t l.501-513, cndevCardHealthStateV2_t and its incidents
 * l.598-709, cndevMLULinkStatusV2_t l.776-808, cndevMLULinkErrorCounter_t
 * l.947-955; the calls l.1911 (cndevInit), 1923, 1989, 2059, 2324, 2667,
 * 3014, 3400, 3616, 3893, 3937.
 *
 * Quirk: every struct with a leading `version` must be stamped
 * CNDEV_VERSION_6 (gpustack pycndev l.304-435) or CNDev answers
 * CNDEV_ERROR_UNSUPPORTED_API_VERSION (3).  The V2 health, PCIe V2 and
 * MLU-Link structs carry none.  The header of this snapshot has only
 * cndevGetPCIeInfoV2 (no version field), so that is the one read.
 *
 * What is filled, and the choices made:
 *  - health: cndevGetCardHealthStateV2.  OK when health 1, deviceState 1
 *    (GOOD), driverState 4 (RUNNING) and overallHealth 0 (PASS); WARN
 *    when only overallHealth is 10 (WARN); CRIT otherwise (health 0 is
 *    mlu-exporter's "sick", examples/metrics.yaml l.792).  health_text:
 *    "health H deviceState D driverState R overall O" and, with
 *    incidents, "; incidents CODE NAME, CODE NAME" (the first three).
 *  - ECC: cndevGetECCInfo.  ecc_corrected = correctedError (oneBitError
 *    + multipleOneError), ecc_uncorrected = uncorrectedError
 *    (multipleError + multipleMultipleError).  CNDev does not say
 *    volatile or aggregate: they are the driver's counts as it gives them.
 *    CNDEV_ERROR_NOT_SUPPORTED leaves ECC unread without a device error.
 *  - links: cndevGetMLULinkPortNumber ports (first SN_VENDOR_MAX_LINKS),
 *    cndevGetMLULinkStatusV2 per port.  UP when serdesState is 1 (ENABLE)
 *    and macState is 1 UP, 2 LLDP or 3 READY: all three are a MAC that is
 *    up (LLDP = neighbour seen, READY = IP configured; mlu-exporter exports
 *    macState raw as mlulink_status, metrics.yaml l.1427-1428); DOWN for
 *    macState 0 or serdesState 0 DISABLE / 2 ONGOING.  state_text
 *    "macState M serdes S".  Counters from cndevGetMLULinkErrorCounter:
 *    fec_corrected (correctFecCnt), fec_uncorrected (uncorrectFecCnt),
 *    fcs_rx_bad (rxBadFcsPkt), fcs_tx_bad (txBadFcsPkt); illegalAccessCnt
 *    is left out (SN_VENDOR_MAX_CTRS is 4).
 *  - version: the MLU driver's "major.minor.build" from
 *    cndevGetVersionInfo on the first device (optional symbol).
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "inventory/sn_vendor_lib.h"

#define CNDEV_VERSION_6 6
#define CNDEV_SUCCESS 0
#define CNDEV_ERROR_NOT_SUPPORTED 10
#define CNDEV_MAX_INCIDENTS 64
#define CNDEV_ERR_MSG_LENGTH 512
#define INCIDENTS_SHOWN 3

typedef int32_t cndev_ret;
typedef int32_t cndev_dev;

struct cndev_card_info {
	int32_t version;
	uint32_t number;
};

struct cndev_version_info {
	int32_t version;
	uint32_t mcu_major, mcu_minor, mcu_build;
	uint32_t driver_major, driver_minor, driver_build;
};

struct cndev_ecc_info {
	int32_t version;
	uint64_t one_bit, multiple_one, multiple, multiple_multiple;
	uint64_t corrected, uncorrected, total, address_forbidden;
};

struct cndev_pcie_info_v2 {
	uint32_t subsystem_id, device_id;
	uint16_t vendor, subsystem_vendor;
	uint32_t domain, bus, device, function;
	uint16_t module_id, slot_id;
	uint32_t reserved[8];
};

struct cndev_incident {
	int32_t system; /* cndevHealthSystem_t */
	int32_t health; /* cndevHealthResult_t: 0 PASS, 10 WARN, 20 FAIL */
	char msg[CNDEV_ERR_MSG_LENGTH];
	uint32_t device_id, bdf;
	int32_t code; /* cndevHealthError_t */
	uint32_t category, severity;
};

struct cndev_health_v2 {
	int32_t health;	      /* 1 healthy, 0 sick */
	int32_t device_state; /* 1 GOOD */
	int32_t driver_state; /* 4 RUNNING */
	int32_t overall;      /* cndevHealthResult_t */
	uint32_t incident_count;
	struct cndev_incident incidents[CNDEV_MAX_INCIDENTS];
	uint32_t reserved[8];
};

struct cndev_link_status_v2 {
	int32_t mac_state, serdes_state, presence_state;
	uint32_t serdes_progress;
	uint32_t reserved[7];
};

struct cndev_link_errors {
	uint64_t correct_fec, uncorrect_fec, rx_bad_fcs, tx_bad_fcs;
	uint64_t illegal_access, reserved[11];
};

/* The CNDev calls used; NULL = optional and absent. */
struct cndev {
	cndev_ret (*init)(int32_t reserved);
	cndev_ret (*release)(void);
	cndev_ret (*count)(struct cndev_card_info *info);
	cndev_ret (*handle)(int32_t index, cndev_dev *dev);
	cndev_ret (*pcie)(struct cndev_pcie_info_v2 *info, cndev_dev dev);
	cndev_ret (*health)(struct cndev_health_v2 *st, cndev_dev dev);
	cndev_ret (*ecc)(struct cndev_ecc_info *info, cndev_dev dev);
	int32_t (*ports)(cndev_dev dev);
	cndev_ret (*link)(struct cndev_link_status_v2 *st, cndev_dev dev,
			  int32_t link);
	cndev_ret (*link_err)(struct cndev_link_errors *c, cndev_dev dev,
			      int32_t link);
	cndev_ret (*version)(struct cndev_version_info *v, cndev_dev dev);
};

static const struct {
	const char *name;
	size_t off;
	bool required;
} syms[] = {
	{ "cndevInit", offsetof(struct cndev, init), true },
	{ "cndevRelease", offsetof(struct cndev, release), false },
	{ "cndevGetDeviceCount", offsetof(struct cndev, count), true },
	{ "cndevGetDeviceHandleByIndex", offsetof(struct cndev, handle), true },
	{ "cndevGetPCIeInfoV2", offsetof(struct cndev, pcie), true },
	{ "cndevGetCardHealthStateV2", offsetof(struct cndev, health), true },
	{ "cndevGetECCInfo", offsetof(struct cndev, ecc), true },
	{ "cndevGetMLULinkPortNumber", offsetof(struct cndev, ports), true },
	{ "cndevGetMLULinkStatusV2", offsetof(struct cndev, link), true },
	{ "cndevGetMLULinkErrorCounter", offsetof(struct cndev, link_err),
	  true },
	{ "cndevGetVersionInfo", offsetof(struct cndev, version), false },
};

/* cndevRet_t's names, cndev.h l.71-175. */
static const char *cndev_err_name(cndev_ret rc)
{
	static const char *const names[] = {
		"CNDEV_SUCCESS",
		"CNDEV_ERROR_NO_DRIVER",
		"CNDEV_ERROR_LOW_DRIVER_VERSION",
		"CNDEV_ERROR_UNSUPPORTED_API_VERSION",
		"CNDEV_ERROR_UNINITIALIZED",
		"CNDEV_ERROR_INVALID_ARGUMENT",
		"CNDEV_ERROR_INVALID_DEVICE_ID",
		"CNDEV_ERROR_UNKNOWN",
		"CNDEV_ERROR_MALLOC",
		"CNDEV_ERROR_INSUFFICIENT_SPACE",
		"CNDEV_ERROR_NOT_SUPPORTED",
		"CNDEV_ERROR_INVALID_LINK",
		"CNDEV_ERROR_NO_DEVICES",
		"CNDEV_ERROR_NO_PERMISSION",
		"CNDEV_ERROR_NOT_FOUND",
		"CNDEV_ERROR_IN_USE",
		"CNDEV_ERROR_DUPLICATE",
		"CNDEV_ERROR_TIMEOUT",
		"CNDEV_ERROR_IN_PROBLEM",
	};

	if (rc >= 0 && (size_t)rc < sizeof(names) / sizeof(names[0]))
		return names[rc];
	return "unknown";
}

/* cndevHealthError_t's names without CNDEV_FR_, cndev.h l.626-658. */
static const char *cndev_incident_name(int32_t code)
{
	static const char *const names[] = {
		"OK",
		"UNKNOWN",
		"INTERNAL",
		"XID_ERROR",
		"PCIE_REPLAY_RATE",
		"PCIE_GENERATION",
		"PCIE_WIDTH",
		"LOW_BANDWIDTH",
		"HIGH_LATENCY",
		"MLULINK_DOWN",
		"MLULINK_REPLAY",
		"MLULINK_ERROR_THRESHOLD",
		"MLULINK_CRC_ERROR_THRESHOLD",
		"DIE2DIE_CRC_ERROR_THRESHOLD",
		"SBE_VIOLATION",
		"DBE_VIOLATION",
		"SBE_THRESHOLD_VIOLATION",
		"DBE_THRESHOLD_VIOLATION",
		"ROW_REMAP_FAILURE",
		"PENDING_ROW_REMAP",
		"ADDRESSSWAP_FAILURE",
		"PENDING_ADDRESSSWAP",
		"REPAIR_FAILURE",
		"PENDING_PAGE_REPAIR",
		"PENDING_PAGE_RETIREMENTS",
		"PAGE_REPAIR_RESOURCE_THRESHOLD",
		"TEMP_VIOLATION",
		"THERMAL_VIOLATION",
		"DEVICE_COUNT_MISMATCH",
		"DRIVER_ERROR",
		"DEVSYS_ERROR",
	};

	if (code >= 0 && (size_t)code < sizeof(names) / sizeof(names[0]))
		return names[code];
	return "?";
}

/* The first failed call on a device names itself in its error. */
static void cambricon_dev_fail(struct sn_vendor_dev *d, const char *call,
			       cndev_ret rc)
{
	if (!d->error[0])
		SN_VSET(d->error, "%s: error %d (%s)", call, rc,
			cndev_err_name(rc));
}

static int cambricon_syms(void *dl, struct cndev *c, struct sn_vendor_node *out)
{
	for (size_t i = 0; i < sizeof(syms) / sizeof(syms[0]); i++)
		if (sn_vendor_sym(dl, syms[i].name, (char *)c + syms[i].off,
				  syms[i].required, out))
			return -1;
	return 0;
}

static void cambricon_health(const struct cndev *c, cndev_dev h,
			     struct sn_vendor_dev *d)
{
	struct cndev_health_v2 st = { 0 };
	char inc[SN_VENDOR_TEXT] = "";
	uint32_t n;
	cndev_ret rc;

	rc = SN_VCALL(c->health(&st, h), "cndevGetCardHealthStateV2(%u)",
		      d->index);
	if (rc != CNDEV_SUCCESS) {
		cambricon_dev_fail(d, "cndevGetCardHealthStateV2", rc);
		return;
	}
	n = st.incident_count < CNDEV_MAX_INCIDENTS ? st.incident_count :
						      CNDEV_MAX_INCIDENTS;
	for (uint32_t i = 0; i < n && i < INCIDENTS_SHOWN; i++) {
		size_t len = strlen(inc);

		sn_vendor_set(inc + len, sizeof(inc) - len, "%s%d %s",
			      i ? ", " : "; incidents ", st.incidents[i].code,
			      cndev_incident_name(st.incidents[i].code));
	}
	SN_VSET(d->health_text,
		"health %d deviceState %d driverState %d overall %d%s",
		st.health, st.device_state, st.driver_state, st.overall, inc);
	if (st.health == 1 && st.device_state == 1 && st.driver_state == 4 &&
	    st.overall == 0)
		d->health = SN_VHEALTH_OK;
	else if (st.health == 1 && st.device_state == 1 &&
		 st.driver_state == 4 && st.overall == 10)
		d->health = SN_VHEALTH_WARN;
	else
		d->health = SN_VHEALTH_CRIT;
}

static void cambricon_ecc(const struct cndev *c, cndev_dev h,
			  struct sn_vendor_dev *d)
{
	struct cndev_ecc_info e = { .version = CNDEV_VERSION_6 };
	cndev_ret rc;

	rc = SN_VCALL(c->ecc(&e, h), "cndevGetECCInfo(%u)", d->index);
	if (rc == CNDEV_ERROR_NOT_SUPPORTED)
		return;
	if (rc != CNDEV_SUCCESS) {
		cambricon_dev_fail(d, "cndevGetECCInfo", rc);
		return;
	}
	d->ecc_read = true;
	d->ecc_corrected = e.corrected;
	d->ecc_uncorrected = e.uncorrected;
}

static void cambricon_ctr(struct sn_vendor_link *l, const char *name,
			  uint64_t value)
{
	struct sn_vendor_ctr *ctr = &l->ctrs[l->n_ctrs++];

	SN_VSET(ctr->name, "%s", name);
	ctr->value = value;
}

static void cambricon_link(const struct cndev *c, cndev_dev h,
			   struct sn_vendor_dev *d, int32_t port)
{
	struct sn_vendor_link *l = &d->links[port];
	struct cndev_link_status_v2 st = { 0 };
	struct cndev_link_errors e = { 0 };
	cndev_ret rc;

	rc = SN_VCALL(c->link(&st, h, port), "cndevGetMLULinkStatusV2(%u, %d)",
		      d->index, port);
	if (rc != CNDEV_SUCCESS) {
		cambricon_dev_fail(d, "cndevGetMLULinkStatusV2", rc);
		return;
	}
	SN_VSET(l->state_text, "macState %d serdes %d", st.mac_state,
		st.serdes_state);
	l->state = st.serdes_state == 1 && st.mac_state >= 1 &&
				   st.mac_state <= 3 ?
			   SN_VLINK_UP :
			   SN_VLINK_DOWN;
	rc = SN_VCALL(c->link_err(&e, h, port),
		      "cndevGetMLULinkErrorCounter(%u, %d)", d->index, port);
	if (rc != CNDEV_SUCCESS) {
		cambricon_dev_fail(d, "cndevGetMLULinkErrorCounter", rc);
		return;
	}
	cambricon_ctr(l, "fec_corrected", e.correct_fec);
	cambricon_ctr(l, "fec_uncorrected", e.uncorrect_fec);
	cambricon_ctr(l, "fcs_rx_bad", e.rx_bad_fcs);
	cambricon_ctr(l, "fcs_tx_bad", e.tx_bad_fcs);
}

static void cambricon_links(const struct cndev *c, cndev_dev h,
			    struct sn_vendor_dev *d)
{
	int32_t n;

	n = SN_VCALL(c->ports(h), "cndevGetMLULinkPortNumber(%u)", d->index);
	if (n <= 0)
		return; /* no MLU-Link on this card */
	if (n > SN_VENDOR_MAX_LINKS)
		n = SN_VENDOR_MAX_LINKS;
	d->n_links = (uint8_t)n;
	for (int32_t p = 0; p < n; p++)
		cambricon_link(c, h, d, p);
}

static void cambricon_version(const struct cndev *c, cndev_dev h,
			      struct sn_vendor_node *out)
{
	struct cndev_version_info v = { .version = CNDEV_VERSION_6 };

	if (!c->version || out->version[0])
		return;
	if (SN_VCALL(c->version(&v, h), "cndevGetVersionInfo(0)") ==
	    CNDEV_SUCCESS)
		SN_VSET(out->version, "%u.%u.%u", v.driver_major,
			v.driver_minor, v.driver_build);
}

static void cambricon_dev(const struct cndev *c, struct sn_vendor_node *out,
			  uint32_t i)
{
	struct sn_vendor_dev *d = &out->devs[i];
	struct cndev_pcie_info_v2 pci = { 0 };
	cndev_dev h = 0;
	cndev_ret rc;

	d->index = i;
	SN_VSET(d->label, "card %u", i);
	rc = SN_VCALL(c->handle((int32_t)i, &h),
		      "cndevGetDeviceHandleByIndex(%u)", i);
	if (rc != CNDEV_SUCCESS) {
		cambricon_dev_fail(d, "cndevGetDeviceHandleByIndex", rc);
		return;
	}
	rc = SN_VCALL(c->pcie(&pci, h), "cndevGetPCIeInfoV2(%u)", i);
	if (rc == CNDEV_SUCCESS)
		SN_VSET(d->bdf, "%04x:%02x:%02x.%x", pci.domain, pci.bus,
			pci.device, pci.function);
	else
		cambricon_dev_fail(d, "cndevGetPCIeInfoV2", rc);
	cambricon_version(c, h, out);
	cambricon_health(c, h, d);
	cambricon_ecc(c, h, d);
	cambricon_links(c, h, d);
}

static int cambricon_read(void *dl, struct sn_vendor_node *out)
{
	struct cndev_card_info cards = { .version = CNDEV_VERSION_6 };
	struct cndev c = { 0 };
	cndev_ret rc;

	if (cambricon_syms(dl, &c, out))
		return -1;
	rc = SN_VCALL_LONG(c.init(0), "cndevInit(0)");
	if (rc != CNDEV_SUCCESS) {
		SN_VSET(out->error, "cndevInit: error %d (%s)", rc,
			cndev_err_name(rc));
		return -1;
	}
	rc = SN_VCALL(c.count(&cards), "cndevGetDeviceCount");
	if (rc != CNDEV_SUCCESS) {
		SN_VSET(out->error, "cndevGetDeviceCount: error %d (%s)", rc,
			cndev_err_name(rc));
		return -1;
	}
	out->counted = true;
	out->count = cards.number;
	out->n_devs = cards.number < SN_VENDOR_MAX_DEVS ? cards.number :
							  SN_VENDOR_MAX_DEVS;
	for (uint32_t i = 0; i < out->n_devs; i++)
		cambricon_dev(&c, out, i);
	if (c.release)
		(void)SN_VCALL(c.release(), "cndevRelease");
	return 0;
}

const struct sn_vendor_backend sn_vendor_cambricon = { SN_ACCEL_CAMBRICON,
						       cambricon_read };
