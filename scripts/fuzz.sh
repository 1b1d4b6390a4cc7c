#!/usr/bin/env bash
# Runs every fuzz target in the module for a bounded time each (FUZZTIME,
# default 10s). Go runs one target per invocation, so targets are found by
# name and run one after another; the seed corpus also runs in `make test`.
# Prints one line per target with the executions go reported. A new input
# is minimised at most 5 times: by default go may spend a minute on each.
set -euo pipefail
cd "$(dirname "$0")/.."
fuzztime=${FUZZTIME:-10s}
targets=$(grep -rl --include='*_test.go' -E '^func Fuzz[A-Za-z0-9_]+\(' . | sort || true)
if [ -z "$targets" ]; then
	echo "fuzz: no targets"
	exit 0
fi
status=0
summary=()
for file in $targets; do
	pkg="./$(dirname "${file#./}")"
	for name in $(grep -oE '^func Fuzz[A-Za-z0-9_]+' "$file" | sed 's/^func //'); do
		log=$(mktemp)
		go test -run '^$' -fuzz "^${name}\$" -fuzztime "$fuzztime" -fuzzminimizetime 5x "$pkg" >"$log" 2>&1 && rc=0 || rc=$?
		execs=$(grep -oE 'execs: [0-9]+' "$log" | tail -1 | grep -oE '[0-9]+' || echo 0)
		if [ $rc -eq 0 ]; then
			summary+=("ok   $pkg $name execs=$execs")
		elif ! grep -q 'Failing input written to' "$log" && grep -q 'context deadline exceeded' "$log" && ! grep -q 'panic:' "$log"; then
			# go test sometimes reports the end of -fuzztime itself as a
			# failure ("context deadline exceeded") with no input to show; a
			# real failure always writes its input.
			summary+=("ok   $pkg $name execs=$execs (time ran out mid-run)")
		else
			status=1
			cat "$log"
			summary+=("FAIL $pkg $name (failing input saved under $pkg/testdata/fuzz/$name)")
		fi
		rm -f "$log"
	done
done
printf '%s\n' "${summary[@]}"
exit $status
