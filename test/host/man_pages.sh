#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# The man pages render without a warning (man --warnings, as lintian checks them), and say what
# the programs and the provider have: every option of each program's --help, every
# configuration key of provider/config.c with its environment variable.
top=${top_srcdir:-.}
failures=0

fail() {
	echo "FAIL: $*"
	failures=$((failures + 1))
}

# The page as text, hyphens plain.
text() {
	MANWIDTH=200 man -l "$1" 2>/dev/null | sed 's/‐/-/g; s/−/-/g'
}

for page in provider/hwoffload.7 tools/hwoffload-calibrate.1 tools/hwoffload-info.1; do
	warnings=$(LC_ALL=C.UTF-8 MANROFFSEQ='' MANWIDTH=80 \
		man --warnings -E UTF-8 -l -Tutf8 -Z "$top/$page" 2>&1 >/dev/null)
	[ -z "$warnings" ] || fail "$page: $warnings"
done

for program in tools/hwoffload-calibrate tools/hwoffload-info; do
	page="$top/$program.1"
	options=$("$program" --help 2>&1 | grep -o -- '--[a-z-]*' | sort -u)
	[ -n "$options" ] || fail "$program --help lists no option"
	for option in $options; do
		text "$page" | grep -q -- "$option" || fail "$page: no $option ($program --help has it)"
	done
done

keys=$(sed -n 's/.*{ "\([a-z_]*\)", "\(HWOFFLOAD_[A-Z_]*\)" }.*/\1 \2/p' "$top/provider/config.c")
[ -n "$keys" ] || fail "no configuration keys found in provider/config.c"
page_text=$(text "$top/provider/hwoffload.7")
while read -r key variable; do
	echo "$page_text" | grep -q "^ *$key ($variable)" ||
		fail "hwoffload.7: no configuration key '$key ($variable)'"
done <<<"$keys"

echo "man pages: $failures failures"
[ "$failures" -eq 0 ]
