#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# The guest harness's own test: it must pass a clean command through with its status, output and
# arguments intact, fail on every kind of kernel-log problem and on a timeout, boot once more
# after a panic at boot (only then) and print its time limit; attach virtio-crypto with its
# expected RSA self-test failure alone forgiven, and take a suite's options from its file or from
# a program's C source. Each case boots a guest (qemu64: no AES-NI modules to load, the fastest
# boot); as many at once as there are CPUs.
set -u
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
if [ -n "${HWOFFLOAD_GUEST_KERNELS+set}" ] && [ -z "${HWOFFLOAD_GUEST_KERNELS// /}" ]; then
	echo "SKIP: HWOFFLOAD_GUEST_KERNELS is empty, no guest kernel to boot"
	exit 77
fi
results=$(mktemp -d)
tmp_tree=$(mktemp -d /tmp/hwoffload-selftest.XXXXXX)
trap 'rm -rf "$results" "$tmp_tree" selftest-guest-wrote.tmp selftest-suite-options*.tmp*' EXIT
cases=0

# expect NAME WANT_STATUS GREP_PATTERN HARNESS_ARGS...: the run's exit status and a line of its
# output or of its stderr (kept apart: the harness's last line must not join an unfinished one);
# in_dir=DIR runs the harness from DIR instead of here; absent=PATTERN: no line may match it.
expect() {
	local name=$1 want=$2 pattern=$3 n=$((++cases))
	shift 3
	while [ "$(jobs -rp | wc -l)" -ge "$(nproc)" ]; do
		wait -n
	done
	(
		out=("$results/$n.out" "$results/$n.err")
		(cd "${in_dir:-.}" && "$here/run" --cpu qemu64 "$@") >"${out[0]}" 2>"${out[1]}"
		status=$?
		if [ "$status" = "$want" ] && grep -Eq -- "$pattern" "${out[@]}" &&
			{ [ -z "${absent:-}" ] || ! grep -Eq -- "$absent" "${out[@]}"; }; then
			echo "PASS: $name" >"$results/$n.result"
		else
			{
				echo "FAIL: $name: exit $status (want $want), output" \
					"(want /$pattern/${absent:+, not /$absent/}):"
				sed 's/^/    /' "${out[@]}"
			} >"$results/$n.result"
		fi
	) &
}

expect "status and output pass through" 3 '^guest says hi$' -- sh -c 'echo guest says hi; exit 3'
expect "the time limit and the host's slowdown are printed" 0 \
	'[0-9]+ s, of which [0-9]+ s waiting for a host CPU.*time limit 900 s' --timeout 900 -- true
expect "arguments keep their quoting" 0 "^\[a b\]\[c'd\]\[\\\$HOME\]\[\]$" -- \
	printf '[%s]' 'a b' "c'd" '$HOME' ''
rm -f selftest-guest-wrote.tmp
expect "runs in the build tree, which it can write" 0 "^$PWD$" -- \
	sh -c 'pwd; echo from-guest >selftest-guest-wrote.tmp'
in_dir=$tmp_tree expect "a tree under /tmp stays visible" 0 "^$tmp_tree$" -- pwd
expect "taint lines of an out-of-tree module are no failure" 0 '^logged$' -- sh -c \
	"echo 'hwoffload: loading out-of-tree module taints kernel.' >/dev/kmsg &&
	 echo 'hwoffload: module verification failed: signature and/or required key missing - tainting kernel' >/dev/kmsg &&
	 echo logged"

for line in 'WARNING: CPU: 0 PID: 1 at test' \
	'BUG: kernel NULL pointer dereference, address: 0000000000000000' \
	'Oops: 0002 [#1] PREEMPT SMP NOPTI' \
	'Kernel panic - not syncing: test' \
	'alg: skcipher: cbc-aes-hwoffload encryption test failed (wrong result) on test vector 0'; do
	expect "kernel log line fails the run: $line" 99 "logged a problem" -- sh -c "echo '$line' >/dev/kmsg"
