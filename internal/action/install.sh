# shellcheck shell=bash
# Sourced by the run: steps of action.yml that install agentready from a
# release: which release, for which platform, and its download, checked
# against the release's checksums.txt before anything is unpacked.
#
# The functions print ::error lines and return non-zero; they set globals
# rather than print their result, so that an error line is never captured
# as a value.

# The releases' home; AGENTREADY_RELEASE_BASE_URL replaces it (a mirror, or
# a test's server). Assets live under <base>/v<version>/.
release_base_default=https://github.com/agentready/agentready/releases/download

# action_ref sets action_ref to the ref the workflow's uses: line names
# (v1.2.3, a branch, a commit SHA), or to nothing when it cannot tell (a
# local action, uses: ./). GitHub leaves GITHUB_ACTION_REF empty in the
# steps of a composite action, so the ref is also read where the runner
# keeps the action of owner/repo@ref: _actions/owner/repo/ref.
action_ref() {
  action_ref=${GITHUB_ACTION_REF:-}
  local path=${GITHUB_ACTION_PATH:-}
  path=${path//\\//}
  if [ -z "$action_ref" ] && [[ "$path" =~ /_actions/[^/]+/[^/]+/([^/]+)/?$ ]]; then
    action_ref=${BASH_REMATCH[1]}
  fi
}

# release_version WANTED REF sets release_version to the version (X.Y.Z,
# with an optional pre-release) of the release to install: WANTED when
# given (the version input), else REF when the action was pinned by a
# release tag. A commit SHA, a branch or a major tag (v1) names no release.
release_version() {
  local pattern='^v?([0-9]+\.[0-9]+\.[0-9]+(-[0-9A-Za-z][0-9A-Za-z.-]{0,39})?)$'
  if [ -n "$1" ]; then
    if ! [[ "$1" =~ $pattern ]]; then
      echo "::error title=agentready::version: with install: release, want a release such as v1.2.3 (or set install: source to build the action's source)"
      return 2
    fi
  elif ! [[ "$2" =~ $pattern ]]; then
    local ref="$2"
    # The ref is the workflow's own uses: line; it is shown only when it
    # is plainly a ref, so that it can never be read as a command.
    [[ "$ref" =~ ^[0-9A-Za-z._/+-]{1,100}$ ]] || ref="(none)"
    echo "::error title=agentready::install: release needs to know which release: the action's ref $ref is not a release tag. Pin agentready/agentready@vX.Y.Z, or, when pinning a commit, name the release it is tagged with in version: (vX.Y.Z), or set install: source"
    return 2
  fi
  release_version=${BASH_REMATCH[1]}
}

# release_platform RUNNER_OS RUNNER_ARCH sets release_os, release_arch and
# release_asset, the archive of the release for this runner.
release_platform() {
  case "$1" in
    Linux) release_os=linux ;;
    macOS) release_os=darwin ;;
    Windows) release_os=windows ;;
    *) echo "::error title=agentready::install: release has no build for the runner's OS ($1); set install: source"; return 2 ;;
  esac
  case "$2" in
    X64) release_arch=amd64 ;;
    ARM64) release_arch=arm64 ;;
    *) echo "::error title=agentready::install: release has no build for the runner's architecture ($2); set install: source"; return 2 ;;
  esac
  release_asset="agentready_${release_version}_${release_os}_${release_arch}.tar.gz"
  if [ "$release_os" = windows ]; then
    release_asset="agentready_${release_version}_${release_os}_${release_arch}.zip"
  fi
}

