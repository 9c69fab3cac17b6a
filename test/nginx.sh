# shellcheck shell=bash
# SPDX-License-Identifier: Apache-2.0
# Debian's nginx serving files over TLS in a guest, and where the records went, for
# test/guest/tls_matrix, test/guest/ktls and bench/tls-file-speed (sourced by each; the functions
# use nothing of theirs).
#
# nginx_files WORK                 a self-signed RSA-2048 certificate for localhost (WORK/cert.pem,
#                                  WORK/key.pem), WORK/www for the files, WORK/tmp for nginx
# hwoffload_cnf FILE [LINE...]     the README's openssl.cnf (the installed example) with the build
#                                  tree's provider and each LINE in [hwoffload_sect]
# nginx_conf WORK NAME PORT [LINE...]
#                                  WORK/NAME.conf: one worker serving WORK/www on 127.0.0.1:PORT,
#                                  TLS 1.2 and 1.3, every suite, each LINE in its http block; the
#                                  log (level info) in WORK/NAME.log
# nginx_start WORK NAME [VAR=VALUE...]
#                                  starts it, OPENSSL_CONF unset unless a VAR sets it, and waits
#                                  for its worker: sets nginx_pid and nginx_worker, or says why
#                                  not and returns 1
# nginx_stop PID                   stops that nginx (after 10 s, kills it)
# gcm_counts STATS                 "requests bytes software" of gcm(aes) in the driver's debugfs
#                                  STATS: the engine's PIO and DMA requests and bytes, and the
#                                  auto driver's software tier's requests
# tls_stat NAME                    a count of the kernel's TLS (/proc/net/tls_stat: TlsTxSw ...)

nginx_files() { # WORK
	openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj /CN=localhost \
		-addext subjectAltName=DNS:localhost -keyout "$1/key.pem" -out "$1/cert.pem" \
		2>/dev/null && mkdir -p "$1/www" "$1/tmp"
}

hwoffload_cnf() { # FILE [LINE...]
	local file=$1 add line
	shift
	add="\nmodule = ${HWOFFLOAD_PROVIDER_DIR:-$PWD/provider/.libs}/hwoffload.so"
	for line; do
		add+="\n$line"
	done
	sed "s|^\[hwoffload_sect\]\$|&$add|" \
		"$(dirname "${BASH_SOURCE[0]}")/../provider/openssl.cnf.example" >"$file"
}

nginx_conf() { # WORK NAME PORT [LINE...]
	local work=$1 name=$2 port=$3 extra='' line
	shift 3
	for line; do
		extra+="	$line"$'\n'
	done
	cat >"$work/$name.conf" <<EOF
daemon off;
master_process on;
worker_processes 1;
user root;
pid $work/$name.pid;
error_log $work/$name.log info;
events { worker_connections 64; }
http {
	access_log off;
	client_body_temp_path $work/tmp/body;
	proxy_temp_path $work/tmp/proxy;
	fastcgi_temp_path $work/tmp/fastcgi;
	uwsgi_temp_path $work/tmp/uwsgi;
	scgi_temp_path $work/tmp/scgi;
${extra}	server {
		listen 127.0.0.1:$port ssl;
		ssl_certificate $work/cert.pem;
		ssl_certificate_key $work/key.pem;
		ssl_protocols TLSv1.2 TLSv1.3;
		ssl_ciphers ALL;
		root $work/www;
	}
}
EOF
}

nginx_start() { # WORK NAME [VAR=VALUE...]
	local work=$1 name=$2
	shift 2
	: >"$work/$name.log"
	env -u OPENSSL_CONF "$@" nginx -p "$work" -c "$work/$name.conf" -e "$work/$name.log" \
		2>>"$work/$name.log" &
	nginx_pid=$!
	for _ in $(seq 300); do
		grep -q "start worker process" "$work/$name.log" && break
		kill -0 "$nginx_pid" 2>/dev/null || break
		sleep 0.1
	done
	nginx_worker=$(sed -n 's/.*start worker process \([0-9]*\).*/\1/p' "$work/$name.log" |
		head -n 1)
	[ -n "$nginx_worker" ] && return 0
	echo "nginx ($name) did not start: $(head -c 2000 "$work/$name.log")"
	nginx_stop "$nginx_pid"
	nginx_pid=
	return 1
}

nginx_stop() { # PID
	[ -n "$1" ] || return 0
	kill -QUIT "$1" 2>/dev/null
	for _ in $(seq 100); do
		kill -0 "$1" 2>/dev/null || break
		sleep 0.1
	done
	kill -KILL "$1" 2>/dev/null
	wait "$1" 2>/dev/null
}

gcm_counts() { # STATS
	awk '/^gcm_(pio|dma)_requests:/ { r += $2 } /^gcm_(pio|dma)_bytes:/ { b += $2 }
		/^gcm_auto_software:/ { s = $2 } END { printf "%.0f %.0f %.0f\n", r, b, s }' "$1"
}

tls_stat() { # NAME
	awk -v name="$1" '$1 == name { print $2 }' /proc/net/tls_stat
}
