#!/usr/bin/env bash
# A throw-away S3 server for tests and benchmarks: Ceph's RADOS Gateway from
# Debian's packages, as a one-machine cluster on 127.0.0.1 (one monitor, one OSD
# keeping objects in memory, radosgw), everything under one folder.
#
#   scripts/rgw.sh start DIR [PORT]   prints the environment to use (also in DIR/env):
#                                     AWS_ENDPOINT_URL, AWS_ACCESS_KEY_ID,
#                                     AWS_SECRET_ACCESS_KEY, AWS_REGION
#                                     and, for HTTPS with a private CA, AWS_ENDPOINT_URL_HTTPS
#                                     and RGW_CA_BUNDLE (a throw-away CA that signed its certificate)
#   scripts/rgw.sh user DIR UID       adds an S3 user; prints its AWS_ACCESS_KEY_ID and
#                                     AWS_SECRET_ACCESS_KEY (for tests of bucket policies)
#   scripts/rgw.sh stop DIR           stops what `start DIR` started, removes DIR
#
# PORT defaults to a free one. Needs root and `apt-get install ceph ceph-mon ceph-osd
# radosgw` (scripts/test.sh installs them). Ready in about 3 s.
#
# Settings that matter here (measured, ../shared/notes/object-storage.md): radosgw's
# client must use `crc` mode with auth off (its default, `secure`, never connects);
# beast needs tcp_nodelay (44 ms GETs without); lifecycle threads off (5 s exit);
# `stop` kills the daemons: the cluster goes with its folder.
set -euo pipefail

free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

# Descriptors this script inherited beyond stdin/stdout/stderr are closed first, so
# the daemons do not inherit them: a parent that learns of this script's exit when
# a descriptor closes (Foundation's Process does, through a socket pair) would
# otherwise wait for the daemons instead.
close_inherited() {
    local fd
    for fd in /proc/$$/fd/*; do
        fd=${fd##*/}
        [ "$fd" -gt 2 ] 2>/dev/null && eval "exec $fd>&-" 2>/dev/null || true
    done
}

start() {
    close_inherited
    local dir=$1 port=${2:-$(free_port)}
    local key=TWEETCACHETESTKEY001 secret=tweetcache-test-secret-0000000000000001
    [ -z "$(ls -A "$dir" 2>/dev/null)" ] || { echo "rgw.sh: $dir is not empty" >&2; return 1; }
    mkdir -p "$dir"/{mon,osd,rgw,log,run}
    dir=$(cd "$dir" && pwd)
    local conf=$dir/ceph.conf mon_port fsid tls_port
    mon_port=$(free_port)
    tls_port=$(free_port)
    # A CA of its own and a certificate for 127.0.0.1 signed by it: HTTPS as a private store has it.
    mkdir -p "$dir/tls"
    openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj "/CN=TweetCache test CA" \
        -keyout "$dir/tls/ca.key" -out "$dir/tls/ca.pem" > /dev/null 2>&1
    openssl req -newkey rsa:2048 -nodes -subj "/CN=127.0.0.1" \
        -keyout "$dir/tls/server.key" -out "$dir/tls/server.csr" > /dev/null 2>&1
    printf 'subjectAltName=IP:127.0.0.1,DNS:localhost\n' > "$dir/tls/san.ext"
    openssl x509 -req -in "$dir/tls/server.csr" -CA "$dir/tls/ca.pem" -CAkey "$dir/tls/ca.key" -CAcreateserial \
        -days 2 -extfile "$dir/tls/san.ext" -out "$dir/tls/server.pem" > /dev/null 2>&1
    fsid=$(cat /proc/sys/kernel/random/uuid)
    export CEPH_CONF=$conf
    cat > "$conf" <<CONF
[global]
fsid = $fsid
mon host = v2:127.0.0.1:$mon_port
public addr = 127.0.0.1
public network = 127.0.0.1/32
ms bind msgr1 = false
ms bind ipv6 = false
auth cluster required = none
auth service required = none
auth client required = none
run dir = $dir/run
admin socket = $dir/run/\$name.asok
log file = $dir/log/\$name.log
log to stderr = false
crash dir = $dir/crash
osd pool default size = 1
osd pool default min size = 1
osd pool default pg num = 8
osd pool default pgp num = 8
osd pool default pg autoscale mode = off
mon allow pool size one = true
mon warn on pool no redundancy = false
mon max pg per osd = 1000
osd crush chooseleaf type = 0
paxos propose interval = 0.1
[mon]
mon data = $dir/mon
[osd]
osd data = $dir/osd
osd objectstore = memstore
memstore device bytes = ${RGW_MEMORY_BYTES:-8589934592}
[client]
ms mon client mode = crc
rgw data = $dir/rgw
rgw frontends = beast endpoint=127.0.0.1:$port ssl_endpoint=127.0.0.1:$tls_port ssl_certificate=$dir/tls/server.pem ssl_private_key=$dir/tls/server.key tcp_nodelay=1
rgw thread pool size = 64
rgw enable usage log = false
rgw enable lc threads = false
CONF
    daemon() { # NAME COMMAND...: in the foreground (-f), detached; its pid kept for stop
        local name=$1; shift
        setsid "$@" -f >> "$dir/log/$name.out" 2>&1 < /dev/null &
        echo $! > "$dir/run/$name.pid"
    }
    until_ok() { # WHAT COMMAND...
        local what=$1; shift
        for _ in $(seq 600); do "$@" > /dev/null 2>&1 && return 0; sleep 0.1; done
        echo "rgw.sh: $what did not come up; see $dir/log" >&2
        return 1
    }
    monmaptool --create --clobber --fsid "$fsid" --addv a "[v2:127.0.0.1:$mon_port]" "$dir/monmap" > /dev/null
    ceph-mon --mkfs -i a --monmap "$dir/monmap" > "$dir/log/mkfs-mon.out" 2>&1
    daemon 1-mon ceph-mon -i a
    until_ok "the monitor" ceph --connect-timeout 5 mon stat
    local uuid id
    uuid=$(cat /proc/sys/kernel/random/uuid)
    id=$(ceph osd new "$uuid")
    ceph-osd -i "$id" --mkfs --osd-uuid "$uuid" > "$dir/log/mkfs-osd.out" 2>&1
    daemon 2-osd ceph-osd -i "$id"
    until_ok "the OSD" sh -c 'ceph osd stat | grep -q " 1 up"'
    daemon 3-rgw radosgw -n client.rgw
    until_ok "radosgw" curl -sf -o /dev/null "http://127.0.0.1:$port/"
    radosgw-admin user create --uid=tweetcache --display-name=TweetCache \
        --access-key="$key" --secret-key="$secret" > "$dir/log/user.json"
    cat > "$dir/env" <<ENV
AWS_ENDPOINT_URL=http://127.0.0.1:$port
AWS_ACCESS_KEY_ID=$key
AWS_SECRET_ACCESS_KEY=$secret
AWS_REGION=us-east-1
AWS_ENDPOINT_URL_HTTPS=https://127.0.0.1:$tls_port
RGW_CA_BUNDLE=$dir/tls/ca.pem
ENV
    cat "$dir/env"
}

