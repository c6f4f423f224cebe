#!/bin/bash
# Capture keepalived advertisements carrying the auth_hmac trailer (an
# HMAC-SHA256 trailer first released in keepalived 2.4.3) for
# tests/vipd-vectors/hmac.
#
#   sudo tests/vipd-vectors/capture_hmac.sh KEEPALIVED OUTDIR
#
# KEEPALIVED is a keepalived 2.4.3 (or later) binary built from its source;
# Debian 12's 2.2.7 has no auth_hmac. The lab is capture.sh's: two network
# namespaces joined by a veth pair, keepalived in "ka", tcpdump in "pe",
# addresses from 198.18.0.0/15 and 2001:db8::/32 only, no link-local
# addresses. keepalived and tcpdump are stopped by the PIDs this script
# started and the namespaces are deleted on exit, even on failure. Writes
# OUTDIR/NAME.pcap, OUTDIR/NAME.conf and OUTDIR/NAME.log.
set -eu

ka=${1:?usage: capture_hmac.sh KEEPALIVED OUTDIR}
out=${2:?usage: capture_hmac.sh KEEPALIVED OUTDIR}
mkdir -p "$out"
out=$(cd "$out" && pwd)
tag=vh$$
nska=$tag-ka
nspe=$tag-pe
kapid=
kadir=
tdpid=

# stop_ka DIR: stop the keepalived started in DIR, by the PIDs it wrote
# there (keepalived 2.4.3 leaves the process "ip netns exec" started)
stop_ka()
{
	local f pid i

	for f in keepalived.pid vrrp.pid; do
		[ -s "$1/$f" ] || continue
		pid=$(cat "$1/$f")
		kill "$pid" 2>/dev/null || continue
		for i in $(seq 50); do
			kill -0 "$pid" 2>/dev/null || break
			sleep 0.1
		done
	done
}

cleanup()
{
	set +e
	[ -n "$kadir" ] && stop_ka "$kadir"
	[ -n "$kapid" ] && kill "$kapid" 2>/dev/null && wait "$kapid" 2>/dev/null
	[ -n "$tdpid" ] && kill "$tdpid" 2>/dev/null && wait "$tdpid" 2>/dev/null
	ip netns del "$nska" 2>/dev/null
	ip netns del "$nspe" 2>/dev/null
}
trap cleanup EXIT INT TERM

ip netns add "$nska"
ip netns add "$nspe"
ip link add vhka netns "$nska" type veth peer name vhpe netns "$nspe"
for ns in "$nska" "$nspe"; do
	ip -n "$ns" link set lo up
done
ip -n "$nska" link set vhka addrgenmode none
ip -n "$nspe" link set vhpe addrgenmode none
ip -n "$nska" addr add 198.18.0.1/24 dev vhka
ip -n "$nspe" addr add 198.18.0.2/24 dev vhpe
ip -n "$nska" addr add 2001:db8::1/64 dev vhka nodad
ip -n "$nspe" addr add 2001:db8::2/64 dev vhpe nodad
ip -n "$nska" link set vhka up
ip -n "$nspe" link set vhpe up

# The key of hmac_v3_mcast6, read through "key 3 file:PATH"
printf 'hex:%s\n' 000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f >"$out/key3"
chmod 600 "$out/key3"

# run NAME SECONDS: keepalived with OUTDIR/NAME.conf for SECONDS, captured
run()
{
	local name=$1 secs=$2 dir=$out/$1.run

	mkdir -p "$dir"
	ip netns exec "$nspe" tcpdump -i vhpe -n -U -w "$out/$name.pcap" \
		'ip proto 112 or ip6 proto 112' 2>"$dir/tcpdump.err" &
	tdpid=$!
	sleep 1
	(cd "$dir" && exec ip netns exec "$nska" "$ka" --vrrp -n -l -D \
		-f "$out/$name.conf" -p "$dir/keepalived.pid" -r "$dir/vrrp.pid") \
		>"$out/$name.log" 2>&1 &
	kapid=$!
	kadir=$dir
	sleep "$secs"
	stop_ka "$dir"
	kill "$kapid" 2>/dev/null || true
	wait "$kapid" || true
	kapid=
	kadir=
	sleep 1
	kill "$tdpid"
	wait "$tdpid" || true
	tdpid=
}

