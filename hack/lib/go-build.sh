# What the scripts that build pinned Go tools into .cache share (helm, kwok, promql-check): a
# build is skipped when the stamp beside its outputs (the SHA-256 of the files it is built from)
# matches and every output is there; otherwise it runs with the same settings. Sourced, not run.

# go_build_stamp FILE...: the stamp of the files a build is made from.
go_build_stamp() { cat "$@" | sha256sum | cut -d' ' -f1; }

# go_build_fresh OUT STAMP OUTPUT...: true when OUT holds a build of STAMP with every OUTPUT.
go_build_fresh() {
  local out=$1 stamp=$2 file
  shift 2
  [ -f "$out/.stamp" ] && [ "$(cat "$out/.stamp")" = "$stamp" ] || return 1
  for file in "$@"; do [ -e "$out/$file" ] || return 1; done
}

# go_build_begin NAME OUT: Go must be there; OUT is made, and holds no stamp until the build ends.
go_build_begin() {
  command -v go >/dev/null || { echo "$1: Go is required (https://go.dev/dl) to build it" >&2; exit 1; }
  mkdir -p "$2"
  rm -f "$2/.stamp"
  export GOTOOLCHAIN=local CGO_ENABLED=0 GOFLAGS=-trimpath
  go_build_started=$(date +%s)
}

# go_build_end NAME OUT STAMP: records the stamp and says how long the build took.
go_build_end() {
  echo "$3" >"$2/.stamp"
  echo "$1: built in $(($(date +%s) - go_build_started))s into $2"
}
