#!/usr/bin/env bash
# The network the connection-setup tests need and loopback cannot give: a test host in a network namespace of its
# own, reached over a veth pair by IPv4 and IPv6, a real DNS server (dnsmasq) answering A and AAAA for a test name
# with a TTL and logging every query, an HTTP server on both families, and firewall rules that silently drop one
# family. Only the addresses below, inside the namespace this script makes, are ever used: 198.18.48.0/24 (RFC 2544,
# reserved for such tests) and fd48:5248::/64 (a unique local IPv6 prefix).
#
# Usage (as root):
#   eval "$(bash Scripts/netns-test-env.sh start)"   # makes it and prints the REQUESTKIT_NETNS_* variables
#   bash Scripts/netns-test-env.sh drop ipv6|ipv4|both|none   # which family's TCP the test host silently drops
#   bash Scripts/netns-test-env.sh stop
#   bash Scripts/netns-test-env.sh check             # exits 0 when it runs and answers
#
# The test host: namespace rk-testhost, 198.18.48.2 and fd48:5248::2; this side (the root namespace): veth rk-veth0,
# 198.18.48.1 and fd48:5248::1. dnsmasq on the test host answers dual.requestkit.test (A and AAAA),
# v4.requestkit.test (A only) and v6.requestkit.test (AAAA only), TTL 60, and refuses every other name; its query
# log is $REQUESTKIT_NETNS_DNS_LOG. The HTTP server (python3 -m http.server) listens on port 8080 of both addresses.
set -euo pipefail

namespace=rk-testhost
here_interface=rk-veth0
there_interface=rk-veth1
here4=198.18.48.1
there4=198.18.48.2
here6=fd48:5248::1
there6=fd48:5248::2
state=/run/requestkit-netns
http_port=8080

fail() {
    echo "netns-test-env: $*" >&2
    exit 1
}

require() {
    [ "$(id -u)" = 0 ] || fail "needs root (network namespaces, veth pairs and firewall rules)"
    command -v ip >/dev/null || fail "needs ip: apt-get install iproute2"
    command -v dnsmasq >/dev/null || fail "needs dnsmasq: apt-get install dnsmasq-base"
    command -v iptables >/dev/null && command -v ip6tables >/dev/null || fail "needs iptables: apt-get install iptables"
}

in_host() { ip netns exec "$namespace" "$@"; }

stop() {
    for pid_file in "$state"/*.pid; do
        [ -f "$pid_file" ] && kill "$(cat "$pid_file")" 2>/dev/null || true
    done
    ip netns del "$namespace" 2>/dev/null || true
    ip link del "$here_interface" 2>/dev/null || true
    rm -rf "$state"
}

start() {
    require
    stop
    mkdir -p "$state"
    ip netns add "$namespace"
    ip link add "$here_interface" type veth peer name "$there_interface"
    ip link set "$there_interface" netns "$namespace"
    ip addr add "$here4/24" dev "$here_interface"
    ip -6 addr add "$here6/64" dev "$here_interface" nodad
    ip link set "$here_interface" up
    in_host ip link set lo up
    in_host ip addr add "$there4/24" dev "$there_interface"
    in_host ip -6 addr add "$there6/64" dev "$there_interface" nodad
    in_host ip link set "$there_interface" up

    in_host dnsmasq --keep-in-foreground --no-resolv --no-hosts --no-poll --bind-interfaces \
        --listen-address="$there4" --listen-address="$there6" --except-interface=lo --port=53 \
        --host-record="dual.requestkit.test,$there4,$there6" --host-record="v4.requestkit.test,$there4" \
        --host-record="v6.requestkit.test,$there6" --local-ttl=60 --auth-ttl=60 --local=/requestkit.test/ \
        --log-queries --log-facility="$state/dns.log" --pid-file="$state/dnsmasq-own.pid" \
        --user=root >/dev/null 2>&1 &
    echo $! >"$state/dnsmasq.pid"
    (cd "$state" && exec ip netns exec "$namespace" python3 -m http.server "$http_port" --bind :: \
        >"$state/http.log" 2>&1) &
    echo $! >"$state/http.pid"

    for _ in $(seq 100); do
        if check >/dev/null 2>&1; then break; fi
        sleep 0.1
    done
    check || fail "started, but the test host does not answer (see $state)"
    echo "export REQUESTKIT_NETNS=$namespace"
    echo "export REQUESTKIT_NETNS_DNS=$there4:53"
    echo "export REQUESTKIT_NETNS_DNS_LOG=$state/dns.log"
    echo "export REQUESTKIT_NETNS_HOST4=$there4"
    echo "export REQUESTKIT_NETNS_HOST6=$there6"
    echo "export REQUESTKIT_NETNS_HTTP_PORT=$http_port"
}

# Drops the test host's incoming TCP of one family without answering (as a broken path does); DNS stays.
drop() {
    require
    in_host iptables -F INPUT
    in_host ip6tables -F INPUT
    case "$1" in
        ipv4) in_host iptables -A INPUT -p tcp -j DROP ;;
        ipv6) in_host ip6tables -A INPUT -p tcp -j DROP ;;
        both)
            in_host iptables -A INPUT -p tcp -j DROP
            in_host ip6tables -A INPUT -p tcp -j DROP
            ;;
        none) ;;
        *) fail "drop ipv6|ipv4|both|none" ;;
    esac
}

# Whether the test host is up: the namespace exists and its HTTP server answers over both families.
check() {
    ip netns list | grep -qw "$namespace" || fail "no namespace $namespace"
    python3 - "$there4" "$there6" "$http_port" <<'EOF'
import socket, sys
for family, host in ((socket.AF_INET, sys.argv[1]), (socket.AF_INET6, sys.argv[2])):
    with socket.socket(family, socket.SOCK_STREAM) as connection:
        connection.settimeout(2)
        connection.connect((host, int(sys.argv[3])))
EOF
}

case "${1:-}" in
    start) start ;;
    stop) stop ;;
    drop) drop "${2:-}" ;;
    check) check ;;
    *) fail "usage: $0 start|stop|drop ipv6|ipv4|both|none|check" ;;
esac
