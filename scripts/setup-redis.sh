#!/usr/bin/env bash
# setup-redis: makes sure redis-server is installed, for the redisstore tests
# and benchmarks. Installs Debian's redis-server with apt-get when it is
# missing (needs root, as in CI). The tests start and stop their own server on
# a free loopback port; this script never starts a daemon.
set -euo pipefail
if command -v redis-server >/dev/null 2>&1; then
  echo "setup-redis: $(redis-server --version)"
  exit 0
fi
if [ "$(id -u)" -ne 0 ]; then
  echo "setup-redis: redis-server is missing and this is not root; install it with: sudo apt-get install -y redis-server (the Redis tests skip without it, and fail under CI=true)" >&2
  [ "${CI:-}" = "true" ] && exit 1
  exit 0
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update
apt-get install -y --no-install-recommends redis-server
# Debian's package may start a system daemon on 6379; the tests do not use it.
if command -v systemctl >/dev/null 2>&1; then systemctl stop redis-server >/dev/null 2>&1 || true; fi
echo "setup-redis: $(redis-server --version)"
