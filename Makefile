# nicache: hand-written Makefile.  ./configure runs by itself the first time.
#
#   make              build nicd, the trace tools, the manual pages and the sample docroot
#   make run          build and serve a sample docroot on 127.0.0.1:8080
#   make test         unit + integration tests, then the same under ASan+UBSan
#   make test-unit    the unit tests (and the fuzz corpora replayed) alone
#   make test-integration the integration tests alone
#   make test-asan    the tests under ASan+UBSan only (build-asan/)
#   make deps         install the Debian packages a build needs (DEPS="build test ...")
#   make bench        nicd against Debian's nginx with wrk (bench/server.sh)
#   make bench-policy block accesses/s of each cache replacement policy
#   make bench-splice what gathering a body into a pipe costs from a file, a memfd, a mapping
#   make bench-nicsim nicsim's block accesses/s on the NASA sample (LRU)
#   make bench-replayer nicreplay's requests/s against wrk's (1 KiB file)
#   make bench-nic    the nic backend: emulation cost, cached vs uncached bus
#   make bench-h2     HTTP/2 (h2load) and HTTPS (wrk) against h2o and nginx
#   make bench-traces the trace tools' lines/s and memory on logs of millions of lines
#   make bench-specweb nicload's capacity search against nicd (sendfile, nic, uncached)
#   make bench-peers  nicd against nginx, lighttpd, h2o and the floor, plain and pipelined
#   make bench-sim-peers nicsim against libCacheSim (a venv), every shared policy
#   make bench-builds  this build's nicd against an older revision's (OLD=REV), CPU per request
#   make bench-proxy  nicd as a reverse proxy against nginx, both loaded at once, CPU per request
#   make bench-conns  memory per connection and latency under slowloris, against nginx
#   make module       build the nginx module (modules/, needs nginx-dev)
#   make module-build the same, without installing its packages first
#   make bench-module nginx with the module against nginx without it
#   make fuzz         run the libFuzzer targets for FUZZ_SECONDS each
#   make man          the manual pages (scdoc): nicd(8), nicd.conf(5), the tools' (1)
#   make install      install into $(PREFIX) (DESTDIR honoured): programs, manual
#                     pages, bash completion, configuration, a sample docroot
#   make format       format the C sources with .clang-format
#   make format-check check the C sources against .clang-format
#   make deb          the Debian packages (packaging/)
#   make clean        remove the build directories
#   make distclean    and ./configure's results
#   make help         this list

BUILD ?= build
# (STRINGOP_CFLAGS: ./configure's, for x86-64 GCC)
OPT ?= -O2 -flto=auto $(STRINGOP_CFLAGS)
DEBUG ?= -g
WARN ?= -Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes \
        -Wno-missing-field-initializers -Werror=implicit-function-declaration
SAN ?=
FUZZ_SECONDS ?= 60
PYTHON ?= python3

# build/config.mk comes from ./configure; make it on first use
CONFIG := build/config.mk
ifeq ($(filter deps clean distclean format-check help,$(MAKECMDGOALS)),)
-include $(CONFIG)
endif
PREFIX ?= /usr/local

# one include root for the sources ("server/http/phases.h"), build/ for
# config.h; the trace tools add theirs ("lib/json.h")
CPPFLAGS_ALL = -D_GNU_SOURCE -Ibuild -Isrc $(EVENT_CFLAGS) $(LUAJIT_CFLAGS) $(PCRE2_CFLAGS)
CFLAGS_ALL = -std=gnu11 -pthread $(OPT) $(DEBUG) $(WARN) $(SAN) $(CFLAGS)
LDLIBS_ALL = $(EVENT_LIBS) $(SSL_LIBS) $(NGHTTP2_LIBS) $(LUAJIT_LIBS) $(PCRE2_LIBS) $(CRYPT_LIBS) $(ZLIB_LIBS) $(URING_LIBS) -lm -pthread $(SAN) $(LDFLAGS)

