#!/bin/bash
# The guest harness's own test: it must pass a clean command through with its status, output and
# arguments intact, and fail on every kind of kernel-log problem and on a timeout. Each case boots
# a guest (qemu64: no AES-NI modules to load, the fastest boot).
set -u
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
passed=0
failed=0
out=$(mktemp)
trap 'rm -f "$out" selftest-guest-wrote.tmp' EXIT

vm() {
	"$here/run" --cpu qemu64 "$@" >"$out" 2>&1
}

# expect NAME WANT_STATUS GREP_PATTERN HARNESS_ARGS...: the run's exit status and a line of output.
expect() {
	local name=$1 want=$2 pattern=$3 status
	shift 3
	vm "$@"
	status=$?
	if [ "$status" = "$want" ] && grep -Eq -- "$pattern" "$out"; then
		echo "PASS: $name"
		passed=$((passed + 1))
	else
		echo "FAIL: $name: exit $status (want $want), output (want /$pattern/):"
		sed 's/^/    /' "$out"
		failed=$((failed + 1))
	fi
}

expect "status and output pass through" 3 '^guest says hi$' -- sh -c 'echo guest says hi; exit 3'
expect "arguments keep their quoting" 0 "^\[a b\]\[c'd\]\[\\\$HOME\]\[\]$" -- \
	printf '[%s]' 'a b' "c'd" '$HOME' ''
rm -f selftest-guest-wrote.tmp
expect "runs in the build tree, which it can write" 0 "^$PWD$" -- \
	sh -c 'pwd; echo from-guest >selftest-guest-wrote.tmp'
if [ "$(cat selftest-guest-wrote.tmp 2>/dev/null)" = from-guest ]; then
	echo "PASS: the host sees what the guest wrote"
	passed=$((passed + 1))
else
	echo "FAIL: the host does not see selftest-guest-wrote.tmp written by the guest"
	failed=$((failed + 1))
fi
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
expect "a real kernel crash fails the run" 99 "without reporting|logged a problem" -- \
	sh -c 'echo 1 >/proc/sys/kernel/sysrq; echo c >/proc/sysrq-trigger'
expect "the time limit kills QEMU" 124 "timed out after 15 s" --timeout 15 -- sleep 600
expect "an unknown kernel line is refused" 2 "no kernel 5.4" --kernel 5.4 -- true

echo "harness selftest: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
