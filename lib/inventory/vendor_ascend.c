/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The Ascend backend: Huawei's DCMI (libdcmi.so), read as MindCluster
 * reads it (Ascend/mind-cluster 22bb3d9, component/ascend-common/
 * devmanager/dcmi/dcmi.go).  Types and prototypes are transcribed from
 * MindCluster's copy of the header, dcmi/dcmi_interface_api.h (cited
 * "h l.N" below); codes from dcmi/common.go and dcmi/constants.go.
 *
 * Devices: each card of dcmi_get_card_list (dcmi_get_card_num_list on
 * older drivers, same arguments: MindCluster dlsyms both, dcmi.go
 * l.421, 469) holds dcmi_get_device_num_in_card chips; MindCluster counts
 * those as NPUs (DcGetLogicIDList, dcmi.go l.1545-1573).  Where
 * dcmi_get_device_type answers, a device that is not NPU_TYPE (the MCU
 * or CPU of h l.123-129) is skipped, as DcGetSuperPodInfo does
 * (dcmi.go l.1208-1213).  A device's index is its logic id (the number
 * npu-smi and ASCEND_RT_VISIBLE_DEVICES use), else its place in the list.
 *
 * Health: dcmi_get_device_health 0 normal, 1 minor, 2 major, 3 critical
 * alarm, 0xffffffff absent (hiascend DCMI API reference) -> OK, WARN,
 * CRIT, CRIT, CRIT (another value: CRIT, as npu-exporter counts any
 * non-zero as unhealthy).  Then dcmi_get_device_errorcode_v2 (128 codes,
 * MaxErrorCodeCount, common/constants.go l.118): each code's class comes
 * from ascend-device-plugin's faultCode.json (the table below); the worse
 * of the health value and the classes wins.  health_text:
 *   "health 3 (critical alarm), error 0x80e18402 (SeparateNPU)"
 * codes worst class first, unknown codes "(not in faultCode.json)".
 *
 * ECC: HBM (DCMI_DEVICE_TYPE_HBM 2, h l.193-200): ecc_uncorrected =
 * double_bit_error_cnt, ecc_corrected = single_bit_error_cnt, the
 * current counts (the total_* fields are the lifetime ones, kept in the
 * device counters "total_double" and "total_single").  Not read when
 * enable_flag is 0 (ECC off) or the chip has no HBM (-8255).
 *
 * RoCE network health: dcmi_get_device_network_health ->
 * enum dcmi_rdfx_detect_result (h l.131-143): 0 OK and 6 INIT healthy
 * (npu-exporter; NetworkInit, common/constants.go l.213-214), 1-5, 7, 8
 * CRIT.  net_text: "network health 3 (UNREACH)".  -8255 (not supported):
 * UNREAD, "network health not supported (-8255)".
 *
 * HCCS: dcmi_get_device_info(DCMI_MAIN_CMD_HCCS 16, sub 5: u64 counters,
 * else sub 3: 32-bit), as npu-exporter's HCCS collector tries them
 * (collector_for_hccs.go l.172-199; constants.go l.66-69).  links[p] is
 * HCCS port p, 0-7 (npu-exporter's MaxHccsNum 8); port 0 is no link on
 * any board (npu-exporter starts at 1 on 910B and A900 A3, 2 on A9000 A3,
 * l.159-166): UNUSED.  DCMI gives no link state: a port whose counters
 * were read is UP, "counters read".  Counters per link, as the struct
 * names them: "crc" (crc_err_cnt), "retry" (retry_cnt), "tx" (tx_cnt),
 * "rx" (rx_cnt).
 *
 * A device whose call answers -8012 (not ready: a dropped card, common/
 * constants.go l.92-97) or -8008 (does not exist) is not asked further:
 * dcmi_get_device_network_health blocks after a card drops.
 */
#include <stdio.h>
#include <string.h>

#include "inventory/sn_vendor_lib.h"

/* dcmi/common.go l.29-55: the codes this backend names. */
#define DCMI_ERR_NO_DEVICE (-8008)
#define DCMI_ERR_NOT_READY (-8012)
#define DCMI_ERR_NOT_SUPPORTED (-8255)

#define DCMI_MAX_CARDS 64	 /* HiAIMaxCardNum, common/constants.go l.133 */
#define DCMI_MAX_ERRORS 128	 /* MaxErrorCodeCount, l.119 */
#define DCMI_VERSION_LEN 32	 /* DcmiVersionLen, dcmi/constants.go l.42 */
#define DCMI_NPU_TYPE 0		 /* enum dcmi_unit_type NPU_TYPE, h l.125 */
#define DCMI_DEVICE_TYPE_HBM 2	 /* enum dcmi_device_type, h l.197 */
#define DCMI_MAIN_CMD_HCCS 16	 /* enum dcmi_main_cmd, h l.160 */
#define HCCS_SUB_STATISTIC 3	 /* dcmi/constants.go l.67 */
#define HCCS_SUB_STATISTIC_U64 5 /* l.69 */
#define HCCS_MAX_PCS_NUM 16	 /* h l.230 */
#define HCCS_RES_PCS_NUM 64	 /* h l.231 */
#define HCCS_PORTS 8		 /* npu-exporter MaxHccsNum */
#define HEALTH_ABSENT 0xffffffffu

/* h l.54-65 */
struct dcmi_pcie_info_all {
	unsigned int venderid;
	unsigned int subvenderid;
	unsigned int deviceid;
	unsigned int subdeviceid;
	int domain;
	unsigned int bdf_busid;
	unsigned int bdf_deviceid;
	unsigned int bdf_funcid;
	unsigned char reserve[32];
};

/* h l.72-83 */
struct dcmi_ecc_info {
	int enable_flag;
	unsigned int single_bit_error_cnt;
	unsigned int double_bit_error_cnt;
	unsigned int total_single_bit_error_cnt;
	unsigned int total_double_bit_error_cnt;
	unsigned int single_bit_isolated_pages_cnt;
	unsigned int double_bit_isolated_pages_cnt;
	unsigned int single_bit_next_isolated_pages_cnt;
	unsigned int double_bit_next_isolated_pages_cnt;
};

/* h l.477-484 */
struct dcmi_hccs_statistic_info {
	unsigned int tx_cnt[HCCS_MAX_PCS_NUM];
	unsigned int rx_cnt[HCCS_MAX_PCS_NUM];
	unsigned int crc_err_cnt[HCCS_MAX_PCS_NUM];
	unsigned int retry_cnt[HCCS_MAX_PCS_NUM];
	unsigned int reserved_field_cnt[HCCS_RES_PCS_NUM];
};

/* h l.486-493 */
struct dcmi_hccs_statistic_info_u64 {
	unsigned long long tx_cnt[HCCS_MAX_PCS_NUM];
	unsigned long long rx_cnt[HCCS_MAX_PCS_NUM];
	unsigned long long crc_err_cnt[HCCS_MAX_PCS_NUM];
	unsigned long long retry_cnt[HCCS_MAX_PCS_NUM];
	unsigned long long reserved[HCCS_RES_PCS_NUM];
};

/* The enums of the prototypes are int-sized (h l.123, 131, 152, 193). */
struct dcmi_api {
	int (*init)(void);
	int (*card_list)(int *card_num, int *card_list, int list_len);
	const char *card_list_name;
	int (*num_in_card)(int card_id, int *device_num);
	int (*health)(int card_id, int device_id, unsigned int *health);
	int (*type)(int card_id, int device_id, int *unit_type);
	int (*logic_id)(int *logic_id, int card_id, int device_id);
	int (*pcie)(int card_id, int device_id, struct dcmi_pcie_info_all *);
	int (*errorcode)(int card_id, int device_id, int *error_count,
			 unsigned int *error_code_list, unsigned int list_len);
	int (*ecc)(int card_id, int device_id, int input_type,
		   struct dcmi_ecc_info *);
	int (*net)(int card_id, int device_id, int *result);
	int (*info)(int card_id, int device_id, int main_cmd,
		    unsigned int sub_cmd, void *buf, unsigned int *size);
	int (*version)(char *dcmi_ver, int buf_size);
};

/* ---- faultCode.json ------------------------------------------------------ */

/*
 * The fault classes of ascend-device-plugin, worst last, and what each
 * means for a job about to start on the NPU.  NotHandle: nothing.
 * SubHealth: usable, degraded: WARN.  RestartRequest, RestartBusiness:
 * the running job restarts, the NPU stays usable: WARN.  FreeRestartNPU,
 * RestartNPU, PreSeparateNPU, SeparateNPU: the NPU must be reset or taken
 * out: CRIT, whatever the health value says.
 */
enum fault_class {
	FC_UNKNOWN = 0,
	FC_NOT_HANDLE,
	FC_SUB_HEALTH,
	FC_RESTART_REQUEST,
	FC_RESTART_BUSINESS,
	FC_FREE_RESTART_NPU,
	FC_RESTART_NPU,
	FC_PRE_SEPARATE_NPU,
	FC_SEPARATE_NPU,
	FC_COUNT,
};

static const struct {
	const char *name;
	enum sn_vendor_health grade;
} fault_classes[FC_COUNT] = {
	[FC_UNKNOWN] = { "not in faultCode.json", SN_VHEALTH_UNREAD },
	[FC_NOT_HANDLE] = { "NotHandle", SN_VHEALTH_OK },
	[FC_SUB_HEALTH] = { "SubHealth", SN_VHEALTH_WARN },
	[FC_RESTART_REQUEST] = { "RestartRequest", SN_VHEALTH_WARN },
	[FC_RESTART_BUSINESS] = { "RestartBusiness", SN_VHEALTH_WARN },
	[FC_FREE_RESTART_NPU] = { "FreeRestartNPU", SN_VHEALTH_CRIT },
	[FC_RESTART_NPU] = { "RestartNPU", SN_VHEALTH_CRIT },
	[FC_PRE_SEPARATE_NPU] = { "PreSeparateNPU", SN_VHEALTH_CRIT },
	[FC_SEPARATE_NPU] = { "SeparateNPU", SN_VHEALTH_CRIT },
};

/*
 * A subset of Ascend/mind-cluster component/ascend-device-plugin/build/
 * faultCode.json (snapshot 22bb3d9; file commit ada4c99): the first codes
 * of each list, and the card drop 0x40F84E00 (CardDropFaultCode,
 * common/constants.go l.97).  Line numbers of the lists in that file.
 */
static const struct {
	unsigned int code;
	enum fault_class cls;
} fault_codes[] = {
	/* NotHandleFaultCodes, l.2-17 */
	{ 0x80E21007, FC_NOT_HANDLE },
	{ 0x80E38003, FC_NOT_HANDLE },
	{ 0x80F78006, FC_NOT_HANDLE },
	{ 0x80C98006, FC_NOT_HANDLE },
	{ 0x80CB8006, FC_NOT_HANDLE },
	{ 0x81318006, FC_NOT_HANDLE },
	/* RestartRequestCodes, l.18-23 */
	{ 0x80C98008, FC_RESTART_REQUEST },
	{ 0x80C98002, FC_RESTART_REQUEST },
	{ 0x80C98003, FC_RESTART_REQUEST },
	{ 0x80C98009, FC_RESTART_REQUEST },
	{ 0x80CB8002, FC_RESTART_REQUEST },
	{ 0x80CB8008, FC_RESTART_REQUEST },
	/* RestartBusinessCodes, l.24-28 */
	{ 0x8C204E00, FC_RESTART_BUSINESS },
	{ 0xA8028802, FC_RESTART_BUSINESS },
	{ 0xA4302003, FC_RESTART_BUSINESS },
	{ 0xA4302004, FC_RESTART_BUSINESS },
	{ 0x80E01801, FC_RESTART_BUSINESS },
	/* FreeRestartNPUCodes, l.29-33 */
	{ 0x8C0E4E00, FC_FREE_RESTART_NPU },
	{ 0x8C104E00, FC_FREE_RESTART_NPU },
	{ 0x8C0C4E00, FC_FREE_RESTART_NPU },
	{ 0x8C044E00, FC_FREE_RESTART_NPU },
	/* RestartNPUCodes, l.34-52 */
	{ 0x8C03A000, FC_RESTART_NPU },
	{ 0x8C1FA006, FC_RESTART_NPU },
	{ 0x40F84E00, FC_RESTART_NPU },
	{ 0x80E24E00, FC_RESTART_NPU },
	{ 0x80E21E01, FC_RESTART_NPU },
	{ 0x80E38008, FC_RESTART_NPU },
	/* SeparateNPUCodes, l.53-76 */
	{ 0x80E3A201, FC_SEPARATE_NPU },
	{ 0x80E18402, FC_SEPARATE_NPU },
	{ 0x80E0020B, FC_SEPARATE_NPU },
	{ 0x817F8002, FC_SEPARATE_NPU },
	{ 0x814F8002, FC_SEPARATE_NPU },
	{ 0x9419321B, FC_SEPARATE_NPU },
	/* PreSeparateNPUCodes, l.77-99 */
	{ 0x8118043C, FC_PRE_SEPARATE_NPU },
	{ 0x8118045A, FC_PRE_SEPARATE_NPU },
	{ 0x8F180220, FC_PRE_SEPARATE_NPU },
	{ 0x8F180221, FC_PRE_SEPARATE_NPU },
	/* SubHealthFaultCodes, l.100-102 */
	{ 0x81A3880C, FC_SUB_HEALTH },
	{ 0x81AD8605, FC_SUB_HEALTH },
	{ 0x80E20207, FC_SUB_HEALTH },
	{ 0x81078605, FC_SUB_HEALTH },
	{ 0x80DE0207, FC_SUB_HEALTH },
	{ 0x8C2FA001, FC_SUB_HEALTH },
};

static enum fault_class fault_class_of(unsigned int code)
{
	for (size_t i = 0; i < sizeof(fault_codes) / sizeof(fault_codes[0]);
	     i++)
		if (fault_codes[i].code == code)
			return fault_codes[i].cls;
	return FC_UNKNOWN;
}

/* The text rank of a class: worst first, unknown before NotHandle. */
static int fault_rank(enum fault_class c)
{
	return c == FC_UNKNOWN ? 1 : c == FC_NOT_HANDLE ? 0 : (int)c;
}

/* ---- codes and words ---------------------------------------------------- */

/* dcmi/common.go l.29-55, shortened. */
static const char *dcmi_err_name(int rc)
{
	switch (rc) {
	case -8001:
		return "invalid parameter";
	case -8002:
		return "permission denied";
	case -8005:
		return "internal error";
	case -8006:
		return "response timed out";
	case -8007:
		return "invalid device id";
	case DCMI_ERR_NO_DEVICE:
		return "device does not exist";
	case DCMI_ERR_NOT_READY:
		return "device not ready";
	case -8013:
		return "not supported in containers";
	case -8020:
		return "device resources occupied";
	case DCMI_ERR_NOT_SUPPORTED:
		return "not supported";
	default:
		return "DCMI error";
	}
}

static const char *health_name(unsigned int h)
{
	static const char *const names[] = { "normal", "minor alarm",
					     "major alarm", "critical alarm" };

	if (h < 4)
		return names[h];
	return h == HEALTH_ABSENT ? "absent" : "unknown";
}

static enum sn_vendor_health health_grade(unsigned int h)
{
	return h == 0 ? SN_VHEALTH_OK :
	       h == 1 ? SN_VHEALTH_WARN :
			SN_VHEALTH_CRIT;
}

/* enum dcmi_rdfx_detect_result names, DCMI_RDFX_DETECT_ left off. */
static const char *net_name(int r)
{
	static const char *const names[] = {
		"OK",	   "SOCK_FAIL",	    "RECV_TIMEOUT",
		"UNREACH", "TIME_EXCEEDED", "FAULT",
		"INIT",	   "THREAD_ERR",    "IP_SET"
	};

	return r >= 0 && r <= 8 ? names[r] : "unknown";
}

/* ---- symbols ------------------------------------------------------------ */

static int dcmi_syms(void *dl, struct dcmi_api *a, struct sn_vendor_node *out)
{
	memset(a, 0, sizeof(*a));
	a->card_list_name = "dcmi_get_card_list";
	sn_vendor_sym(dl, "dcmi_get_card_list", &a->card_list, false, out);
	if (!a->card_list) {
		a->card_list_name = "dcmi_get_card_num_list";
		if (sn_vendor_sym(dl, a->card_list_name, &a->card_list, true,
				  out)) {
			SN_VSET(out->error,
				"no symbol dcmi_get_card_list or "
				"dcmi_get_card_num_list in %s: library too old "
				"or not DCMI",
				out->library);
			return -1;
		}
	}
	if (sn_vendor_sym(dl, "dcmi_init", &a->init, true, out) ||
	    sn_vendor_sym(dl, "dcmi_get_device_num_in_card", &a->num_in_card,
			  true, out) ||
	    sn_vendor_sym(dl, "dcmi_get_device_health", &a->health, true, out))
		return -1;
	sn_vendor_sym(dl, "dcmi_get_device_type", &a->type, false, out);
	sn_vendor_sym(dl, "dcmi_get_device_logic_id", &a->logic_id, false, out);
	sn_vendor_sym(dl, "dcmi_get_device_pcie_info_v2", &a->pcie, false, out);
	sn_vendor_sym(dl, "dcmi_get_device_errorcode_v2", &a->errorcode, false,
		      out);
	sn_vendor_sym(dl, "dcmi_get_device_ecc_info", &a->ecc, false, out);
	sn_vendor_sym(dl, "dcmi_get_device_network_health", &a->net, false,
		      out);
	sn_vendor_sym(dl, "dcmi_get_device_info", &a->info, false, out);
	sn_vendor_sym(dl, "dcmi_get_dcmi_version", &a->version, false, out);
	return 0;
}

/* ---- one device ---------------------------------------------------------- */

/* Note a failed call in d->error (the first only); true when the device
 * is gone and must not be asked further. */
static bool dev_failed(struct sn_vendor_dev *d, const char *call, int rc)
{
	if (!d->error[0])
		SN_VSET(d->error, "%s: error %d (%s)", call, rc,
			dcmi_err_name(rc));
	return rc == DCMI_ERR_NOT_READY || rc == DCMI_ERR_NO_DEVICE;
}

static int dev_pcie(const struct dcmi_api *a, int card, int dev,
		    struct sn_vendor_dev *d)
{
	struct dcmi_pcie_info_all p;
	int rc;

	if (!a->pcie)
		return 0;
	memset(&p, 0, sizeof(p));
	rc = SN_VCALL(a->pcie(card, dev, &p),
		      "dcmi_get_device_pcie_info_v2(card %d, device %d)", card,
		      dev);
	if (rc)
		return rc == DCMI_ERR_NOT_SUPPORTED ? 0 : rc;
	SN_VSET(d->bdf, "%04x:%02x:%02x.%x", (unsigned)p.domain & 0xffff,
		p.bdf_busid & 0xff, p.bdf_deviceid & 0x1f, p.bdf_funcid & 0x7);
	return 0;
}

/* Append the codes of rank r to text at *len. */
static void codes_text(char *text, size_t size, size_t *len,
		       const unsigned int *codes, int n, int r)
{
	for (int i = 0; i < n; i++) {
		enum fault_class c = fault_class_of(codes[i]);

		if (fault_rank(c) != r || *len >= size)
			continue;
		sn_vendor_set(text + *len, size - *len, ", error 0x%08x (%s)",
			      codes[i], fault_classes[c].name);
		*len += strlen(text + *len);
	}
}

static int dev_health(const struct dcmi_api *a, int card, int dev,
		      struct sn_vendor_dev *d)
{
	unsigned int h = 0, codes[DCMI_MAX_ERRORS];
	enum sn_vendor_health grade;
	char text[SN_VENDOR_TEXT * 4];
	size_t len;
	int rc, n = 0;

	rc = SN_VCALL(a->health(card, dev, &h),
		      "dcmi_get_device_health(card %d, device %d)", card, dev);
	if (rc)
		return rc;
	grade = health_grade(h);
	if (a->errorcode) {
		rc = SN_VCALL(
			a->errorcode(card, dev, &n, codes, DCMI_MAX_ERRORS),
			"dcmi_get_device_errorcode_v2(card %d, device %d)",
			card, dev);
		if (rc && dev_failed(d, "dcmi_get_device_errorcode_v2", rc))
			return rc;
		if (rc || n < 0)
			n = 0;
		if (n > DCMI_MAX_ERRORS)
			n = DCMI_MAX_ERRORS;
	}
	for (int i = 0; i < n; i++) {
		enum sn_vendor_health g =
			fault_classes[fault_class_of(codes[i])].grade;

		if (g > grade)
			grade = g;
	}
	snprintf(text, sizeof(text),
		 h == HEALTH_ABSENT ? "health 0x%x (%s)" : "health %u (%s)", h,
		 health_name(h));
	len = strlen(text);
	for (int r = FC_COUNT - 1; r >= 0; r--)
		codes_text(text, sizeof(text), &len, codes, n, r);
	SN_VSET(d->health_text, "%s", text);
	d->health = (uint8_t)grade;
	return 0;
}

static void add_ctr(struct sn_vendor_ctr *ctrs, uint8_t *n, const char *name,
		    uint64_t value)
{
	if (*n >= SN_VENDOR_MAX_CTRS)
		return;
	SN_VSET(ctrs[*n].name, "%s", name);
	ctrs[*n].value = value;
	(*n)++;
}

static int dev_ecc(const struct dcmi_api *a, int card, int dev,
		   struct sn_vendor_dev *d)
{
	struct dcmi_ecc_info e;
	int rc;

	if (!a->ecc)
		return 0;
	memset(&e, 0, sizeof(e));
	rc = SN_VCALL(a->ecc(card, dev, DCMI_DEVICE_TYPE_HBM, &e),
		      "dcmi_get_device_ecc_info(card %d, device %d, HBM)", card,
		      dev);
	if (rc)
		return rc == DCMI_ERR_NOT_SUPPORTED ? 0 : rc;
	if (!e.enable_flag)
		return 0;
	d->ecc_read = true;
	d->ecc_uncorrected = e.double_bit_error_cnt;
	d->ecc_corrected = e.single_bit_error_cnt;
	add_ctr(d->ctrs, &d->n_ctrs, "total_double",
		e.total_double_bit_error_cnt);
	add_ctr(d->ctrs, &d->n_ctrs, "total_single",
		e.total_single_bit_error_cnt);
	return 0;
}

static int dev_net(const struct dcmi_api *a, int card, int dev,
		   struct sn_vendor_dev *d)
{
	int r = 0, rc;

	if (!a->net)
		return 0;
	rc = SN_VCALL(a->net(card, dev, &r),
		      "dcmi_get_device_network_health(card %d, device %d)",
		      card, dev);
	if (rc == DCMI_ERR_NOT_SUPPORTED) {
		SN_VSET(d->net_text, "network health not supported (%d)", rc);
		return 0;
	}
	if (rc) {
		SN_VSET(d->net_text, "network health error %d", rc);
		return rc;
	}
	d->net = r == 0 || r == 6 ? SN_VHEALTH_OK : SN_VHEALTH_CRIT;
	SN_VSET(d->net_text, "network health %d (%s)", r, net_name(r));
	return 0;
}

/* Fill the links from the HCCS statistics, 32- or 64-bit. */
static void hccs_links(struct sn_vendor_dev *d, const unsigned long long *tx,
		       const unsigned long long *rx,
		       const unsigned long long *crc,
		       const unsigned long long *retry)
{
	d->n_links = HCCS_PORTS;
	for (int p = 0; p < HCCS_PORTS; p++) {
		struct sn_vendor_link *l = &d->links[p];

		if (p == 0) {
			l->state = SN_VLINK_UNUSED;
			SN_VSET(l->state_text, "port 0: no HCCS link");
			continue;
		}
		l->state = SN_VLINK_UP;
		SN_VSET(l->state_text, "counters read");
		add_ctr(l->ctrs, &l->n_ctrs, "crc", crc[p]);
		add_ctr(l->ctrs, &l->n_ctrs, "retry", retry[p]);
		add_ctr(l->ctrs, &l->n_ctrs, "tx", tx[p]);
		add_ctr(l->ctrs, &l->n_ctrs, "rx", rx[p]);
	}
}

static int dev_hccs(const struct dcmi_api *a, int card, int dev,
		    struct sn_vendor_dev *d)
{
	struct dcmi_hccs_statistic_info_u64 u;
	struct dcmi_hccs_statistic_info s;
	unsigned int size = sizeof(u);
	int rc;

	if (!a->info)
		return 0;
	memset(&u, 0, sizeof(u));
	rc = SN_VCALL(a->info(card, dev, DCMI_MAIN_CMD_HCCS,
			      HCCS_SUB_STATISTIC_U64, &u, &size),
		      "dcmi_get_device_info(card %d, device %d, HCCS 5)", card,
		      dev);
	if (!rc) {
		hccs_links(d, u.tx_cnt, u.rx_cnt, u.crc_err_cnt, u.retry_cnt);
		return 0;
	}
	if (rc == DCMI_ERR_NOT_READY || rc == DCMI_ERR_NO_DEVICE)
		return rc;
	size = sizeof(s);
	memset(&s, 0, sizeof(s));
	rc = SN_VCALL(a->info(card, dev, DCMI_MAIN_CMD_HCCS, HCCS_SUB_STATISTIC,
			      &s, &size),
		      "dcmi_get_device_info(card %d, device %d, HCCS 3)", card,
		      dev);
	if (rc)
		return rc == DCMI_ERR_NOT_SUPPORTED ? 0 : rc;
	memset(&u, 0, sizeof(u));
	for (int p = 0; p < HCCS_MAX_PCS_NUM; p++) {
		u.tx_cnt[p] = s.tx_cnt[p];
		u.rx_cnt[p] = s.rx_cnt[p];
		u.crc_err_cnt[p] = s.crc_err_cnt[p];
		u.retry_cnt[p] = s.retry_cnt[p];
	}
	hccs_links(d, u.tx_cnt, u.rx_cnt, u.crc_err_cnt, u.retry_cnt);
	return 0;
}

/* Read one chip into d; stops at a device that is gone. */
static void dev_read(const struct dcmi_api *a, int card, int dev,
		     struct sn_vendor_dev *d)
{
	static const struct {
		const char *call;
		int (*fn)(const struct dcmi_api *, int, int,
			  struct sn_vendor_dev *);
	} steps[] = {
		{ "dcmi_get_device_health", dev_health },
		{ "dcmi_get_device_pcie_info_v2", dev_pcie },
		{ "dcmi_get_device_ecc_info", dev_ecc },
		{ "dcmi_get_device_network_health", dev_net },
		{ "dcmi_get_device_info(HCCS)", dev_hccs },
	};

	SN_VSET(d->label, "card %d chip %d", card, dev);
	for (size_t i = 0; i < sizeof(steps) / sizeof(steps[0]); i++) {
		int rc = steps[i].fn(a, card, dev, d);

		if (rc && dev_failed(d, steps[i].call, rc))
			return;
	}
}

/* ---- the node ------------------------------------------------------------ */

/* Whether device dev of card is an NPU chip (true when nobody says). */
static bool dev_is_npu(const struct dcmi_api *a, int card, int dev)
{
	int type = DCMI_NPU_TYPE;

	if (!a->type)
		return true;
	if (SN_VCALL(a->type(card, dev, &type),
		     "dcmi_get_device_type(card %d, device %d)", card, dev))
		return true; /* asked below, where a failure is reported */
	return type == DCMI_NPU_TYPE;
}

static void card_read(const struct dcmi_api *a, int card,
		      struct sn_vendor_node *out)
{
	struct sn_vendor_dev *d;
	int n = 0, rc;

	rc = SN_VCALL(a->num_in_card(card, &n),
		      "dcmi_get_device_num_in_card(card %d)", card);
	if (rc) {
		/* The card is listed: one device that could not be read. */
		out->count++;
		if (out->n_devs >= SN_VENDOR_MAX_DEVS)
			return;
		d = &out->devs[out->n_devs];
		d->index = out->n_devs++;
		SN_VSET(d->label, "card %d", card);
		SN_VSET(d->error, "dcmi_get_device_num_in_card: error %d (%s)",
			rc, dcmi_err_name(rc));
		return;
	}
	for (int dev = 0; dev < n; dev++) {
		int logic = -1;

		if (!dev_is_npu(a, card, dev))
			continue;
		out->count++;
		if (out->n_devs >= SN_VENDOR_MAX_DEVS)
			continue;
		d = &out->devs[out->n_devs];
		if (!a->logic_id ||
		    SN_VCALL(a->logic_id(&logic, card, dev),
			     "dcmi_get_device_logic_id(card %d, device %d)",
			     card, dev) ||
		    logic < 0)
			logic = (int)out->n_devs;
		d->index = (uint32_t)logic;
		out->n_devs++;
		dev_read(a, card, dev, d);
	}
}

static int ascend_read(void *dl, struct sn_vendor_node *out)
{
	int cards[DCMI_MAX_CARDS], n = 0, rc;
	char ver[DCMI_VERSION_LEN + 1] = "";
	struct dcmi_api a;

	if (dcmi_syms(dl, &a, out))
		return -1;
	rc = SN_VCALL_LONG(a.init(), "dcmi_init");
	if (rc) {
		SN_VSET(out->error, "dcmi_init: error %d (%s)", rc,
			dcmi_err_name(rc));
		return -1;
	}
	if (a.version &&
	    !SN_VCALL(a.version(ver, sizeof(ver)), "dcmi_get_dcmi_version"))
		SN_VSET(out->version, "%s", ver);
	rc = SN_VCALL(a.card_list(&n, cards, DCMI_MAX_CARDS), "%s",
		      a.card_list_name);
	if (rc || n < 0 || n > DCMI_MAX_CARDS) {
		SN_VSET(out->error, "%s: %s %d", a.card_list_name,
			rc ? "error" : "card count", rc ? rc : n);
		return -1;
	}
	out->counted = true;
	for (int i = 0; i < n; i++)
		if (cards[i] >= 0)
			card_read(&a, cards[i], out);
	return 0;
}

const struct sn_vendor_backend sn_vendor_ascend = { SN_ACCEL_ASCEND,
						    ascend_read };
