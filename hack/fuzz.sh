#!/usr/bin/env bash
# fuzz.sh runs every fuzz target of the repository for a short, bounded time
# (FUZZTIME, default 5s each), so that `make test` exercises the parsers of
# untrusted input beyond their seed corpora. Run longer by hand, e.g.
#   FUZZTIME=10m hack/fuzz.sh
# A failing input is written under the package's testdata/fuzz and fails the run.
set -euo pipefail
cd "$(dirname "$0")/.."
fuzztime=${FUZZTIME:-5s}
targets=$(grep -rl --include='*_test.go' '^func Fuzz' pkg cmd test 2>/dev/null | sort)
for file in $targets; do
  pkg=./$(dirname "$file")
  for name in $(sed -n 's/^func \(Fuzz[A-Za-z0-9_]*\)(.*/\1/p' "$file"); do
    echo "fuzz: $pkg $name for $fuzztime"
    go test -run '^$' -fuzz "^${name}\$" -fuzztime "$fuzztime" "$pkg" >/tmp/propel-fuzz.log 2>&1 || { cat /tmp/propel-fuzz.log; echo "fuzz: $name failed"; exit 1; }
  done
done
echo "fuzz: all targets ran"