done
expect "a failing command keeps its status when the kernel log is bad too" 5 "logged a problem" -- \
	sh -c "echo 'WARNING: CPU: 1 PID: 7 at test' >/dev/kmsg; exit 5"
absent='once more' expect "a real kernel crash fails the run, with no second boot" 99 \
	"without reporting|logged a problem" -- \
	sh -c 'echo 1 >/proc/sys/kernel/sysrq; echo c >/proc/sysrq-trigger'
# No init to run and no root to mount: the kernel panics while booting, both times.
expect "a panic at boot boots once more, then fails" 99 "panicked while booting.*once more" \
	--append rdinit=/none -- true
# Another vendor's engine: virtio-crypto's RSA self-test failure (every boot with the device) is
# no failure with --qemu-virtio-crypto, and only that one; the device attached by hand leaves it
# fatal. A suite's file names the options it needs.
virtio_selftest='grep -A 6 "^driver *: virtio_crypto_aes_cbc$" /proc/crypto | grep "^selftest"'
absent='logged a problem' expect "--qemu-virtio-crypto: the device's RSA self-test failure is no failure" \
	0 '^selftest +: passed$' --qemu-virtio-crypto -- sh -c "$virtio_selftest"
for line in 'alg: self-tests for cbc(aes) using virtio_crypto_aes_cbc failed (rc=-22)' \
	'alg: self-tests for rsa using virtio-crypto-rsa failed (rc=-5)'; do
	expect "--qemu-virtio-crypto: another self-test failure fails the run: $line" 99 \
		"logged a problem" --qemu-virtio-crypto -- sh -c "echo '$line' >/dev/kmsg"
done
expect "virtio-crypto attached by --qemu: its RSA self-test failure fails the run" 99 \
	'virtio-crypto-rsa failed' --qemu -object --qemu cryptodev-backend-builtin,id=c0 \
	--qemu -device --qemu virtio-crypto-pci,cryptodev=c0 -- modprobe virtio_crypto
printf '#!/bin/sh\n# test/vm/run: --qemu-virtio-crypto\n%s\n' "$virtio_selftest" \
	>selftest-suite-options.tmp
chmod +x selftest-suite-options.tmp
absent='logged a problem' expect "a suite's line '# test/vm/run: OPTION...' gives it those options" \
	0 '^selftest +: passed$' -- ./selftest-suite-options.tmp
printf '#!/bin/sh\nnproc\n' >selftest-suite-options-c.tmp
chmod +x selftest-suite-options-c.tmp
printf '/*\n * test/vm/run: --vcpus 2\n */\n' >selftest-suite-options-c.tmp.c
HWOFFLOAD_VM_VCPUS=1 expect "a program's C source's line ' * test/vm/run: OPTION...' gives them" \
	0 '^2$' -- ./selftest-suite-options-c.tmp
expect "the time limit kills QEMU" 124 "timed out after 15 s of running time" --timeout 15 -- sleep 600
expect "an unknown kernel line is refused" 2 "no kernel 5.4" --kernel 5.4 -- true

wait
cat "$results"/{1..99}.result 2>/dev/null
passed=$(cat "$results"/*.result | grep -c '^PASS')
failed=$((cases - passed))
if [ "$(cat selftest-guest-wrote.tmp 2>/dev/null)" = from-guest ]; then
	echo "PASS: the host sees what the guest wrote"
	passed=$((passed + 1))
else
	echo "FAIL: the host does not see selftest-guest-wrote.tmp written by the guest"
	failed=$((failed + 1))
fi
skipped=$(HWOFFLOAD_GUEST_KERNELS=' ' "$here/../run-test" test/guest/none)
if [ $? -eq 77 ] && [ "$skipped" = \
	"SKIP: test/guest/none: HWOFFLOAD_GUEST_KERNELS is empty, no guest kernel to run it on" ]; then
	echo "PASS: an empty HWOFFLOAD_GUEST_KERNELS skips the guest suites"
	passed=$((passed + 1))
else
	echo "FAIL: an empty HWOFFLOAD_GUEST_KERNELS does not skip test/guest/none"
	failed=$((failed + 1))
fi
echo "harness selftest: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
