#!/bin/bash
# Capture real keepalived VRRP advertisements for tests/vipd-vectors.
#
#   sudo tests/vipd-vectors/capture.sh OUTDIR
#
# Two network namespaces joined by a veth pair: "ka" runs keepalived, "pe"
# only listens; tcpdump runs on pe's end. Addresses are 198.18.0.0/15 and
# 2001:db8::/32 only (IPv6 link-local generation is turned off, so the veths
# carry no fe80:: address either). Every scenario gets its own config, pid
# files and working directory under OUTDIR; keepalived and tcpdump are
# stopped by the PIDs this script started, and the namespaces are deleted on
# exit, even on failure. Writes OUTDIR/NAME.pcap and OUTDIR/NAME.log.
set -eu

out=${1:?usage: capture.sh OUTDIR}
mkdir -p "$out"
out=$(cd "$out" && pwd)
tag=vv$$
nska=$tag-ka
nspe=$tag-pe
kapid=
tdpid=

cleanup()
{
	set +e
	[ -n "$kapid" ] && kill "$kapid" 2>/dev/null && wait "$kapid" 2>/dev/null
	[ -n "$tdpid" ] && kill "$tdpid" 2>/dev/null && wait "$tdpid" 2>/dev/null
	ip netns del "$nska" 2>/dev/null
	ip netns del "$nspe" 2>/dev/null
}
trap cleanup EXIT INT TERM

ip netns add "$nska"
ip netns add "$nspe"
ip link add vvka netns "$nska" type veth peer name vvpe netns "$nspe"
for ns in "$nska" "$nspe"; do
	ip -n "$ns" link set lo up
done
ip -n "$nska" link set vvka addrgenmode none
ip -n "$nspe" link set vvpe addrgenmode none
ip -n "$nska" addr add 198.18.0.1/24 dev vvka
ip -n "$nspe" addr add 198.18.0.2/24 dev vvpe
ip -n "$nska" addr add 2001:db8::1/64 dev vvka nodad
ip -n "$nspe" addr add 2001:db8::2/64 dev vvpe nodad
ip -n "$nska" link set vvka up
ip -n "$nspe" link set vvpe up

# run NAME SECONDS: keepalived with OUTDIR/NAME.conf for SECONDS, captured
run()
{
	local name=$1 secs=$2 dir=$out/$1.run

	mkdir -p "$dir"
	ip netns exec "$nspe" tcpdump -i vvpe -n -U -w "$out/$name.pcap" \
		'ip proto 112 or ip6 proto 112' 2>"$dir/tcpdump.err" &
	tdpid=$!
	sleep 1
	date +%s.%N >"$dir/start"
	(cd "$dir" && exec ip netns exec "$nska" /usr/sbin/keepalived --vrrp -n -l -D \
		-f "$out/$name.conf" -p "$dir/keepalived.pid" -r "$dir/vrrp.pid" \
		-c "$dir/checkers.pid" -b "$dir/bfd.pid") >"$out/$name.log" 2>&1 &
	kapid=$!
	sleep "$secs"
	kill "$kapid"
	wait "$kapid" || true
	kapid=
	# the VRRP child should have gone with its parent; make sure
	if [ -s "$dir/vrrp.pid" ] && kill -0 "$(cat "$dir/vrrp.pid")" 2>/dev/null; then
		kill "$(cat "$dir/vrrp.pid")"
	fi
	sleep 1
	kill "$tdpid"
	wait "$tdpid" || true
	tdpid=
}

conf()
{
	cat >"$out/$1.conf"
}

# VRRPv2, simple password, two VIPs, multicast
conf v2_pass <<'EOF'
global_defs {
	vrrp_version 2
}
vrrp_instance v2_pass {
	state BACKUP
	interface vvka
	virtual_router_id 51
	priority 150
	advert_int 1
	authentication {
		auth_type PASS
		auth_pass secret
	}
	virtual_ipaddress {
		198.18.0.100/24
		198.18.0.101/24
	}
}
EOF

# VRRPv3 IPv4 multicast, 0.5 s adverts
conf v3_mcast4 <<'EOF'
global_defs {
	vrrp_version 3
}
vrrp_instance v3_mcast4 {
	state BACKUP
	interface vvka
	virtual_router_id 52
	priority 200
	advert_int 0.5
	virtual_ipaddress {
		198.18.0.102/24
	}
}
EOF

# VRRPv3 IPv4 unicast
conf v3_ucast4 <<'EOF'
global_defs {
	vrrp_version 3
}
vrrp_instance v3_ucast4 {
	state BACKUP
	interface vvka
	virtual_router_id 53
	priority 180
	advert_int 1
	unicast_src_ip 198.18.0.1
	unicast_peer {
		198.18.0.2
	}
	virtual_ipaddress {
		198.18.0.103/24
		198.18.0.104/24
	}
}
EOF

# VRRPv3 IPv4 unicast with keepalived's pre-1.3.6 checksum
conf v3_ucast4_old <<'EOF'
global_defs {
	vrrp_version 3
}
vrrp_instance v3_ucast4_old {
	state BACKUP
	interface vvka
	virtual_router_id 55
	priority 180
	advert_int 1
	unicast_src_ip 198.18.0.1
	old_unicast_checksum
	unicast_peer {
		198.18.0.2
	}
	virtual_ipaddress {
		198.18.0.105/24
	}
}
EOF

# VRRPv3 IPv6 multicast (source: the configured global address, there is
# no link-local address in this lab)
conf v3_mcast6 <<'EOF'
global_defs {
	vrrp_version 3
}
vrrp_instance v3_mcast6 {
	state BACKUP
	interface vvka
	virtual_router_id 54
	priority 220
	advert_int 1
	mcast_src_ip 2001:db8::1
	virtual_ipaddress {
		2001:db8::100/64
	}
}
EOF

# VRRPv3 IPv6 unicast
conf v3_ucast6 <<'EOF'
global_defs {
	vrrp_version 3
}
vrrp_instance v3_ucast6 {
	state BACKUP
	interface vvka
	virtual_router_id 56
	priority 220
	advert_int 1
	unicast_src_ip 2001:db8::1
	unicast_peer {
		2001:db8::2
	}
	virtual_ipaddress {
		2001:db8::101/64
	}
}
EOF

# Start-up timing: "state MASTER" below 255, "state BACKUP" at 255, and
# "state MASTER" at 255 (each alone on the link).
conf t_master100 <<'EOF'
global_defs {
	vrrp_version 3
}
vrrp_instance t_master100 {
	state MASTER
	interface vvka
	virtual_router_id 60
	priority 100
	advert_int 1
	virtual_ipaddress {
		198.18.0.110/24
	}
}
EOF
conf t_backup255 <<'EOF'
global_defs {
	vrrp_version 3
}
vrrp_instance t_backup255 {
	state BACKUP
	interface vvka
	virtual_router_id 61
	priority 255
	advert_int 1
	virtual_ipaddress {
		198.18.0.111/24
	}
}
EOF
conf t_master255 <<'EOF'
global_defs {
	vrrp_version 3
}
vrrp_instance t_master255 {
	state MASTER
	interface vvka
	virtual_router_id 62
	priority 255
	advert_int 1
	virtual_ipaddress {
		198.18.0.112/24
	}
}
EOF

for n in v2_pass v3_mcast4 v3_ucast4 v3_ucast4_old v3_mcast6 v3_ucast6; do
	run "$n" 6
done
for n in t_master100 t_backup255 t_master255; do
	run "$n" 6
done
echo "captures in $out"