# release_base BASE sets release_base to BASE (default: GitHub's releases)
# without a trailing slash. Only https is taken, and plain http only from
# this machine: the checksum comes from the same place as the archive, so
# a connection anyone on the way could rewrite would prove nothing.
release_base() {
  release_base=${1:-$release_base_default}
  release_base=${release_base%/}
  if ! [[ "$release_base" =~ ^(https://[^[:space:]\"\'\`]+|http://(127\.0\.0\.1|localhost|\[::1\])(:[0-9]+)?(/[^[:space:]\"\'\`]*)?)$ ]]; then
    echo "::error title=agentready::AGENTREADY_RELEASE_BASE_URL: want an https URL (or http on 127.0.0.1 or localhost)"
    return 2
  fi
}

# sha256_of FILE prints the SHA-256 of FILE in hex: sha256sum on Linux and
# Windows (Git Bash), shasum on macOS.
sha256_of() {
  local sum
  if command -v sha256sum > /dev/null; then
    sum=$(sha256sum -b "$1")
  else
    sum=$(shasum -a 256 -b "$1")
  fi
  # A name with a backslash (a Windows path) makes sha256sum start the
  # line with one.
  sum=${sum#\\}
  echo "${sum%% *}"
}

# release_checksum FILE NAME sets release_checksum to the one SHA-256 that
# FILE, in sha256sum's format, gives for NAME.
release_checksum() {
  local sum name rest found=0
  release_checksum=''
  while read -r sum name rest || [ -n "$sum" ]; do
    name=${name%$'\r'}
    # sha256sum marks a file read in binary mode with a *.
    if [ "${name#\*}" = "$2" ] && [ -z "$rest" ]; then
      release_checksum=$sum
      found=$((found + 1))
    fi
  done < "$1"
  if [ "$found" -ne 1 ] || ! [[ "$release_checksum" =~ ^[0-9a-f]{64}$ ]]; then
    echo "::error title=agentready::checksums.txt of the release does not give one SHA-256 for $2; refusing to install it"
    return 3
  fi
}

# fetch URL FILE MAX downloads URL to FILE, at most MAX bytes, following
# redirects to https only.
fetch() {
  curl --fail --silent --show-error --location --proto '=https,http' --proto-redir '=https' \
    --retry 3 --connect-timeout 20 --max-time 300 --max-filesize "$3" -o "$2" -- "$1"
}

# install_release BIN KEPT RESTORED KEY checks the release archive for this
# runner against the release's checksums.txt, fetched anew each time, then
# unpacks only the executable to BIN. The archive is the one the directory
# KEPT holds when RESTORED is true (the runner cache restored it, under
# KEY), else a download, which is moved into KEPT once it has passed, for
# the cache to save. The cache keeps the archive rather than the
# executable, so that what it restores is checked again as a download is:
# an entry someone altered is refused. release_version, release_asset and
# release_base must be set.
install_release() {
  local bin=$1 kept=$2 restored=$3 key=$4 exe work url got archive
  exe=${bin##*/}
  work=$(mktemp -d "${RUNNER_TEMP:-/tmp}/agentready-download.XXXXXX")
  url="$release_base/v$release_version"
  if ! fetch "$url/checksums.txt" "$work/checksums.txt" 1048576; then
    echo "::error title=agentready::could not download checksums.txt of release v$release_version"
    return 3
  fi
  release_checksum "$work/checksums.txt" "$release_asset" || return
  if [ "$restored" = true ]; then
    archive="$kept/$release_asset"
    echo "agentready: checking $release_asset of v$release_version from the runner cache"
    if [ ! -f "$archive" ]; then
      echo "::error title=agentready::the runner cache entry $key holds no $release_asset; refusing it: delete the entry (gh cache delete $key) and run again"
      return 3
    fi
  else
    archive="$work/$release_asset"
    echo "agentready: downloading $release_asset of v$release_version"
    if ! fetch "$url/$release_asset" "$archive" 268435456; then
      echo "::error title=agentready::could not download $release_asset of release v$release_version"
      return 3
    fi
  fi
  got=$(sha256_of "$archive")
  if [ "$got" != "$release_checksum" ]; then
    if [ "$restored" = true ]; then
      echo "::error title=agentready::$release_asset from the runner cache entry $key has SHA-256 $got, but checksums.txt of release v$release_version gives $release_checksum; refusing it: delete the entry (gh cache delete $key) and run again"
    else
      echo "::error title=agentready::$release_asset has SHA-256 $got, but checksums.txt of release v$release_version gives $release_checksum; refusing to install it"
    fi
    return 3
  fi
  echo "agentready: SHA-256 $got matches checksums.txt"
  mkdir "$work/unpacked"
  case "$release_asset" in
    *.zip)
      if command -v unzip > /dev/null; then
        unzip -q "$archive" "$exe" -d "$work/unpacked" || true
      else
        7z e -y -bd "-o$work/unpacked" "$archive" "$exe" > /dev/null || true
      fi
      ;;
    *) tar -xzf "$archive" -C "$work/unpacked" "$exe" || true ;;
  esac
  if [ ! -f "$work/unpacked/$exe" ] || [ -L "$work/unpacked/$exe" ]; then
    echo "::error title=agentready::$release_asset holds no file $exe"
    return 3
  fi
  mkdir -p "${bin%/*}"
  mv "$work/unpacked/$exe" "$bin"
  chmod +x "$bin"
  if [ "$restored" != true ]; then
    mkdir -p "$kept"
    mv "$archive" "$kept/$release_asset"
  fi
  rm -rf "$work"
}
