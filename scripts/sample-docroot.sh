#!/bin/sh
# Create the sample docroot that "make run" serves.
# Usage: sh scripts/sample-docroot.sh DIR
set -eu
dir=$1
mkdir -p "$dir/files"
cat > "$dir/index.html" <<'HTML'
<!DOCTYPE html>
<html>
<head><meta charset="utf-8"><title>nicd</title></head>
<body>
<h1>nicd is serving this directory</h1>
<p>Files to try:</p>
<ul>
<li><a href="files/1k.bin">files/1k.bin</a> (1 KiB)</li>
<li><a href="files/64k.bin">files/64k.bin</a> (64 KiB)</li>
<li><a href="files/1m.bin">files/1m.bin</a> (1 MiB)</li>
<li><a href="hello.txt">hello.txt</a></li>
</ul>
<p>Try <code>curl -r 0-99 http://127.0.0.1:8080/files/1m.bin | wc -c</code>.</p>
</body>
</html>
HTML
echo "Hello from nicd." > "$dir/hello.txt"
head -c 1024 /dev/urandom > "$dir/files/1k.bin"
head -c 65536 /dev/urandom > "$dir/files/64k.bin"
head -c 1048576 /dev/urandom > "$dir/files/1m.bin"
echo "sample docroot written to $dir"
