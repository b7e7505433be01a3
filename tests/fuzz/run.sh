#!/bin/sh
# Run each libFuzzer target for SECONDS (default 60) with ASan+UBSan.  New
# inputs that find new coverage are added to the target's corpus under
# tests/fuzz/corpus/ (commit them); a crash stops with its input saved as
# tests/fuzz/crash-*.
# Usage: sh tests/fuzz/run.sh [SECONDS]
set -eu
[ -f build/config.mk ] || ./configure >/dev/null
seconds=${1:-60}
mkdir -p build/fuzz
objs=""
# every library source: the programs' own (those defining main) stay out
for src in src/sendfile_nic/*.c src/sendfile_nic/*/*.c src/util/*.c src/server/*.c \
    src/server/*/*.c trace_replayer/lib/*.c trace_replayer/lib/*/*.c; do
    [ -f "$src" ] || continue # (a pattern that matched nothing)
    grep -q '^main(' "$src" && continue
    objs="$objs $src"
done
# the libraries ./configure found (TLS, HTTP/2), as the Makefile links them
libs=$(sed -n 's/^\(EVENT\|SSL\|NGHTTP2\|ZLIB\|LUAJIT\|PCRE2\|CRYPT\|URING\)_LIBS = //p' build/config.mk | tr '\n' ' ')
cflags=$(sed -n 's/^\(LUAJIT\|PCRE2\|EVENT\)_CFLAGS = //p' build/config.mk | tr '\n' ' ')
for target in ${TARGETS:-tests/fuzz/fuzz_*.c}; do
    name=$(basename "$target" .c)
    corpus="tests/fuzz/corpus/${name#fuzz_}"
    mkdir -p "$corpus"
    # shellcheck disable=SC2086
    clang -g -O1 -std=gnu11 -D_GNU_SOURCE -Ibuild -Isrc -Itests/unit \
        -Itrace_replayer $cflags \
        -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
        -o "build/fuzz/$name" "$target" $objs $libs -lm -pthread
    echo "fuzz: $name for ${seconds}s, corpus $corpus"
    "build/fuzz/$name" -max_total_time="$seconds" -max_len=4096 \
        -artifact_prefix=tests/fuzz/ "$corpus"
done
