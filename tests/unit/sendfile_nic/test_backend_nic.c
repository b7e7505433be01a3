/*
 * Unit tests of src/sendfile_nic/backend_nic.c: the pacing arithmetic for
 * a fixed sequence computed by hand, and the content counters (saved
 * against crossed) for sends whose hits are known.  (backend_contract()'s
 * truncation case does not apply: a cache rightly serves the blocks of a
 * file handle whose revision did not change; the server's handles come
 * from the request's own stat.)
 */

#include "sendfile_nic/backend_nic.c"
#include "harness.h"
#include "sendfile_nic/send_helper.h"
#include "sendfile_nic/snic_nic.h"

static nic_state_t *
start(const snic_param_t *p, int n)
{
    snic_options_t opt;
    void          *st = NULL;
    char           err[128];

    memset(&opt, 0, sizeof(opt));
    opt.params = p;
    opt.nparams = n;
    if (nic_init(&opt, &st, err, sizeof(err)) != 0) {
        fprintf(stderr, "nic_init: %s\n", err);
        return NULL;
    }
    return st;
}

/* an instance of the nic backend with the parameters p; its state */
static nic_state_t *
start_instance(snic_instance_t *in, const snic_param_t *p, int n)
{
    snic_options_t opt;
    char           err[128];

    memset(&opt, 0, sizeof(opt));
    opt.params = p;
    opt.nparams = n;
    if (snic_instance_start(in, &snic_backend_nic, &opt, err, sizeof(err))
        != 0) {
        fprintf(stderr, "snic_instance_start: %s\n", err);
        return NULL;
    }
    return in->state;
}

static void
test_pacing(void)
{
    snic_param_t p[] = {{"nic_testbed", "amd33"}, {"nic_bus_limit", "on"}};
    nic_state_t *s = start(p, 2);
    uint64_t     now = 10000000000ull, t[PACE_N];
    int          by = -1;

    CHECK(s != NULL);
    if (s == NULL) {
        return;
    }
    CHECK_STR(s->bus->name, "pci64-33");
    CHECK(s->host.req_ns == 16300.0);
    /* bus time counts 1 / 0.95 of itself: 950 us of bus is 1 ms */
    CHECK_INT(snic_nic_bus_pace(s, 950000), 1000000);

    /* idle clocks start the slack (1 ms) behind: 100 us of bus and
     * 500 us of host fit without waiting */
    t[PACE_BUS] = 100000;
    t[PACE_HOST] = 500000;
    CHECK_INT(pace_at(s, t, now, &by), 0);
    CHECK_INT(s->clock[PACE_BUS], now - 900000);
    CHECK_INT(s->clock[PACE_HOST], now - 500000);
    /* 1 ms more of host: 500 us ahead, 250 us past the queue allowance */
    t[PACE_BUS] = 0;
    t[PACE_HOST] = 1000000;
    CHECK_INT(pace_at(s, t, now, &by), 250000);
    CHECK_INT(by, PACE_HOST);
    /* asked again 100 us later: 150 us to go */
    CHECK_INT(pace_at(s, NULL, now + 100000, &by), 150000);
    /* 2 ms of bus: the bus is now furthest ahead, 1.1 ms */
    t[PACE_BUS] = 2000000;
    t[PACE_HOST] = 0;
    CHECK_INT(pace_at(s, t, now, &by), 850000);
    CHECK_INT(by, PACE_BUS);
    /* long idle: a clock never lags more than the slack */
    t[PACE_BUS] = t[PACE_HOST] = 0;
    CHECK_INT(pace_at(s, t, now + 60000000000ull, &by), 0);
    CHECK_INT(s->clock[PACE_HOST], now + 60000000000ull - 1000000);
    nic_fini(s);
}

