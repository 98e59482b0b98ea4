#!/usr/bin/env bash
# fuzz.sh runs every fuzz target of the repository for a short, bounded time
# (FUZZTIME, default 5s each), so that `make test` exercises the parsers of
# untrusted input beyond their seed corpora. Run longer by hand, e.g.
#   FUZZTIME=10m hack/fuzz.sh
# A failing input is written under the package's testdata/fuzz and fails the run.
set -euo pipefail
cd "$(dirname "$0")/.."
fuzztime=${FUZZTIME:-5s}
run_target() {
  go test -run '^$' -fuzz "^${2}\$" -fuzztime "$fuzztime" "$1" >/tmp/propel-fuzz.log 2>&1
}
targets=$(grep -rl --include='*_test.go' '^func Fuzz' internal pkg cmd test 2>/dev/null | sort)
for file in $targets; do
  pkg=./$(dirname "$file")
  for name in $(sed -n 's/^func \(Fuzz[A-Za-z0-9_]*\)(.*/\1/p' "$file"); do
    echo "fuzz: $pkg $name for $fuzztime"
    if ! run_target "$pkg" "$name"; then
      # Go's fuzzing engine can report "context deadline exceeded" when
      # -fuzztime ends while a worker is still running an input; that is
      # not a finding (a finding writes a failing input). Run once more.
      if grep -q 'context deadline exceeded' /tmp/propel-fuzz.log && ! grep -q 'Failing input written' /tmp/propel-fuzz.log; then
        echo "fuzz: $name: the engine's deadline ended a run without a finding; running it again"
        run_target "$pkg" "$name" || { cat /tmp/propel-fuzz.log; echo "fuzz: $name failed"; exit 1; }
      else
        cat /tmp/propel-fuzz.log; echo "fuzz: $name failed"; exit 1
      fi
    fi
  done
done
echo "fuzz: all targets ran"
