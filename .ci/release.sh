#!/usr/bin/env bash
# Builds a release into dist/ (which it empties first):
#   agentready_<version>_<os>_<arch>.tar.gz   linux and darwin: agentready, README.md, NOTICE (and LICENSE when there is one)
#   agentready_<version>_windows_<arch>.zip   agentready.exe, README.md, NOTICE (and LICENSE)
#   agentready_<version>_<arch>.deb / .rpm    linux packages (nfpm, .ci/nfpm.yaml)
#   agentready_<version>_sbom.cdx.json        CycloneDX SBOM of the module (cyclonedx-gomod)
#   checksums.txt                             SHA-256 of each of the above, in sha256sum's format
# for amd64 and arm64 each. <version> is the tag at HEAD without its v
# (v1.2.3 gives 1.2.3), or with --snapshot 0.0.0-SNAPSHOT-<short commit>.
# The binaries are built with CGO_ENABLED=0 and -trimpath, and stamped
# with the version, the commit and its date; every time inside an archive
# or package is that date (SOURCE_DATE_EPOCH), so that building one commit
# twice gives the same bytes.
#
# With --image, also builds the container image (.ci/Containerfile) from
# the linux archives: agentready:<version>-amd64 and -arm64, and the
# manifest list agentready:<version> that names both (podman).
#
# Usage: .ci/release.sh [--snapshot] [--image]
set -euo pipefail
cd "$(dirname "$0")/.."

# The tools are Go programs, run at a pinned version through the module
# proxy as staticcheck is in .ci/run: nothing is added to go.mod.
CYCLONEDX=github.com/CycloneDX/cyclonedx-gomod/cmd/cyclonedx-gomod@v1.10.0
NFPM=github.com/goreleaser/nfpm/v2/cmd/nfpm@v2.48.0
STAMP=github.com/agentready/agentready/internal/cli
TARGETS=(linux/amd64 linux/arm64 darwin/amd64 darwin/arm64 windows/amd64 windows/arm64)
LINUX_ARCHES=(amd64 arm64)
CA_BUNDLE=${CA_BUNDLE:-/etc/ssl/certs/ca-certificates.crt}

die() { echo "release: $*" >&2; exit 2; }

snapshot=false image=false
for arg in "$@"; do
  case $arg in
    --snapshot) snapshot=true ;;
    --image) image=true ;;
    -h | --help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;;
    *) die "unknown argument $arg (usage: .ci/release.sh [--snapshot] [--image])" ;;
  esac
done

commit=$(git rev-parse HEAD)
# Untracked files count: go build compiles every .go file in a package's
# directory, tracked or not.
dirty=$(git status --porcelain)
if $snapshot; then
  version=0.0.0-SNAPSHOT-$(git rev-parse --short=7 HEAD)
  if [ -n "$dirty" ]; then
    commit=$commit-dirty
  fi
