# shellcheck shell=bash
# Build per-node fake sysfs trees (the hardware edge we do not have here):
# the same files and formats the kernel writes under
# /sys/class/infiniband/<dev>/ports/<n>/ (drivers/infiniband/core/sysfs.c).
# The unit tests' builder, tests/unit/helpers/fake_sysfs.{c,h}, lays out the
# same port files (its ib_port_files); change both together.

# ib_port ROOT DEV PORT STATE PHYS RATE [LINK_LAYER]
#   ib_port "$d/sys" mlx5_0 1 "4: ACTIVE" "5: LinkUp" "400 Gb/sec (4X NDR)"
ib_port() {
	local root=$1 dev=$2 port=$3 p
	p=$root/class/infiniband/$dev/ports/$port
	mkdir -p "$p/counters" "$p/hw_counters"
	printf '%s\n' "$4" >"$p/state"
	printf '%s\n' "$5" >"$p/phys_state"
	printf '%s\n' "$6" >"$p/rate"
	printf '%s\n' "${7:-InfiniBand}" >"$p/link_layer"
	local c
	for c in symbol_error link_error_recovery link_downed port_rcv_errors \
		port_rcv_remote_physical_errors port_rcv_switch_relay_errors \
		port_xmit_discards port_xmit_constraint_errors \
		port_rcv_constraint_errors local_link_integrity_errors \
		excessive_buffer_overrun_errors VL15_dropped port_xmit_wait \
		port_xmit_data port_rcv_data port_xmit_packets port_rcv_packets; do
		echo 0 >"$p/counters/$c"
	done
}

# ib_counter ROOT DEV PORT NAME VALUE: set one counter.
ib_counter() {
	printf '%s\n' "$5" >"$1/class/infiniband/$2/ports/$3/counters/$4"
}
