#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# hwoffload-info on the build host: it exits 0, says whether AF_ALG works and, when it does not,
# why (the host has no AF_ALG: EAFNOSUPPORT), and still shows the table (software everywhere
# without an engine); --table takes the good example and refuses each bad one with FILE:LINE.
top=${top_srcdir:-.}
info=tools/hwoffload-info
failures=0

fail() {
	echo "FAIL: $*"
	failures=$((failures + 1))
}

out=$("$info") || fail "hwoffload-info exited $?"
echo "$out" | grep -q '^af_alg: \(available\|unavailable\)$' || fail "no af_alg line"
if echo "$out" | grep -q '^af_alg: unavailable$'; then
	echo "$out" | grep -q '^af_alg-errno: E[A-Z]*$' || fail "no af_alg-errno line"
	echo "$out" | grep -q '^af_alg-reason: .*socket(AF_ALG)' || fail "no af_alg-reason line"
	echo "$out" | grep -q '^route: none: every request goes to software, as AF_ALG is unusable here: .*socket(AF_ALG)' ||
		fail "without AF_ALG the routes are not software with the reason"
fi
echo "$out" | grep -Eq '^ktls: (available( [A-Za-z]+=[0-9]+)+|unavailable: .*modprobe tls\))$' ||
	fail "no ktls line"
echo "$out" | grep -q '^table: default$' || fail "no 'table: default' line"
echo "$out" | grep -q '^path: software usable$' || fail "no software path"

# A table naming the engine: its routes where AF_ALG works; where it does not, as the provider
# does, software with the reason, and its entries shown as not used (never a route to a driver).
out=$("$info" --table "$top/test/data/table-good.txt") || fail "--table table-good.txt exited $?"
echo "$out" | grep -q "^table: $top/test/data/table-good.txt$" || fail "good table not named"
# Each entry in words, every range's last size; a driver discovery does not know here (the host
# has no engine) by its name; an entry of one range.
for line in \
	'AES-128-CBC encrypt (throughput): software up to 255 B, cbc-aes-hwoffload-pio to 8191 B, cbc-aes-hwoffload-dma beyond' \
	'AES-128-CBC decrypt (throughput): software up to 511 B, cbc-aes-hwoffload-dma beyond' \
	'AES-128-CBC encrypt (cpu): cbc-aes-hwoffload-pio up to 4095 B, cbc-aes-hwoffload-dma beyond' \
	'MD5 digest (cpu): software at every size'; do
	echo "$out" | grep -qxF "table-summary: $line" || fail "no summary '$line' in: $(echo "$out" | grep '^table-summary')"
done
[ "$(echo "$out" | grep -c '^table-summary: ')" -eq "$(echo "$out" | grep -c '^\(table-entry\|route\): [A-Z]')" ] ||
	fail "not one summary per entry: $out"
if echo "$out" | grep -q '^af_alg: unavailable$'; then
	echo "$out" | grep -q '^table-entry: AES-128-CBC 128 encrypt throughput 0:software 256:' ||
		fail "good table's entries not shown"
	echo "$out" | grep -q '^table-not-used: ' || fail "good table not said to be unused"
	echo "$out" | grep -q '^route: none: every request goes to software, as AF_ALG is unusable here: .*socket(AF_ALG)' ||
		fail "without AF_ALG the good table's routes are not software with the reason"
	echo "$out" | grep '^route: ' | grep -q 'hwoffload\|omap' &&
		fail "without AF_ALG a route names a driver: $(echo "$out" | grep '^route: ')"
else
	echo "$out" | grep -q '^route: AES-128-CBC 128 encrypt throughput 0:software 256:' ||
		fail "good table's routes not shown"
fi

for bad in "$top"/test/data/table-bad/*.txt; do
	err=$("$info" --table "$bad" 2>&1 >/dev/null)
	rc=$?
	[ $rc -eq 1 ] || fail "$bad: exit status $rc, not 1"
	echo "$err" | grep -q "^$bad:[0-9][0-9]*: ." || fail "$bad: no FILE:LINE: reason in '$err'"
done

"$info" --table "$top/test/data/no-such-table" 2>/dev/null && fail "a missing table was accepted"
"$info" --bogus >/dev/null 2>&1
[ $? -eq 2 ] || fail "a bad option did not exit 2"

# --provider: what hwoffload.so reports when it loads here, and why it does not load.
out=$("$info" --provider provider/.libs) || fail "--provider exited $?"
echo "$out" | grep -q '^provider-hwoffload-af-alg: unavailable$' ||
	fail "--provider: no af-alg line: $out"
echo "$out" | grep -q '^provider-hwoffload-af-alg-reason: .*socket(AF_ALG)' ||
	fail "--provider: no reason line"
out=$(HWOFFLOAD_MODE=fast "$info" --provider provider/.libs) &&
	fail "--provider with mode=fast exited 0"
echo "$out" | grep -q "^provider-error: key 'mode'" || fail "--provider: bad mode not named: $out"

# The configuration every application gets: the system's does not load hwoffload here; the
# installed example, pointed at the build tree, loads it with its keys; a bad key is reported.
out=$("$info") || fail "hwoffload-info exited $?"
echo "$out" | grep -q '^config-hwoffload: not loaded' || fail "system config: $out"
conf=$(mktemp)
sed -e "s|^\[hwoffload_sect\]$|&\nmodule = $PWD/provider/.libs/hwoffload.so\nmode = software\nobjective = cpu|" \
	"$top/provider/openssl.cnf.example" >"$conf"
out=$(OPENSSL_CONF=$conf "$info") || fail "hwoffload-info with the example config exited $?"
for line in "config: $conf" 'config-hwoffload: loaded' 'config-hwoffload-mode: software' \
	'config-hwoffload-objective: cpu'; do
	echo "$out" | grep -qF -- "$line" || fail "example config: no '$line' in: $out"
done
sed -i 's/^mode = software$/mode = fast/' "$conf"
out=$(OPENSSL_CONF=$conf "$info") && fail "hwoffload-info with mode = fast in the config exited 0"
echo "$out" | grep -q "^config-error: .*key 'mode'" || fail "config with mode = fast: $out"
rm -f "$conf"

[ $failures -eq 0 ] && echo "PASS: hwoffload-info"
exit $((failures > 0))
