/*
 * Unit tests of src/sendfile_nic/nic/host.c: the host model's charges for
 * a fixed sequence, computed by hand, and the testbeds.
 */

#include <string.h>

#include "sendfile_nic/nic/host.c"
#include "harness.h"

static void
test_charge(void)
{
    const snic_testbed_t *amd = snic_testbed_find("amd33");
    snic_host_acct_t      a = {0, 0};
    uint64_t              t;

    CHECK(amd != NULL);
    /* 3 responses, 10 packets, 5,000 bytes DMAed from main memory:
     * 3 * 16,300 + 10 * 5,900 + 5,000 * 0.80 = 111,900 ns */
    t = snic_host_charge(&amd->host, &a, 3, 10, 5000);
    CHECK_INT(t, 111900);
    CHECK_INT(a.responses, 3);
    CHECK_INT(a.busy_ns, 111900);
    /* a packet alone, then a byte alone: the costs add */
    t = snic_host_charge(&amd->host, &a, 0, 1, 0);
    CHECK_INT(t, 5900);
    t = snic_host_charge(&amd->host, &a, 0, 0, 1000);
    CHECK_INT(t, 800);
    CHECK_INT(a.busy_ns, 111900 + 5900 + 800);
    CHECK(snic_host_modelled(&amd->host));
}

static void
test_testbeds(void)
{
    const snic_testbed_t *t;
    snic_host_t           none = {0, 0, 0};

    /* every testbed names a bus that exists and models a host */
    for (t = snic_testbeds; t->name != NULL; t++) {
        CHECK(t->bus != NULL && snic_bus_find(t->bus) != NULL);
        CHECK(snic_host_modelled(&t->host));
    }
    CHECK(!snic_host_modelled(&none));
    CHECK(snic_testbed_find("amd66") != NULL);
    CHECK_STR(snic_testbed_find("amd66")->bus, "pci64-66");
    CHECK(snic_testbed_find("pentium") == NULL);
}

static void
test_memory(void)
{
    const snic_testbed_t *plain = snic_testbed_find("pcie5-400g");
    const snic_testbed_t *tls = snic_testbed_find("rome-400g-tls");
    const snic_testbed_t *off = snic_testbed_find("rome-400g-nictls");
    snic_mem_acct_t       a = {0, 0};
    snic_mem_t            none = {0, 0, 0};
    uint64_t              t;

    CHECK(plain != NULL && tls != NULL && off != NULL);
    /* plain, page cache: 1,000 bytes from host memory are read once by
     * the DMA, 500 inserted once, 100 of headers written and read:
     * 1,000 + 500 + 200 = 1,700 DRAM bytes, at 270 GB/s 6.3 ns */
    t = snic_mem_charge(&plain->mem, &a, 1000, 500, 100);
    CHECK_INT(a.dram_bytes, 1700);
    CHECK_INT(t, 6);
    /* software TLS from storage: host bytes take fill + DMA + 2 TLS
     * passes (4), inserts fill + DMA (2): 4,000 + 1,000 + 200 */
    memset(&a, 0, sizeof(a));
    t = snic_mem_charge(&tls->mem, &a, 1000, 500, 100);
    CHECK_INT(a.dram_bytes, 5200);
    CHECK_INT(t, 43); /* 5,200 B at 120 GB/s */
    /* NIC TLS offload: the TLS passes go */
    memset(&a, 0, sizeof(a));
    snic_mem_charge(&off->mem, &a, 1000, 500, 100);
    CHECK_INT(a.dram_bytes, 3200);
    /* Netflix's figure the model is calibrated on: memory-bound at 240
     * Gb/s with software TLS (4 passes), so at 400 Gb/s of line rate the
     * offload (2 passes) leaves memory to spare */
    CHECK(tls->mem.bw / 4 * 8 / 1e9 > 239 && tls->mem.bw / 4 * 8 / 1e9 < 241);
    CHECK(off->mem.bw / 2 * 8 / 1e9 > off->line_gbps);
    /* not modelled: bytes counted, no time */
    memset(&a, 0, sizeof(a));
    CHECK_INT(snic_mem_charge(&none, &a, 1000, 0, 0), 0);
    CHECK_INT(a.dram_bytes, 1000);
}

int
main(void)
{
    RUN(test_charge);
    RUN(test_testbeds);
    RUN(test_memory);
    return harness_report("test_host");
}