# conf NAME VERSION BODY: a one-instance configuration
conf()
{
	{
		printf 'global_defs {\n\tvrrp_version %s\n}\n' "$2"
		printf 'vrrp_instance %s {\n\tstate MASTER\n\tinterface vhka\n' "$1"
		cat
		printf '}\n'
	} >"$out/$1.conf"
}

# VRRPv3 IPv4 multicast, an ASCII key, mode enforce (the default)
conf hmac_v3_mcast4 3 <<'EOF'
	virtual_router_id 71
	priority 255
	advert_int 1
	auth_hmac {
		key 1 vipd-test-key-0123456789abcdefgh
		active_key 1
	}
	virtual_ipaddress {
		198.18.0.120/24
		198.18.0.121/24
	}
EOF

# VRRPv3 IPv4 unicast, a 48-byte hex key, permissive, monotonic anti-replay
conf hmac_v3_ucast4 3 <<'EOF'
	virtual_router_id 72
	priority 255
	advert_int 1
	unicast_src_ip 198.18.0.1
	unicast_peer {
		198.18.0.2
	}
	auth_hmac {
		key 7 hex:404142434445464748494a4b4c4d4e4f505152535455565758595a5b5c5d5e5f606162636465666768696a6b6c6d6e6f
		active_key 7
		mode permissive
		anti_replay monotonic
	}
	virtual_ipaddress {
		198.18.0.122/24
	}
EOF

# VRRPv3 IPv6 multicast, the key from a file, time_window 30
conf hmac_v3_mcast6 3 <<EOF
	virtual_router_id 73
	priority 255
	advert_int 1
	mcast_src_ip 2001:db8::1
	auth_hmac {
		key 3 file:$out/key3
		active_key 3
		time_window 30
	}
	virtual_ipaddress {
		2001:db8::120/64
	}
EOF

# VRRPv3 IPv6 unicast
conf hmac_v3_ucast6 3 <<'EOF'
	virtual_router_id 74
	priority 255
	advert_int 1
	unicast_src_ip 2001:db8::1
	unicast_peer {
		2001:db8::2
	}
	auth_hmac {
		key 9 vipd-test-key-ipv6-unicast-0123456789
		active_key 9
	}
	virtual_ipaddress {
		2001:db8::121/64
	}
EOF

# VRRPv2 IPv4 multicast
conf hmac_v2_mcast4 2 <<'EOF'
	virtual_router_id 75
	priority 255
	advert_int 1
	auth_hmac {
		key 1 vipd-test-key-0123456789abcdefgh
		active_key 1
	}
	virtual_ipaddress {
		198.18.0.123/24
	}
EOF

# Key rotation: two keys, the second one signs
conf hmac_rotate 3 <<'EOF'
	virtual_router_id 76
	priority 255
	advert_int 1
	auth_hmac {
		key 1 vipd-test-key-0123456789abcdefgh
		key 2 vipd-test-key-rotated-9876543210zyxw
		active_key 2
	}
	virtual_ipaddress {
		198.18.0.124/24
	}
EOF

# receive-only: verifies what it gets, signs nothing
conf hmac_receive_only 3 <<'EOF'
	virtual_router_id 77
	priority 255
	advert_int 1
	auth_hmac {
		key 1 vipd-test-key-0123456789abcdefgh
		active_key 1
		mode receive-only
	}
	virtual_ipaddress {
		198.18.0.125/24
	}
EOF

for n in hmac_v3_mcast4 hmac_v3_ucast4 hmac_v3_mcast6 hmac_v3_ucast6 hmac_v2_mcast4 \
	hmac_rotate hmac_receive_only; do
	ip netns exec "$nska" "$ka" -t -f "$out/$n.conf" >"$out/$n.check" 2>&1 || {
		echo "$n: keepalived -t refused it:" >&2
		cat "$out/$n.check" >&2
		exit 1
	}
	run "$n" 4
done
echo "captures in $out"