SNIC_SRCS = $(sort $(wildcard src/sendfile_nic/*.c src/sendfile_nic/*/*.c))
UTIL_SRCS = $(sort $(wildcard src/util/*.c))
# nicd's program (src/server/nicd/: main, options, cycle, listening,
# master) apart from the library the tests link
SERVER_SRCS = $(filter-out src/server/nicd/%,$(sort $(wildcard src/server/*.c src/server/*/*.c)))
LIB_OBJS = $(patsubst src/%.c,$(BUILD)/obj/%.o,$(SNIC_SRCS) $(UTIL_SRCS) $(SERVER_SRCS))
UTIL_OBJS = $(patsubst src/%.c,$(BUILD)/obj/%.o,$(UTIL_SRCS))
# the trace library (trace_replayer/lib/) apart from the programs, each of
# which is a folder of its own: main.c and its parts
TRACE_SRCS = $(sort $(wildcard trace_replayer/lib/*.c trace_replayer/lib/*/*.c))
prog_objs = $(patsubst %.c,$(BUILD)/obj/%.o,$(sort $(wildcard trace_replayer/$(1)/*.c)))
# what nicsim shares with the nic backend: the directory and the policies
SIM_OBJS = $(filter $(BUILD)/obj/sendfile_nic/policy/%.o $(BUILD)/obj/sendfile_nic/nic/directory.o $(BUILD)/obj/sendfile_nic/mem.o,$(LIB_OBJS))
# what niccompare needs of the models: the testbeds, buses and policy names
MODEL_OBJS = $(filter $(BUILD)/obj/sendfile_nic/policy/%.o $(BUILD)/obj/sendfile_nic/mem.o $(BUILD)/obj/sendfile_nic/nic/bus.o $(BUILD)/obj/sendfile_nic/nic/host.o,$(LIB_OBJS))
TRACE_OBJS = $(patsubst %.c,$(BUILD)/obj/%.o,$(TRACE_SRCS))
MAIN_OBJ = $(patsubst src/%.c,$(BUILD)/obj/%.o,$(sort $(wildcard src/server/nicd/*.c)))

UNIT_SRCS = $(sort $(wildcard tests/unit/*/test_*.c tests/unit/*/*/test_*.c tests/unit/*/*/*/test_*.c tests/unit/*/*/*/*/test_*.c))
UNIT_BINS = $(patsubst tests/unit/%.c,$(BUILD)/tests/unit/%,$(UNIT_SRCS))

FUZZ_SRCS = $(sort $(wildcard tests/fuzz/fuzz_*.c))

.PHONY: all man deps run test test-unit test-integration test-asan bench module module-build deb bench-module bench-conns \
        bench-policy bench-splice bench-nicsim bench-replayer bench-nic bench-h2 bench-traces bench-specweb bench-peers bench-sim-peers bench-builds bench-proxy fuzz \
        install format format-check clean distclean help

TOOLS = $(BUILD)/nicd $(BUILD)/nictrace $(BUILD)/nicsim $(BUILD)/nicreplay \
        $(BUILD)/niccompare $(BUILD)/niccompare-plot $(BUILD)/nicload \
        $(BUILD)/nicsim-plot $(CLUSTER_TOOLS)
CLUSTER_TOOLS = $(BUILD)/nicreplay-cluster $(BUILD)/nictrace-cluster \
        $(BUILD)/nicsim-cluster

# the floor (bench/floor/floor.h): minimal responders on epoll and, where
# liburing is, io_uring, which bench-peers loads beside the servers (and
# the integration tests check); defined before the rules that need them
FLOOR_BINS = $(BUILD)/bench/floor_epoll $(if $(URING_LIBS),$(BUILD)/bench/floor_uring)

# the manual pages: the programs' from docs/man/, nicd.conf(5) from
# docs/config.md (scripts/conf_man.py), so the reference and the page agree
MAN_PAGES = $(patsubst docs/man/%.scd,$(BUILD)/man/%,$(wildcard docs/man/*.scd)) \
            $(BUILD)/man/nicd.conf.5

all: $(TOOLS) $(MAN_PAGES) $(BUILD)/www/index.html

man: $(MAN_PAGES)

$(BUILD)/man/%: docs/man/%.scd
	@mkdir -p $(dir $@)
	scdoc < $< > $@.tmp && mv $@.tmp $@

$(BUILD)/man/nicd.conf.5: docs/config.md scripts/conf_man.py
	@mkdir -p $(dir $@)
	$(PYTHON) scripts/conf_man.py < docs/config.md > $@.scd
	scdoc < $@.scd > $@.tmp && mv $@.tmp $@ && rm -f $@.scd

$(CONFIG): configure
	@$(MAKE) --no-print-directory deps DEPS=build
	./configure

deps:
	@sh scripts/deps.sh $(or $(DEPS),build)

# rebuild everything when the flags change (redis' trick)
$(BUILD)/.flags: FORCE
	@mkdir -p $(BUILD)
	@echo '$(CC) $(CPPFLAGS_ALL) $(CFLAGS_ALL) $(LDLIBS_ALL)' > $@.tmp
	@cmp -s $@.tmp $@ && rm -f $@.tmp || mv $@.tmp $@
FORCE:

$(BUILD)/obj/%.o: src/%.c $(BUILD)/.flags $(CONFIG)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS_ALL) $(CFLAGS_ALL) -MMD -MP -c -o $@ $<

$(BUILD)/obj/trace_replayer/%.o: trace_replayer/%.c $(BUILD)/.flags $(CONFIG)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS_ALL) -Itrace_replayer $(CFLAGS_ALL) -MMD -MP -c -o $@ $<

$(BUILD)/nicd: $(LIB_OBJS) $(MAIN_OBJ)
	$(CC) $(CFLAGS_ALL) -o $@ $^ $(LDLIBS_ALL)

$(BUILD)/nictrace: $(call prog_objs,nictrace) $(TRACE_OBJS) $(UTIL_OBJS)
	$(CC) $(CFLAGS_ALL) -o $@ $^ $(LDLIBS_ALL) $(ZLIB_LIBS)

$(BUILD)/nicreplay: $(call prog_objs,nicreplay) $(TRACE_OBJS) $(UTIL_OBJS)
	$(CC) $(CFLAGS_ALL) -o $@ $^ $(LDLIBS_ALL) $(ZLIB_LIBS)

$(BUILD)/nicload: $(call prog_objs,nicload) $(TRACE_OBJS) $(UTIL_OBJS)
	$(CC) $(CFLAGS_ALL) -o $@ $^ $(LDLIBS_ALL) $(ZLIB_LIBS)

$(BUILD)/nicsim: $(call prog_objs,nicsim) $(TRACE_OBJS) $(SIM_OBJS) $(UTIL_OBJS)
	$(CC) $(CFLAGS_ALL) -o $@ $^ $(LDLIBS_ALL) $(ZLIB_LIBS)

$(BUILD)/niccompare: $(call prog_objs,niccompare) $(TRACE_OBJS) $(MODEL_OBJS) $(UTIL_OBJS)
	$(CC) $(CFLAGS_ALL) -o $@ $^ $(LDLIBS_ALL) $(ZLIB_LIBS)

# the tools over a Dask cluster (its venv: sh scripts/venv.sh dask); the
# Dask side they share, nicache_cluster.py, goes beside them
$(CLUSTER_TOOLS): $(BUILD)/%-cluster: trace_replayer/cluster/%_cluster.py \
                 $(BUILD)/nicache_cluster.py
	@mkdir -p $(dir $@)
	cp $< $@ && chmod 755 $@

$(BUILD)/nicache_cluster.py: trace_replayer/cluster/nicache_cluster.py
	@mkdir -p $(dir $@)
	cp $< $@

# nicsim --plot runs it from beside itself
$(BUILD)/nicsim-plot: trace_replayer/nicsim/plot.py
	@mkdir -p $(dir $@)
	cp $< $@ && chmod 755 $@

# niccompare --plots runs it from beside itself
$(BUILD)/niccompare-plot: trace_replayer/niccompare/plot.py
	@mkdir -p $(dir $@)
	cp $< $@ && chmod 755 $@

# a unit test #includes the .c it tests, so it links every other object
$(BUILD)/tests/unit/%: tests/unit/%.c tests/unit/harness.h $(LIB_OBJS) $(TRACE_OBJS) $(BUILD)/.flags
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS_ALL) -Itests/unit -Itrace_replayer $(CFLAGS_ALL) -MMD -MP -o $@ $< \
	    $(filter-out $(BUILD)/obj/$(dir $*)$(patsubst test_%,%,$(notdir $*)).o,$(LIB_OBJS) $(TRACE_OBJS)) \
	    $(LDLIBS_ALL) $(ZLIB_LIBS)

# the fuzz targets' inputs replayed as a regression test (no clang needed)
$(BUILD)/tests/fuzz/%: tests/fuzz/%.c tests/fuzz/replay_main.c $(LIB_OBJS) $(TRACE_OBJS) $(BUILD)/.flags
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS_ALL) -Itests/unit -Itrace_replayer $(CFLAGS_ALL) -o $@ $< tests/fuzz/replay_main.c \
	    $(LIB_OBJS) $(TRACE_OBJS) $(LDLIBS_ALL) $(ZLIB_LIBS)

FUZZ_REPLAY = $(patsubst tests/fuzz/%.c,$(BUILD)/tests/fuzz/%,$(FUZZ_SRCS))

$(BUILD)/www/index.html: scripts/sample-docroot.sh
	sh scripts/sample-docroot.sh $(BUILD)/www

run: $(BUILD)/nicd $(BUILD)/www/index.html
	@echo "nicd: serving $(BUILD)/www at http://127.0.0.1:8080/ (Ctrl-C stops)"
	./$(BUILD)/nicd -c conf/nicd.conf --root $(BUILD)/www

test-unit: $(UNIT_BINS) $(FUZZ_REPLAY)
	@sh tests/unit/run.sh $(UNIT_BINS) -- $(FUZZ_REPLAY)

# the nginx module is built and tested wherever nginx-dev is installed
# (deps installs it); without it, its tests say they skipped
test-integration: $(TOOLS) $(MAN_PAGES) $(BUILD)/www/index.html $(FLOOR_BINS)
	@if [ -f /usr/share/nginx/src/conf_flags ]; then \
	    $(MAKE) --no-print-directory module-build; fi
	@NICD=$(BUILD)/nicd $(PYTHON) tests/integration/run.py

MODULE_SO = $(BUILD)/ngx_http_sendfile_nic_module.so

module: $(CONFIG)
	@$(MAKE) --no-print-directory deps DEPS="build module"
	@$(MAKE) --no-print-directory module-build

module-build: $(MODULE_SO)

# the module as a Debian package (packaging/debian, dh --with nginx), built
# from a copy of the tracked files: build/deb/libnginx-mod-http-sendfile-nic_*.deb
deb:
	@$(MAKE) --no-print-directory deps DEPS="build deb"
	sh scripts/build-deb.sh

$(MODULE_SO): $(CONFIG) scripts/build-module.sh $(wildcard modules/ngx_http_sendfile_nic_module/*) $(SNIC_SRCS) $(wildcard src/sendfile_nic/*.h src/sendfile_nic/*/*.h) src/util/size.c
	sh scripts/build-module.sh $(BUILD) >/dev/null

test:
	@$(MAKE) --no-print-directory deps DEPS="build test"
	@$(MAKE) --no-print-directory test-unit test-integration
	@$(MAKE) --no-print-directory test-asan

# the sanitizer run is also the run on nicd's io_uring event loop
# (NICD_EVENTS), where this kernel has it; the first run is libevent's
ASAN_MAKE = $(MAKE) --no-print-directory BUILD=build-asan OPT=-O1 \
	    SAN="-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all"

test-asan:
	@$(MAKE) --no-print-directory deps DEPS="build test"
	@$(ASAN_MAKE) build-asan/nicd
	@ev=$$(build-asan/nicd -V | grep -qx "event loops: .*, io_uring" \
	    && echo io_uring); \
	echo "test-asan: on the $${ev:-libevent (io_uring cannot run here)} event loop"; \
	NICD_EVENTS=$$ev $(ASAN_MAKE) test-unit test-integration

bench-conns: $(BUILD)/nicd
	@$(MAKE) --no-print-directory deps DEPS="build bench"
	sh bench/conns.sh

bench-module: module
	@$(MAKE) --no-print-directory deps DEPS="bench"
	sh bench/module.sh

bench: $(BUILD)/nicd
	@$(MAKE) --no-print-directory deps DEPS="build bench"
	sh bench/server.sh

$(BUILD)/bench/policy_speed: bench/policy_speed.c $(LIB_OBJS) $(BUILD)/.flags
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS_ALL) $(CFLAGS_ALL) -o $@ $< $(LIB_OBJS) $(LDLIBS_ALL)

$(BUILD)/bench/splice_gather: bench/splice_gather.c $(BUILD)/.flags
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS_ALL) $(CFLAGS_ALL) -o $@ $<

