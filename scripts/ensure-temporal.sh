#!/usr/bin/env bash
# Makes sure the Temporal CLI (dev server) Cohort tests and `cohort dev` use is built, and prints
# its path on stdout. No npm or Debian package ships a Temporal server, so it is built from the
# Go module proxy into the same cache src/client/devserver.ts looks in. v1.5.1 is the newest CLI
# tag whose go.mod has no `replace` directive, which `go install pkg@version` refuses.
set -euo pipefail

version=v1.5.1
dir="${XDG_CACHE_HOME:-$HOME/.cache}/cohort/temporal-${version#v}"
bin="$dir/temporal"

if [[ ! -x "$bin" ]]; then
  # Go's tarball install location is often not on PATH in non-login shells.
  if ! command -v go >/dev/null 2>&1 && [[ -x /usr/local/go/bin/go ]]; then
    export PATH="/usr/local/go/bin:$PATH"
  fi
  if ! command -v go >/dev/null 2>&1; then
    echo "ensure-temporal: no $bin and no Go toolchain to build it; install Go or the Temporal CLI" >&2
    exit 1
  fi
  echo "ensure-temporal: building temporal CLI $version into $dir (takes a few minutes)..." >&2
  start=$SECONDS
  mkdir -p "$dir"
  GOBIN="$dir" go install "github.com/temporalio/cli/cmd/temporal@$version" >&2
  echo "ensure-temporal: built in $((SECONDS - start)) s" >&2
else
  echo "ensure-temporal: using cached $bin" >&2
fi
echo "$bin"
