#!/usr/bin/env bash
# Makes sure the tests of herald-server can run: Debian's chromium and chromium-driver (browser
# tests) and prometheus (PromQlTest).
# Idempotent: does nothing when /usr/bin/chromium and /usr/bin/chromedriver exist. Otherwise installs
# them with apt-get when running as root, or says what to run and fails.
# Run by the herald-server build before its tests (exec-maven-plugin), and by .ci/run.
set -euo pipefail

# Debian's prometheus and promtool: herald-server's PromQlTest runs the documented PromQL
# (docs/prometheus/herald-rules.yml) against a real Prometheus scraping the server.
if [[ ! -x /usr/bin/prometheus || ! -x /usr/bin/promtool ]]; then
  echo "install-test-packages: /usr/bin/prometheus or /usr/bin/promtool is missing; PromQlTest needs them"
  if [[ "$(id -u)" != "0" ]] || ! command -v apt-get >/dev/null; then
    echo "install-test-packages: cannot install here. Run as root: apt-get update && apt-get install -y prometheus" >&2
    exit 1
  fi
  DEBIAN_FRONTEND=noninteractive apt-get update -q
  # the package's service is not started (no init in containers); the test starts its own
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends prometheus
fi

chromium=/usr/bin/chromium
driver=/usr/bin/chromedriver

if [[ -x "$chromium" && -x "$driver" ]]; then
  echo "install-test-packages: chromium and chromedriver present ($("$chromium" --version 2>/dev/null || echo "$chromium"))"
  exit 0
fi

echo "install-test-packages: $chromium or $driver is missing; the console's browser tests need them"
if [[ "$(id -u)" != "0" ]]; then
  echo "install-test-packages: not root, so not installing. Run as root:" >&2
  echo "    apt-get update && apt-get install -y chromium chromium-driver" >&2
  exit 1
fi
if ! command -v apt-get >/dev/null; then
  echo "install-test-packages: no apt-get here; install Chromium and its driver at $chromium and $driver" >&2
  exit 1
fi
echo "install-test-packages: apt-get update && apt-get install -y chromium chromium-driver"
export DEBIAN_FRONTEND=noninteractive
apt-get update -q
apt-get install -y -q --no-install-recommends chromium chromium-driver
echo "install-test-packages: installed $("$chromium" --version 2>/dev/null || echo chromium)"