$(BUILD)/bench/floor_%: bench/floor/floor_%.c bench/floor/floor.c bench/floor/floor.h $(BUILD)/.flags
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS_ALL) $(CFLAGS_ALL) -o $@ $< bench/floor/floor.c $(if $(findstring uring,$*),$(URING_LIBS))

bench-nic: $(BUILD)/nicd
	@$(MAKE) --no-print-directory deps DEPS="build bench"
	sh bench/nic.sh

bench-h2: $(BUILD)/nicd
	@$(MAKE) --no-print-directory deps DEPS="build bench"
	sh bench/h2.sh

bench-replayer: $(BUILD)/nicd $(BUILD)/nicreplay $(BUILD)/nictrace
	@$(MAKE) --no-print-directory deps DEPS="build bench"
	sh bench/replayer.sh

bench-sim-peers: $(BUILD)/nicsim $(BUILD)/nictrace
	@$(MAKE) --no-print-directory deps DEPS="build bench"
	sh bench/libcachesim.sh

bench-peers: $(BUILD)/nicd $(FLOOR_BINS)
	@$(MAKE) --no-print-directory deps DEPS="build bench"
	sh bench/peers.sh

bench-builds: $(BUILD)/nicd
	@$(MAKE) --no-print-directory deps DEPS="build bench"
	sh bench/builds.sh