/* send [off, off + len) of f on a fresh connection of s */
static long
send_range(snic_instance_t *in, snic_file_t *f, off_t off, size_t len,
           char *out, size_t cap)
{
    int  tx, rx, agains;
    long got;

    if (small_pair(&tx, &rx) != 0) {
        return -1;
    }
    got = send_all(in, tx, rx, "", f, off, len, out, cap, &agains);
    close(tx);
    close(rx);
    return got;
}

static void
test_saved_bytes(void)
{
    snic_param_t    p[] = {{"nic_cache_size", "64k"}};
    snic_instance_t in;
    snic_file_t     file;
    struct stat     st;
    nic_state_t    *s;
    char            path[64], *out;
    size_t          size = 3 * 4096 + 1000, cap = 65536;
    int             fd;

    s = start_instance(&in, p, 1);
    CHECK(s != NULL);
    if (s == NULL) {
        return;
    }
    out = malloc(cap);
    fd = pattern_file(size, path, sizeof(path));
    fstat(fd, &st);
    snic_file_init(&file, fd, &st);
    /* the inclusion property wants the blocks in the page cache */
    CHECK(pread(fd, out, size, 0) == (ssize_t) size);

    /* first: four misses, all inserted; nothing saved, all crossed */
    CHECK_INT(send_range(&in, &file, 0, size, out, cap), size);
    CHECK(pattern_ok(out, 0, size));
    CHECK_INT(s->nics[0].c.misses, 4);
    CHECK_INT(s->nics[0].c.inserts, 4);
    CHECK_INT(s->nics[0].c.cached_bytes, size);
    CHECK_INT(s->nics[0].c.saved_bytes, 0);
    CHECK_INT(s->nics[0].c.insert_bytes, size);

    /* again: four hits, every byte saved */
    CHECK_INT(send_range(&in, &file, 0, size, out, cap), size);
    CHECK(pattern_ok(out, 0, size));
    CHECK_INT(s->nics[0].c.hits, 4);
    CHECK_INT(s->nics[0].c.saved_bytes, size);

    /* a range inside blocks 1 and 2 (both cached): saved byte for byte,
     * nothing crosses */
    CHECK_INT(send_range(&in, &file, 5000, 4000, out, cap), 4000);
    CHECK(pattern_ok(out, 5000, 4000));
    CHECK_INT(s->nics[0].c.saved_bytes, size + 4000);
    CHECK_INT(s->nics[0].c.insert_bytes, size);

    /* the report says the same */
    {
        char   rep[8192];
        size_t n = snic_nic_report(s, SNIC_REPORT_JSON, rep, sizeof(rep));

        CHECK(n < sizeof(rep));
        CHECK(strstr(rep, "\"saved_bytes\": 17288") != NULL);
        CHECK(strstr(rep, "\"crossed_bytes\": 13288") != NULL);
        CHECK(strstr(rep, "\"limited_by\": \"none\"") != NULL);
    }
    close(fd);
    unlink(path);
    free(out);
    snic_instance_stop(&in);
}

/* through a transport of the connection's own (TLS): the same bytes
 * from NIC memory, the same counters */
static void
test_saved_bytes_through_transport(void)
{
    via_transport = 1;
    test_saved_bytes();
    via_transport = 0;
}

/*
 * snic_nic_map (the nginx module's way in): blocks adjacent in the file
 * and in NIC memory make one piece, its slots pinned (not replaced) until
 * unpinned; max pieces stops the walk without counting a block twice.
 * A cache of four slots, LRU.
 */
