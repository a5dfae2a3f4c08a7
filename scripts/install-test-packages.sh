#!/usr/bin/env bash
# Makes sure the tests that need programs from Debian can run:
#   - the console's browser tests (herald-server): chromium and chromium-driver;
#   - the image smoke test (herald-deploy): podman, runc (crun refuses these machines' hybrid
#     cgroups), slirp4netns (the container's network, on the host's loopback) and mmdebstrap (the
#     image's base, from Debian packages);
#   - PromQlTest (herald-server): prometheus and its promtool, to evaluate the documented PromQL
#     (docs/prometheus/herald-rules.yml) against a real Prometheus (the test starts its own; the
#     package's service is not needed).
# Idempotent: does nothing when all are present. Otherwise installs the missing packages with apt-get
# when running as root, or says what to run and fails.
# Run by the herald-server and herald-deploy builds before their tests (exec-maven-plugin), and by .ci/run.
set -euo pipefail

missing=()
[[ -x /usr/bin/chromium ]] || missing+=(chromium)
[[ -x /usr/bin/chromedriver ]] || missing+=(chromium-driver)
[[ -x /usr/bin/prometheus && -x /usr/bin/promtool ]] || missing+=(prometheus)
for command in podman runc slirp4netns mmdebstrap; do
  command -v "$command" >/dev/null || missing+=("$command")
done

if (( ${#missing[@]} == 0 )); then
  echo "install-test-packages: chromium, chromedriver, prometheus, podman, runc, slirp4netns, mmdebstrap present ($(/usr/bin/chromium --version 2>/dev/null || echo chromium); $(podman --version))"
  exit 0
fi

echo "install-test-packages: missing ${missing[*]}; the browser, Prometheus and container tests need them"
if [[ "$(id -u)" != "0" ]]; then
  echo "install-test-packages: not root, so not installing. Run as root:" >&2
  echo "    apt-get update && apt-get install -y --no-install-recommends ${missing[*]}" >&2
  exit 1
fi
if ! command -v apt-get >/dev/null; then
  echo "install-test-packages: no apt-get here; install ${missing[*]}" >&2
  exit 1
fi
echo "install-test-packages: apt-get update && apt-get install -y ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
start=$SECONDS
apt-get update -q
apt-get install -y -q --no-install-recommends "${missing[@]}"
echo "install-test-packages: installed ${missing[*]} in $((SECONDS - start)) s"