bench-proxy: $(BUILD)/nicd
	@$(MAKE) --no-print-directory deps DEPS="build bench"
	sh bench/proxy.sh

bench-specweb: $(BUILD)/nicd $(BUILD)/nicload
	@$(MAKE) --no-print-directory deps DEPS="build bench"
	sh bench/specweb.sh

bench-traces: $(BUILD)/nictrace $(BUILD)/nicsim
	@$(MAKE) --no-print-directory deps DEPS="build bench"
	sh bench/traces.sh

bench-policy: $(BUILD)/bench/policy_speed
	taskset -c 1 $(BUILD)/bench/policy_speed

bench-splice: $(BUILD)/bench/splice_gather
	TMPDIR=$(BUILD) taskset -c 1 $(BUILD)/bench/splice_gather

# the NASA sample (5,314 block accesses a pass with a 16 MiB LRU cache)
# 1,900 times: 10.1 million accesses, trace parsing included
NASA_SAMPLE ?= ../shared/traces/nasa/NASA_access_log_Jul95.first1000
bench-nicsim: $(BUILD)/nicsim
	for i in 1 2 3; do taskset -c 1 $(BUILD)/nicsim --repeat 1900 \
	    --sizes 16m $(NASA_SAMPLE) > /dev/null; done

fuzz:
	@$(MAKE) --no-print-directory deps DEPS="build fuzz"
	@sh tests/fuzz/run.sh $(FUZZ_SECONDS)

