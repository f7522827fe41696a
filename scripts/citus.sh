#!/usr/bin/env bash
# Builds Citus once from the source tree named by CITUS_SRC and installs it into a private copy of
# the machine's PostgreSQL 15 (nothing is written under /usr), then prints that copy's bin directory
# on the last line of its output. Later runs find the copy in the cache and only print the line.
#
#   CITUS_SRC        a Citus 13.2 source tree for PostgreSQL 15: a directory with `configure`, a
#                    directory holding one citus-*.tar.gz, or the .tar.gz itself (default: the
#                    repository's vendor/citus)
#   CITUS_CACHE_DIR  where the builds are kept (default: $XDG_CACHE_HOME or ~/.cache, then
#                    imagegen-pricing; /var/cache/imagegen-pricing as root, so that the `postgres`
#                    user the servers run as can read it)
#   PG_CONFIG        the pg_config of the PostgreSQL to build for (default: PostgreSQL 15's)
#
# The private copy is /usr/lib/postgresql/15 and /usr/share/postgresql/15 copied under
# <cache>/<key>/root, plus `make install DESTDIR=<cache>/<key>/root`: PostgreSQL finds its share and
# lib directories relative to its binary, so the copied `postgres` loads citus.so and its extension
# files from the copy. The key is the Citus version, the PostgreSQL version and the source's digest.
set -euo pipefail

fail() {
  echo "scripts/citus.sh: $*" >&2
  exit 1
}

if [ -z "${CITUS_SRC:-}" ]; then
  CITUS_SRC="$(cd "$(dirname "$0")/.." && pwd)/vendor/citus"
fi
if [ -z "${CITUS_SRC:-}" ]; then
  fail "CITUS_SRC is not set: set it to a Citus 13.2 source tree for PostgreSQL 15 (a directory with configure, a directory holding citus-*.tar.gz, or the .tar.gz itself)"
fi
[ -e "$CITUS_SRC" ] || fail "CITUS_SRC=$CITUS_SRC does not exist"

PG_CONFIG="${PG_CONFIG:-/usr/lib/postgresql/15/bin/pg_config}"

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi

# The build's Debian packages: the server and its headers together (their minor versions must
# match: the Citus source uses the headers' declarations), and the libraries Citus links.
PACKAGES=(postgresql-15 postgresql-server-dev-15 build-essential libkrb5-dev liblz4-dev libzstd-dev
  libcurl4-openssl-dev libselinux1-dev libpam0g-dev libxslt1-dev libssl-dev libreadline-dev)