static void
test_map_coalesces_and_pins(void)
{
    snic_param_t    p[] = {{"nic_cache_size", "16k"}};
    snic_instance_t in;
    snic_conn_t     c;
    snic_file_t     file, f2;
    snic_piece_t    pc[4];
    struct stat     st;
    nic_state_t    *s;
    char            path[64], buf[3 * 4096 + 1000];
    size_t          size = sizeof(buf), mapped;
    int             fd, n;

    s = start_instance(&in, p, 1);
    CHECK(s != NULL);
    if (s == NULL) {
        return;
    }
    CHECK_INT(snic_dir_pins_init(s->nics[0].dir), 0);
    memset(&c, 0, sizeof(c));
    c.nic = -1;
    snic_conn_open(&in, &c);
    fd = pattern_file(size, path, sizeof(path));
    fstat(fd, &st);
    snic_file_init(&file, fd, &st);
    f2 = file;
    f2.id_ino += 1; /* another file with the same bytes */
    CHECK(pread(fd, buf, size, 0) == (ssize_t) size);

    /* cold: four inserts into slots 0-3, one piece from NIC memory */
    n = snic_nic_map(&in, &c, &file, 0, size, pc, 4, &mapped);
    CHECK_INT(n, 1);
    CHECK_INT(mapped, size);
    CHECK(pc[0].from_nic && pc[0].fd == snic_device_fd(s->nics[0].dev));
    CHECK_INT(pc[0].len, size);
    CHECK_INT(pc[0].slot, 0);
    CHECK_INT(pc[0].nslots, 4);
    CHECK_INT(pc[0].off, snic_device_offset(s->nics[0].dev, 0));
    CHECK_INT(s->nics[0].c.misses, 4);
    CHECK_INT(s->nics[0].c.inserts, 4);
    memset(buf, 0, size);
    CHECK(pread(pc[0].fd, buf, size, pc[0].off) == (ssize_t) size);
    CHECK(pattern_ok(buf, 0, size));

    snic_nic_unpin(&in, &c, pc[0].slot, pc[0].nslots);

    /* another file's block replaces the least recent one (block 0) */
    n = snic_nic_map(&in, &c, &f2, 0, 4096, pc, 4, &mapped);
    CHECK(n == 1 && pc[0].from_nic && pc[0].slot == 0 && pc[0].nslots == 1);
    snic_nic_unpin(&in, &c, pc[0].slot, pc[0].nslots);

    /* a range inside blocks 1 and 2: one piece of two slots, two hits */
    n = snic_nic_map(&in, &c, &file, 5000, 4000, pc, 4, &mapped);
    CHECK_INT(n, 1);
    CHECK_INT(pc[0].slot, 1);
    CHECK_INT(pc[0].nslots, 2);
    CHECK_INT(pc[0].off, snic_device_offset(s->nics[0].dev, 1) + 904);
    CHECK_INT(s->nics[0].c.hits, 2);
    snic_nic_unpin(&in, &c, pc[0].slot, pc[0].nslots);

    /* max 1: block 0 only (a miss, into slot 3, block 3's); then blocks
     * 1-2 (slots 1-2) and 3 (a miss, into slot 0): two pieces */
    n = snic_nic_map(&in, &c, &file, 0, size, pc, 1, &mapped);
    CHECK(n == 1 && mapped == 4096 && pc[0].slot == 3);
    snic_nic_unpin(&in, &c, pc[0].slot, pc[0].nslots);
    n = snic_nic_map(&in, &c, &file, 4096, size - 4096, pc, 4, &mapped);
    CHECK_INT(n, 2);
    CHECK_INT(mapped, size - 4096);
    CHECK(pc[0].slot == 1 && pc[0].nslots == 2 && pc[0].len == 8192);
    CHECK(pc[1].slot == 0 && pc[1].nslots == 1 && pc[1].len == 1000);
    snic_nic_unpin(&in, &c, pc[0].slot, pc[0].nslots);
    snic_nic_unpin(&in, &c, pc[1].slot, pc[1].nslots);
    /* each block counted once: 4 + 1 + 1 + 1 misses, 2 + 2 hits */
    CHECK_INT(s->nics[0].c.misses, 7);
    CHECK_INT(s->nics[0].c.hits, 4);

    /* the whole file, held: slots 3, 1-2, 0 pinned, so another file's
     * block goes from the file; once they are unpinned, from NIC memory */
    n = snic_nic_map(&in, &c, &file, 0, size, pc, 4, &mapped);
    CHECK_INT(n, 3);
    CHECK_INT(mapped, size);
    n = snic_nic_map(&in, &c, &f2, 0, 4096, pc + 3, 1, &mapped);
    CHECK(n == 1 && !pc[3].from_nic && pc[3].fd == fd && pc[3].nslots == 0);
    CHECK_INT(s->nics[0].c.fallbacks[FB_PINNED], 1);
    for (n = 0; n < 3; n++) {
        snic_nic_unpin(&in, &c, pc[n].slot, pc[n].nslots);
    }
    n = snic_nic_map(&in, &c, &f2, 0, 4096, pc, 1, &mapped);
    CHECK(n == 1 && pc[0].from_nic && pc[0].nslots == 1);
    CHECK_INT(s->nics[0].c.fallbacks[FB_PINNED], 1);
    snic_nic_unpin(&in, &c, pc[0].slot, pc[0].nslots);

    snic_conn_close(&in, &c);
    close(fd);
    unlink(path);
    snic_instance_stop(&in);
}