COMPLETED = nicd nictrace nicsim nicreplay niccompare nicload nicreplay-cluster \
            nictrace-cluster nicsim-cluster

install: $(TOOLS) $(MAN_PAGES) $(BUILD)/www/index.html
	install -d $(DESTDIR)$(PREFIX)/sbin $(DESTDIR)$(PREFIX)/etc/nicd
	install -m 755 $(BUILD)/nicd $(DESTDIR)$(PREFIX)/sbin/nicd
	install -d $(DESTDIR)$(PREFIX)/bin
	install -m 755 $(BUILD)/nictrace $(BUILD)/nicsim $(BUILD)/nicreplay \
	    $(BUILD)/niccompare $(BUILD)/niccompare-plot $(BUILD)/nicload \
	    $(BUILD)/nicsim-plot $(CLUSTER_TOOLS) $(DESTDIR)$(PREFIX)/bin/
	install -d $(DESTDIR)$(PREFIX)/share/nicache
	install -m 644 $(BUILD)/nicache_cluster.py $(DESTDIR)$(PREFIX)/share/nicache/
	# the configuration, its root the installed sample
	sed 's|^\( *root \)build/www;|\1$(PREFIX)/share/nicd/html;|' conf/nicd.conf \
	    > $(BUILD)/nicd.conf.installed
	install -m 644 $(BUILD)/nicd.conf.installed $(DESTDIR)$(PREFIX)/etc/nicd/nicd.conf
	install -m 644 conf/mime.types conf/specweb99.lua $(DESTDIR)$(PREFIX)/etc/nicd/
	install -d $(DESTDIR)$(PREFIX)/share/nicd/html/files
	install -m 644 $(BUILD)/www/index.html $(BUILD)/www/hello.txt \
	    $(DESTDIR)$(PREFIX)/share/nicd/html/
	install -m 644 $(BUILD)/www/files/* $(DESTDIR)$(PREFIX)/share/nicd/html/files/
	install -d $(DESTDIR)$(PREFIX)/share/man/man1 $(DESTDIR)$(PREFIX)/share/man/man5 \
	    $(DESTDIR)$(PREFIX)/share/man/man8
	install -m 644 $(filter %.1,$(MAN_PAGES)) $(DESTDIR)$(PREFIX)/share/man/man1/
	install -m 644 $(filter %.5,$(MAN_PAGES)) $(DESTDIR)$(PREFIX)/share/man/man5/
	install -m 644 $(filter %.8,$(MAN_PAGES)) $(DESTDIR)$(PREFIX)/share/man/man8/
	install -d $(DESTDIR)$(PREFIX)/share/bash-completion/completions
	for p in $(COMPLETED); do \
	    install -m 644 scripts/nicache.bash-completion \
	        $(DESTDIR)$(PREFIX)/share/bash-completion/completions/$$p; done


# the C sources format and format-check look at
FORMAT_SRCS = $(wildcard src/*/*.c src/*/*.h src/*/*/*.c src/*/*/*.h) \
              $(wildcard trace_replayer/*/*.c trace_replayer/*/*.h) \
              $(wildcard trace_replayer/lib/*/*.c trace_replayer/lib/*/*.h) \
              $(wildcard bench/floor/*.c bench/floor/*.h)

format:
	clang-format -i $(FORMAT_SRCS)

format-check:
	@$(MAKE) --no-print-directory deps DEPS=format
	clang-format --dry-run -Werror $(FORMAT_SRCS)

clean:
	rm -rf build/obj build/nicd build/tests build/www build-asan

distclean:
	rm -rf build build-asan

help:
	@sed -n '3,/^$$/s/^#//p' Makefile

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)