user() {
    local dir=$1 uid=$2
    [ -f "$dir/ceph.conf" ] || { echo "rgw.sh: $dir was not made by rgw.sh start" >&2; return 1; }
    local key secret
    key=$(python3 -c 'import secrets; print("TC" + secrets.token_hex(9).upper())')
    secret=$(python3 -c 'import secrets; print(secrets.token_hex(20))')
    CEPH_CONF=$dir/ceph.conf radosgw-admin user create --uid="$uid" --display-name="$uid" \
        --access-key="$key" --secret-key="$secret" > "$dir/log/user-$uid.json"
    printf 'AWS_ACCESS_KEY_ID=%s\nAWS_SECRET_ACCESS_KEY=%s\n' "$key" "$secret"
}

stop() {
    local dir=$1
    [ -f "$dir/ceph.conf" ] || { echo "rgw.sh: $dir was not made by rgw.sh start" >&2; return 1; }
    # Newest first: radosgw, then the OSD, then the monitor. Killed, not asked to stop:
    # the cluster goes with its folder, and a graceful stop took 5.6 s at every suite's end.
    for pidfile in $(ls -r "$dir"/run/*.pid 2>/dev/null); do
        local pid state
        pid=$(cat "$pidfile")
        grep -qF "$dir" "/proc/$pid/environ" 2>/dev/null || grep -qa ceph "/proc/$pid/cmdline" 2>/dev/null || continue
        kill -KILL "$pid" 2>/dev/null || continue
        # Gone, or a zombie (its files and ports already let go) that its parent reaps.
        for _ in $(seq 100); do
            state=$(cut -d' ' -f3 "/proc/$pid/stat" 2>/dev/null) || break
            [ "$state" != Z ] || break
            sleep 0.01
        done
    done
    rm -rf -- "$dir"
}

case "${1:-}" in
    start) shift; start "$@" ;;
    stop) shift; stop "$@" ;;
    user) shift; user "$@" ;;
    *) echo "usage: $0 start DIR [PORT] | user DIR UID | stop DIR" >&2; exit 2 ;;
esac