static void
test_bad_testbed(void)
{
    snic_param_t   p[] = {{"nic_testbed", "pentium"}};
    snic_options_t opt;
    void          *st = NULL;
    char           err[256];

    memset(&opt, 0, sizeof(opt));
    opt.params = p;
    opt.nparams = 1;
    CHECK_INT(nic_init(&opt, &st, err, sizeof(err)), -1);
    CHECK(strstr(err, "pentium") != NULL && strstr(err, "amd33") != NULL);
}

/* the settings beside a testbed describe this server, in any order:
 * the bus and the memory bandwidth written before the testbed win too */
static void
test_testbed_and_its_overrides(void)
{
    snic_param_t    p[] = {{"nic_bus", "pcie3-x8"},
                           {"nic_memory_bandwidth", "10g"},
                           {"nic_testbed", "pcie4-server"},
                           {"nic_mss", "9000"}};
    snic_instance_t in;
    nic_state_t    *s = start_instance(&in, p, 4);

    CHECK(s != NULL);
    if (s == NULL) {
        return;
    }
    CHECK(strcmp(s->bus->name, "pcie3-x8") == 0);
    CHECK(strcmp(s->testbed->name, "pcie4-server") == 0);
    CHECK(s->mem.bw == 10.0 * (1 << 30));
    CHECK_INT((int) s->mss, 9000);
    CHECK(s->host.req_ns == s->testbed->host.req_ns);
    snic_instance_stop(&in);
}

/* every directive the backend claims is a row of the one table */
static void
test_directives_are_the_table(void)
{
    int i;

    for (i = 0; i < SNIC_NIC_NPARAMS; i++) {
        CHECK_INT(snic_nic_param_find(snic_backend_nic.directives[i]), i);
    }
    CHECK(snic_backend_nic.directives[SNIC_NIC_NPARAMS] == NULL);
    CHECK(snic_nic_param_ok(SNIC_NIC_P_block_size, "4k"));
    CHECK(!snic_nic_param_ok(SNIC_NIC_P_block_size, "3000"));
    CHECK(!snic_nic_param_ok(SNIC_NIC_P_count, "0"));
    CHECK(!snic_nic_param_ok(SNIC_NIC_P_storage_fill, "1.5"));
    CHECK(snic_nic_param_num(SNIC_NIC_P_cache_size, NULL) == 16 << 20);
}

int
main(void)
{
    RUN(test_pacing);
    RUN(test_saved_bytes);
    RUN(test_saved_bytes_through_transport);
    RUN(test_map_coalesces_and_pins);
    RUN(test_bad_testbed);
    RUN(test_testbed_and_its_overrides);
    RUN(test_directives_are_the_table);
    return harness_report("test_backend_nic");
}
