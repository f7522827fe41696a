#!/usr/bin/env bash
# Installs everything the tests need on a fresh Debian or Ubuntu machine that has Node.js 20+, then
# runs the whole suite: `npm ci`, `npm test` and the Citus tests. The README's command, and CI's
# (.ci/run). System packages come from apt-get (with sudo when not root), only when missing.
set -euo pipefail
cd "$(dirname "$0")/.."

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
APT_UPDATED=""
apt_install() {
  if [ -z "$APT_UPDATED" ]; then
    $SUDO apt-get update -qq
    APT_UPDATED=1
  fi
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "$@"
}

# The price preview is tested in a real headless Chromium: Debian's, driven by playwright-core.
if [ ! -x "${CHROMIUM_PATH:-/usr/bin/chromium}" ]; then
  apt_install chromium
fi

# The PostgreSQL store is tested on a real server: a throwaway cluster made with Debian's initdb
# and pg_ctl (test/support/postgresCluster.ts), unless DATABASE_URL names a database to use.
if [ -z "${DATABASE_URL:-}" ] && ! ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 \
  && [ ! -x "${PG_BINDIR:-/nonexistent}/initdb" ]; then
  apt_install postgresql
fi

# The Python recipe (examples/python) runs with the standard library's unittest.
if ! command -v python3 >/dev/null 2>&1; then
  apt_install python3
fi

npm ci --no-audit --no-fund
npm test

# The PostgreSQL store on a real Citus cluster (a coordinator and two workers on this machine):
# scripts/citus.sh installs PostgreSQL 15 and the build tools when missing, and builds Citus once
# from vendor/citus into a cache (a few minutes the first time).
npm run test:citus
