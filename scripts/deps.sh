#!/bin/sh
# Install the Debian packages a make target needs, when some are missing.
# Usage: sh scripts/deps.sh GROUP...
#   (groups: build test bench fuzz format module deb plots cluster; plots is what
#   niccompare --plots needs, and the tests, which draw them, take it too)
# Runs "apt-get update" first, then "apt-get install -y --no-upgrade", and
# keeps services from starting while it installs (nginx is a benchmark
# peer, not a service to leave running).
set -eu

pkgs=""
for group in "$@"; do
    case "$group" in
    build) pkgs="$pkgs gcc make libc6-dev pkg-config scdoc libevent-dev libssl-dev libnghttp2-dev libluajit-5.1-dev libpcre2-dev libcrypt-dev zlib1g-dev liburing-dev" ;;
    # perl's TLS and Debian's nginx modules: nginx's own test suite (its
    # harness writes load_module lines for the modules nginx -V names)
    test) pkgs="$pkgs python3 python3-venv nginx-light nginx-dev python3-matplotlib openssl curl nghttp2-client debhelper dpkg-dev perl libio-socket-ssl-perl libnet-ssleay-perl libnginx-mod-http-geoip libnginx-mod-http-image-filter libnginx-mod-http-perl libnginx-mod-http-xslt-filter libnginx-mod-mail libnginx-mod-stream libnginx-mod-stream-geoip" ;;
    module) pkgs="$pkgs nginx-dev nginx-light" ;;
    deb) pkgs="$pkgs debhelper dpkg-dev nginx-dev nginx-light" ;; # make deb
    plots) pkgs="$pkgs python3-matplotlib" ;;
    cluster) pkgs="$pkgs python3 python3-venv" ;; # scripts/venv.sh dask
    bench) pkgs="$pkgs wrk nginx-light lighttpd util-linux h2o nghttp2-client curl openssl time linux-perf" ;;
    fuzz) pkgs="$pkgs clang libclang-rt-dev" ;; # libFuzzer and the sanitizer runtimes
    format) pkgs="$pkgs clang-format" ;;
    *) echo "deps.sh: unknown group $group" >&2; exit 2 ;;
    esac
done

missing=""
for p in $pkgs; do
    if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
        case " $missing " in *" $p "*) ;; *) missing="$missing $p" ;; esac
    fi
done
# h2spec (HTTP/2 conformance) is a Go tool: installed with go install where
# Go is present; its test says it skipped where it is not
install_h2spec() {
    case " $* " in *" test "*) ;; *) return 0 ;; esac
    command -v go >/dev/null 2>&1 || return 0
    command -v h2spec >/dev/null 2>&1 && return 0
    [ -x "$(go env GOPATH)/bin/h2spec" ] && return 0
    echo "deps.sh: go install github.com/summerwind/h2spec/cmd/h2spec@latest"
    go install github.com/summerwind/h2spec/cmd/h2spec@latest ||
        echo "deps.sh: h2spec could not be installed; its test will skip" >&2
}

if [ -z "$missing" ]; then
    install_h2spec "$@"
    exit 0
fi

echo "deps.sh: installing missing Debian packages:$missing"
sudo=""
if [ "$(id -u)" != 0 ]; then
    if command -v sudo >/dev/null 2>&1; then
        sudo=sudo
    else
        echo "deps.sh: run as root (or install sudo) to install:$missing" >&2
        exit 1
    fi
fi

# no service starts during the install (restored afterwards)
policy=/usr/sbin/policy-rc.d
made_policy=""
if [ ! -e "$policy" ]; then
    printf '#!/bin/sh\nexit 101\n' | $sudo tee "$policy" >/dev/null
    $sudo chmod 755 "$policy"
    made_policy=yes
fi
trap '[ -z "$made_policy" ] || $sudo rm -f "$policy"' EXIT

export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -q
# shellcheck disable=SC2086
$sudo apt-get install -y -q --no-upgrade --no-install-recommends $missing
install_h2spec "$@"
