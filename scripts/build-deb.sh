#!/bin/sh
# Build the Debian package of the nginx module (libnginx-mod-http-sendfile-nic)
# from a copy of the repository's tracked files, with packaging/debian as
# its debian/ directory: dpkg-buildpackage -b (unsigned).  The package
# lands in build/deb/.  Usage: sh scripts/build-deb.sh
set -eu
top=$(pwd)
out="$top/build/deb"
src="$out/nicache"
rm -rf "$out"
mkdir -p "$src"
git ls-files -z | xargs -0 cp --parents -t "$src"
rm -rf "$src/debian"
cp -R packaging/debian "$src/debian"
(cd "$src" && dpkg-buildpackage -b -us -uc >"$out/build.log" 2>&1) || {
    tail -30 "$out/build.log" >&2
    echo "build-deb.sh: dpkg-buildpackage failed; see $out/build.log" >&2
    exit 1
}
ls "$out"/*.deb
