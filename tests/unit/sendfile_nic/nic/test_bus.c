/*
 * Unit tests of src/sendfile_nic/nic/bus.c: a fixed sequence accounted by
 * hand, and the calibration of pci64-33 (docs/interconnect.md).
 */

#include "../../../../src/sendfile_nic/nic/bus.c"
#include "harness.h"

static void
test_hand_computed(void)
{
    const snic_bus_t *b = snic_bus_find("pci64-33");
    snic_bus_acct_t   a = {{0}, 0, 0};
    uint64_t          t;

    /*
     * 200 header bytes and 3,000 content bytes from host memory, MSS
     * 1448: 3 packets, 2 ACKs.  Bursts: header 1; content ceil(3000/256)
     * = 12, plus 2 for the packet boundaries; network headers 3 (66 B
     * each); descriptors 3 (32 B each); ACKs 2 (66 B each).  A burst's
     * overhead is 300 ns = 80 bytes of a 64-bit, 33.33 MHz bus.
     */
    t = snic_bus_send(b, &a, 1448, 200, 3000, 0, 0);
    CHECK_INT(a.packets, 3);
    CHECK_INT(a.bytes[SNIC_BUS_HTTP_HEADER], 200);
    CHECK_INT(a.bytes[SNIC_BUS_CONTENT], 3000);
    CHECK_INT(a.bytes[SNIC_BUS_NET_HEADER], 3 * 66);
    CHECK_INT(a.bytes[SNIC_BUS_OTHER], 3 * 32 + 2 * 66);
    CHECK_INT(a.bytes[SNIC_BUS_OVERHEAD], (1 + 14 + 3 + 3 + 2) * 80);
    /* data cycles (ceil(n / 8) at 30 ns) plus 300 ns a burst, per DMA:
     * 750+300, 11251+4200, 750+900, 360+900, 510+600 */
    CHECK_INT(t, 20521);
    CHECK_INT(a.busy_ns, 20521);

    /* from NIC memory: no content crosses, packets still do */
    memset(&a, 0, sizeof(a));
    snic_bus_send(b, &a, 1448, 0, 0, 8000, 0);
    CHECK_INT(a.bytes[SNIC_BUS_CONTENT], 0);
    CHECK_INT(a.packets, 6);
    CHECK_INT(a.bytes[SNIC_BUS_NET_HEADER], 6 * 66);
    CHECK_INT(a.bytes[SNIC_BUS_OTHER], 6 * 32 + 3 * 66);

    /* a cache_insert of a block crosses once: descriptor + 16 bursts */
    memset(&a, 0, sizeof(a));
    t = snic_bus_insert(b, &a, 4096);
    CHECK_INT(a.bytes[SNIC_BUS_CONTENT], 4096);
    CHECK_INT(a.bytes[SNIC_BUS_OTHER], 32);
    CHECK_INT(a.bytes[SNIC_BUS_OVERHEAD], 80 + 1280);
    CHECK_INT(t, 120 + 300 + 15362 + 16 * 300);
}

static void
test_calibration(void)
{
    /* a large-file static workload without caching: 1 MiB bodies with a
     * 250-byte header; the paper's Figure 4: overhead about 30 %,
     * content about 60 % of bus traffic */
    const snic_bus_t *b = snic_bus_find("pci64-33");
    snic_bus_acct_t   a = {{0}, 0, 0};
    uint64_t          total = 0;
    int               i;
    double            over, content;

    for (i = 0; i < 100; i++) {
        snic_bus_send(b, &a, 1448, 250, 1 << 20, 0, 0);
    }
    for (i = 0; i < SNIC_BUS_NCAT; i++) {
        total += a.bytes[i];
    }
    over = (double) a.bytes[SNIC_BUS_OVERHEAD] / (double) total;
    content = (double) a.bytes[SNIC_BUS_CONTENT] / (double) total;
    fprintf(stderr, "pci64-33: overhead %.3f, content %.3f\n", over, content);
    CHECK(over > 0.27 && over < 0.33);
    CHECK(content > 0.57 && content < 0.66);
    CHECK(snic_bus_find("nope") == NULL);
    CHECK(snic_bus_find("pcie4-x16") != NULL);
}

int
main(void)
{
    RUN(test_hand_computed);
    RUN(test_calibration);
    return harness_report("test_bus");
}
