#!/bin/sh
# Build modules/ngx_http_sendfile_nic_module as a dynamic module for
# Debian's nginx, out of tree: Debian's nginx-dev source is copied to
# BUILD/nginx-src (never written in /usr/share/nginx/src), configured with
# the flags Debian's nginx was built with (conf_flags, so the .so loads
# into it) and --add-dynamic-module, then "make modules".
# Usage: sh scripts/build-module.sh [BUILD]   -> BUILD/ngx_http_sendfile_nic_module.so
set -eu
build=${1:-build}
src=/usr/share/nginx/src
mod=$(pwd)/modules/ngx_http_sendfile_nic_module
if [ ! -f "$src/conf_flags" ]; then
    echo "build-module.sh: $src/conf_flags is missing (Debian's nginx-dev)" >&2
    exit 1
fi
# conf_flags is a bash array assignment: NGX_CONF_FLAGS=( ... )
flags=$(sed -n 's/^NGX_CONF_FLAGS=( *\(.*\) *)$/\1/p' "$src/conf_flags")
work="$build/nginx-src"
stamp="$work/.nicache-configured"
# the library's files, which config lists when nginx is configured: a
# file added or removed since means configuring again
sources=$(ls src/sendfile_nic/*.c src/sendfile_nic/nic/*.c \
          src/sendfile_nic/policy/*.c | tr '\n' ' ')
if [ ! -f "$stamp" ] || [ "$src/conf_flags" -nt "$stamp" ] ||
   [ "$mod/config" -nt "$stamp" ] ||
   [ "$(cat "$stamp")" != "$sources" ]; then
    rm -rf "$work"
    mkdir -p "$work"
    cp -R "$src"/. "$work"/
    (cd "$work" && NICACHE_BUILD="$(cd "$build" && pwd)" \
        ./configure $flags --add-dynamic-module="$mod" >configure.log 2>&1) || {
        echo "build-module.sh: nginx's configure failed; see $work/configure.log" >&2
        exit 1
    }
    printf '%s' "$sources" > "$stamp"
fi
make -C "$work" -f objs/Makefile modules >"$work/make.log" 2>&1 || {
    grep -E "error|Error" "$work/make.log" | head -20 >&2
    echo "build-module.sh: make modules failed; see $work/make.log" >&2
    exit 1
}
cp "$work/objs/ngx_http_sendfile_nic_module.so" "$build/"
echo "$build/ngx_http_sendfile_nic_module.so"
