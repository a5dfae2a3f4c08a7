#!/usr/bin/env bash
# Builds the Herald server image with Podman where no image registry can be reached: the
# Containerfile as users run it, on a BASE made here instead of the public JRE image it names:
#   - a minimal Debian root file system from Debian packages (mmdebstrap: the C library, base-files,
#     netbase; no shell, no package manager), the release of this machine;
#   - a Java runtime linked by jlink from the JDK that builds Herald ($JAVA_HOME), at
#     /opt/java/openjdk as in the Eclipse Temurin images, with its class data sharing archive.
# The base is kept in Podman's image store under a tag that hashes what made it (this script's base
# part and the JDK's version), so later builds reuse it; a machine without it builds it (~1 min).
# Debian's updates do not change the tag: `podman rmi` the base to take them.
#
#   scripts/build-image.sh [TAG]       default TAG: localhost/herald-server:dev
#
# Needs podman, runc and mmdebstrap (scripts/install-test-packages.sh installs them) and the jar:
#   ./mvnw -q -pl herald-server -am package -DskipTests
# Prints the image id as its last line.
set -euo pipefail
cd "$(dirname "$0")/.."
tag=${1:-localhost/herald-server:dev}
java_home=${JAVA_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}
jar=herald-server/target/herald-server.jar
if [[ ! -f $jar ]]; then
  echo "build-image: $jar is missing; build it first: ./mvnw -q -pl herald-server -am package -DskipTests" >&2
  exit 1
fi

# Podman on these machines: runc (crun refuses the hybrid cgroups), and ulimits within this
# process's hard limits (Podman's default nofile of 1048576 is above them, and runc then fails).
# runc also refused nproc above 32768 here though `ulimit -Hu` said 96364 ("error setting rlimit
# type 6"), so nproc is capped there.
limit() { # limit TYPE CAP: the hard limit of ulimit -H<TYPE>, at most CAP
  local hard
  hard=$(ulimit -H"$1")
  if [[ $hard == unlimited ]] || (( hard > $2 )); then hard=$2; fi
  echo "$hard"
}
podman_run_options=(--runtime runc --ulimit "nofile=$(limit n 65536):$(limit n 65536)"
  --ulimit "nproc=$(limit u 32768):$(limit u 32768)")

# --- base (its text is part of the base image's tag)
base_modules=java.se,jdk.httpserver,jdk.unsupported,jdk.management,jdk.management.agent,jdk.jfr,jdk.net,jdk.crypto.cryptoki,jdk.naming.dns,jdk.zipfs,jdk.charsets
base_packages=libc6,base-files,netbase
build_base() { # build_base TAG
  local work suite
  work=$(mktemp -d)
  trap 'rm -rf "$work"' RETURN
  suite=$(. /etc/os-release && echo "${VERSION_CODENAME:-bookworm}")
  "$java_home/bin/jlink" --add-modules "$base_modules" --strip-debug --no-man-pages --no-header-files \
    --generate-cds-archive --output "$work/jre"
  printf '%s\n' 'root:x:0:0:root:/root:/usr/sbin/nologin' 'herald:x:10001:0:Herald:/tmp:/usr/sbin/nologin' \
    'nobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin' > "$work/passwd"
  printf '%s\n' 'root:x:0:' 'nogroup:x:65534:' > "$work/group"
  # extract: the packages' files and their dependencies' (libgcc-s1), no maintainer scripts
  # (extract hooks, since this variant runs no customize hooks)
  mmdebstrap --quiet --variant=extract --include="$base_packages" \
    --extract-hook='mkdir -p "$1/opt/java/openjdk"' \
    --extract-hook="sync-in $work/jre /opt/java/openjdk" \
    --extract-hook="upload $work/passwd /etc/passwd" \
    --extract-hook="upload $work/group /etc/group" \
    --extract-hook='rm -rf "$1"/usr/share/doc "$1"/usr/share/man "$1"/usr/share/info' \
    "$suite" "$work/rootfs.tar" </dev/null
  podman import --quiet \
    --change 'ENV JAVA_HOME=/opt/java/openjdk' \
    --change 'ENV PATH=/opt/java/openjdk/bin:/usr/local/bin:/usr/bin:/bin' \
    --change "LABEL dev.herald.base=$1" \
    "$work/rootfs.tar" "$1" >/dev/null
}
# --- end base

jdk_version=$("$java_home/bin/java" -version 2>&1 | head -3)
key=$( { sed -n '/^# --- base/,/^# --- end base/p' "$0"; echo "$jdk_version"; } | sha256sum | cut -c1-16)
base=localhost/herald-jre-base:$key
if podman image exists "$base"; then
  echo "build-image: base $base present"
else
  echo "build-image: building base $base (Debian $(. /etc/os-release && echo "$VERSION_CODENAME") + jlink runtime of $java_home)"
  start=$SECONDS
  build_base "$base"
  echo "build-image: base built in $((SECONDS - start)) s"
fi

version=$(sed -n 's:^  <version>\(.*\)</version>:\1:p' pom.xml | head -1)
revision=$(git rev-parse HEAD 2>/dev/null || echo unknown)
source=$(git config --get remote.origin.url 2>/dev/null || echo unknown)
start=$SECONDS
# --format docker keeps the HEALTHCHECK; --network none: the build needs no network; --layers=false:
# no intermediate images kept (the build stage would pile up, one per jar)
podman build --quiet --layers=false --format docker --network none "${podman_run_options[@]}" \
  --build-arg "BASE=$base" --build-arg "VERSION=$version" --build-arg "REVISION=$revision" \
  --build-arg "SOURCE=$source" --label "dev.herald.image=server" -t "$tag" -f Containerfile . >/dev/null
echo "build-image: $tag built in $((SECONDS - start)) s"
# earlier builds of the tag, now untagged
podman image prune --force --filter label=dev.herald.image=server >/dev/null
podman image inspect --format '{{.Id}}' "$tag"