install_packages() {
  local missing=()
  for p in "${PACKAGES[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  # Same minor version for server and headers: an older server is upgraded with the headers.
  local server headers
  server="$(dpkg-query -W -f='${Version}' postgresql-15 2>/dev/null || true)"
  headers="$(dpkg-query -W -f='${Version}' postgresql-server-dev-15 2>/dev/null || true)"
  if [ ${#missing[@]} -eq 0 ] && [ "$server" = "$headers" ]; then return; fi
  echo "scripts/citus.sh: installing ${missing[*]:-postgresql-15 postgresql-server-dev-15 (same version)}" >&2
  $SUDO apt-get update -qq >&2
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${PACKAGES[@]}" >&2
}

if [ -n "${CITUS_CACHE_DIR:-}" ]; then
  CACHE="$CITUS_CACHE_DIR"
elif [ "$(id -u)" -eq 0 ]; then
  CACHE=/var/cache/imagegen-pricing
else
  CACHE="${XDG_CACHE_HOME:-$HOME/.cache}/imagegen-pricing"
fi

# The source: a tarball (named, or the one in the directory), or an unpacked tree.
TARBALL=""
TREE=""
if [ -f "$CITUS_SRC" ]; then
  TARBALL="$CITUS_SRC"
elif [ -x "$CITUS_SRC/configure" ]; then
  TREE="$CITUS_SRC"
else
  shopt -s nullglob
  tarballs=("$CITUS_SRC"/citus-*.tar.gz)
  shopt -u nullglob
  [ ${#tarballs[@]} -eq 1 ] || fail "CITUS_SRC=$CITUS_SRC holds neither configure nor exactly one citus-*.tar.gz"
  TARBALL="${tarballs[0]}"
fi

if [ -n "$TARBALL" ]; then
  VERSION="$(basename "$TARBALL" | sed -E 's/^citus-([0-9][0-9.]*[0-9]).*/\1/')"
  DIGEST="$(sha256sum "$TARBALL" | cut -c1-12)"
else
  VERSION="$(sed -nE "s/^PACKAGE_VERSION='([^']*)'.*/\1/p" "$TREE/configure")"
  DIGEST="$(cd "$TREE" && find . -type f \( -name '*.c' -o -name '*.h' -o -name '*.sql' -o -name configure \) -print0 \
    | sort -z | xargs -0 sha256sum | sha256sum | cut -c1-12)"
fi
[ -n "$VERSION" ] || fail "cannot tell the Citus version of $CITUS_SRC"

install_packages
[ -x "$PG_CONFIG" ] || fail "$PG_CONFIG is missing: install postgresql-server-dev-15"
PG_VERSION="$("$PG_CONFIG" --version | sed -E 's/^PostgreSQL ([0-9.]+).*/\1/')"
PG_BINDIR="$("$PG_CONFIG" --bindir)"
PG_PKGLIBDIR="$("$PG_CONFIG" --pkglibdir)"
PG_SHAREDIR="$("$PG_CONFIG" --sharedir)"
PG_PREFIX="$(dirname "$PG_BINDIR")"

KEY="citus-$VERSION-pg$PG_VERSION-$DIGEST"
OUT="$CACHE/$KEY"
ROOT="$OUT/root"
BIN="$ROOT$PG_BINDIR"

if [ -f "$OUT/done" ] && [ -x "$BIN/postgres" ] && [ -f "$ROOT$PG_PKGLIBDIR/citus.so" ]; then
  echo "$BIN"
  exit 0
fi

echo "scripts/citus.sh: building Citus $VERSION for PostgreSQL $PG_VERSION into $OUT (a few minutes)" >&2
rm -rf "$OUT"
mkdir -p "$OUT/build"
if [ -n "$TARBALL" ]; then
  tar xzf "$TARBALL" -C "$OUT/build"
else
  cp -a "$TREE/." "$OUT/build/src"
fi
SRC_DIR="$(find "$OUT/build" -mindepth 1 -maxdepth 2 -name configure -printf '%h\n' | head -n 1)"
[ -n "$SRC_DIR" ] || fail "no configure in the unpacked source of $CITUS_SRC"

(
  cd "$SRC_DIR"
  ./configure PG_CONFIG="$PG_CONFIG" >"$OUT/configure.log" 2>&1 || { tail -n 40 "$OUT/configure.log" >&2; exit 1; }
  # with_llvm=no: no JIT bitcode, which would double the build for nothing the store needs.
  make -j"${CITUS_BUILD_JOBS:-2}" with_llvm=no >"$OUT/make.log" 2>&1 || { tail -n 40 "$OUT/make.log" >&2; exit 1; }
  mkdir -p "$ROOT$(dirname "$PG_PREFIX")" "$ROOT$(dirname "$PG_SHAREDIR")"
  cp -a "$PG_PREFIX" "$ROOT$PG_PREFIX"
  cp -a "$PG_SHAREDIR" "$ROOT$PG_SHAREDIR"
  make install with_llvm=no DESTDIR="$ROOT" >"$OUT/install.log" 2>&1 || { tail -n 40 "$OUT/install.log" >&2; exit 1; }
)
rm -rf "$OUT/build"
# The servers run as the `postgres` user when the caller is root: it must read the copy.
chmod -R a+rX "$OUT"
[ -f "$ROOT$PG_PKGLIBDIR/citus.so" ] || fail "make install left no citus.so in $ROOT$PG_PKGLIBDIR"
touch "$OUT/done"
echo "$BIN"