else
  tag=$(git describe --tags --exact-match --match 'v*' HEAD 2>/dev/null) ||
    die "HEAD has no v* tag: tag the commit (git tag v1.2.3) or build a --snapshot"
  semver='^v(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)(-[0-9A-Za-z.-]+)?$'
  [[ $tag =~ $semver ]] || die "tag $tag: want vMAJOR.MINOR.PATCH, with an optional -pre-release"
  [ -z "$dirty" ] || die "the work tree differs from $tag; a release is built from the tagged commit alone"
  version=${tag#v}
fi
SOURCE_DATE_EPOCH=${SOURCE_DATE_EPOCH:-$(git log -1 --format=%ct HEAD)}
export SOURCE_DATE_EPOCH
date=$(date -u -d "@$SOURCE_DATE_EPOCH" +%Y-%m-%dT%H:%M:%SZ)
echo "release: agentready $version, commit $commit, dated $date"

dist=$PWD/dist
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
rm -rf "$dist"
mkdir -p "$dist"

docs=(README.md)
# NOTICE names the sources of rules the scanner carries and their licences.
for doc in LICENSE NOTICE; do
  if [ -f "$doc" ]; then
    docs+=("$doc")
  fi
done

start=$SECONDS
ldflags="-s -w -X $STAMP.Version=$version -X $STAMP.Commit=$commit -X $STAMP.Date=$date"
for target in "${TARGETS[@]}"; do
  goos=${target%/*} goarch=${target#*/}
  exe=agentready
  if [ "$goos" = windows ]; then
    exe=agentready.exe
  fi
  dir=$work/${goos}_$goarch
  mkdir -p "$dir"
  # -buildvcs=false: the stamps above say what the build is, and the binary
  # is the same whether or not the environment's GOFLAGS asks for VCS data.
  CGO_ENABLED=0 GOOS=$goos GOARCH=$goarch go build -trimpath -buildvcs=false -ldflags "$ldflags" -o "$dir/$exe" ./cmd/agentready
  cp "${docs[@]}" "$dir/"
  # Modes and times are set, not inherited from the umask and the clock.
  chmod 0755 "$dir/$exe"
  (cd "$dir" && chmod 0644 "${docs[@]}" && touch -d "@$SOURCE_DATE_EPOCH" "$exe" "${docs[@]}")
  name=agentready_${version}_${goos}_$goarch
  if [ "$goos" = windows ]; then
    (cd "$dir" && TZ=UTC zip -q -X "$dist/$name.zip" "$exe" "${docs[@]}")
  else
    tar -C "$dir" --sort=name --mtime="@$SOURCE_DATE_EPOCH" --owner=0 --group=0 --numeric-owner \
      -cf - "$exe" "${docs[@]}" | gzip -9 -n >"$dist/$name.tar.gz"
  fi
  echo "release: $name ($((SECONDS - start)) s)"
done

for arch in "${LINUX_ARCHES[@]}"; do
  for packager in deb rpm; do
    VERSION=$version ARCH=$arch BINARY=$work/linux_$arch/agentready \
      go run "$NFPM" package --config .ci/nfpm.yaml --packager "$packager" \
      --target "$dist/agentready_${version}_$arch.$packager" >/dev/null
  done
done
echo "release: packages ($((SECONDS - start)) s)"

# One SBOM for six binaries: the module's dependencies on every platform
# (mod mode), since a per-binary one (app mode) would leave out what only
# one platform links, such as cobra's mousetrap on Windows. Its main
# component has the Go module's version: the tag, or a pseudo-version for a
# snapshot. No serial number and no timestamp, so that it is the same for
# the same commit.
CGO_ENABLED=0 go run "$CYCLONEDX" mod -json -licenses -noserial -notimestamp \
  -output "$dist/agentready_${version}_sbom.cdx.json" .
echo "release: SBOM ($((SECONDS - start)) s)"

(cd "$dist" && export LC_ALL=C && sha256sum -- *.tar.gz *.zip *.deb *.rpm *.cdx.json >checksums.txt)
echo "release: dist/checksums.txt"

if $image; then
  [ -f "$CA_BUNDLE" ] || die "no CA bundle at $CA_BUNDLE (install ca-certificates, or set CA_BUNDLE)"
  podman manifest rm "agentready:$version" >/dev/null 2>&1 || true
  podman manifest create "agentready:$version" >/dev/null
  for arch in "${LINUX_ARCHES[@]}"; do
    ctx=$work/image-$arch
    mkdir -p "$ctx"
    # The image's binary is the released one, taken from its archive.
    tar -xzf "$dist/agentready_${version}_linux_$arch.tar.gz" -C "$ctx" agentready
    cp "$CA_BUNDLE" "$ctx/ca-certificates.crt"
    podman build --quiet --layers=false --platform "linux/$arch" --timestamp "$SOURCE_DATE_EPOCH" \
      --build-arg VERSION="$version" --build-arg COMMIT="$commit" --build-arg CREATED="$date" \
      -f .ci/Containerfile -t "agentready:$version-$arch" "$ctx" >/dev/null
    podman manifest add "agentready:$version" "containers-storage:localhost/agentready:$version-$arch" >/dev/null
    echo "release: image agentready:$version-$arch ($((SECONDS - start)) s)"
  done
fi
