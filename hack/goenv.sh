# shellcheck shell=bash
# hack/goenv.sh: the Go environment of every go command a script of the suite
# runs (its linters, the node image's binaries, the image recipes), defined
# once; pkg/catalog.ToolchainEnv is the same rule for the Go code. Sourced:
#
#   go_env_words TOOLCHAIN   sets GO_ENV, NAME=VALUE words for env (one command)
#   go_env TOOLCHAIN         exports them (the rest of the script)
#
# TOOLCHAIN is a GOTOOLCHAIN value. "local" never switches, and the checksum
# database is off (GOSUMDB=off: some of its look-ups answer 404 here). Any
# other value (auto, go1.27.3) may switch, and the go command verifies a
# toolchain it switches to against the checksum database whatever GONOSUMDB
# says, refusing under GOSUMDB=off ("verifying module: checksum database
# disabled by GOSUMDB=off", issue #72: actionlint on a new machine). So there
# the database is on and GONOSUMDB='*' leaves every module out of it, as
# GOSUMDB=off did. TestGoEnvDefinedOnce (internal/images) holds every script
# of the suite to this file.
go_env_words() {
  case ${1:?usage: go_env_words TOOLCHAIN} in
    local) GO_ENV=(GOTOOLCHAIN=local GOSUMDB=off) ;;
    *) GO_ENV=("GOTOOLCHAIN=$1" GOSUMDB=sum.golang.org 'GONOSUMDB=*') ;;
  esac
}
go_env() {
  go_env_words "$1"
  export "${GO_ENV[@]}"
}
