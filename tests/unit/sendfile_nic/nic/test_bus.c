/*
 * Unit tests of src/sendfile_nic/nic/bus.c: a fixed sequence accounted by
 * hand, and the calibration of pci64-33 (docs/interconnect.md).
 */

#include "sendfile_nic/nic/bus.c"
#include "harness.h"

static void
test_hand_computed(void)
{
    const snic_bus_t *b = snic_bus_find("pci64-33");
    snic_bus_acct_t   a = {{0}, 0, 0};
    uint64_t          t;

    /*
     * 200 header bytes and 3,000 content bytes from host memory, MSS
     * 1448: 3 packets, 2 ACKs.  Transactions (660 ns each): the header 1;
     * the content 3 (one per packet it spans), in 12 + 2 bursts, so 11
     * further bursts at 60 ns; network headers 3; descriptors 3; ACKs 2.
     * Data: ceil(n / 8) cycles of 30.003 ns.
     *   header   750 +  660            = 1,410
     *   content 11251 + 3*660 + 11*60   = 13,891
     *   net      750 + 3*660            = 2,730
     *   desc     360 + 3*660            = 2,340
     *   acks     510 + 2*660            = 1,830
     * The overhead in bytes: ns * 33.33 MHz * 8 B (0.26664 B/ns), per DMA
     * rounded: 176 + 704 + 528 + 528 + 352.
     */
    t = snic_bus_send(b, &a, 1448, 200, 3000, 0, 0);
    CHECK_INT(a.packets, 3);
    CHECK_INT(a.bytes[SNIC_BUS_HTTP_HEADER], 200);
    CHECK_INT(a.bytes[SNIC_BUS_CONTENT], 3000);
    CHECK_INT(a.bytes[SNIC_BUS_NET_HEADER], 3 * 66);
    CHECK_INT(a.bytes[SNIC_BUS_OTHER], 3 * 32 + 2 * 66);
    CHECK_INT(a.bytes[SNIC_BUS_OVERHEAD], 176 + 704 + 528 + 528 + 352);
    CHECK_INT(t, 1410 + 13891 + 2730 + 2340 + 1830);
    CHECK_INT(a.busy_ns, t);

    /* from NIC memory: no content crosses, packets still do */
    memset(&a, 0, sizeof(a));
    snic_bus_send(b, &a, 1448, 0, 0, 8000, 0);
    CHECK_INT(a.bytes[SNIC_BUS_CONTENT], 0);
    CHECK_INT(a.packets, 6);
    CHECK_INT(a.bytes[SNIC_BUS_NET_HEADER], 6 * 66);
    CHECK_INT(a.bytes[SNIC_BUS_OTHER], 6 * 32 + 3 * 66);

    /* a cache_insert of a block crosses once: a descriptor (4 cycles +
     * 660) and one transaction of 16 bursts (512 cycles + 660 + 15*60) */
    memset(&a, 0, sizeof(a));
    t = snic_bus_insert(b, &a, 4096);
    CHECK_INT(a.bytes[SNIC_BUS_CONTENT], 4096);
    CHECK_INT(a.bytes[SNIC_BUS_OTHER], 32);
    CHECK_INT(a.bytes[SNIC_BUS_OVERHEAD], 176 + 416);
    CHECK_INT(t, 120 + 660 + 15362 + 660 + 15 * 60);
}

/* shares of a workload of 1 MiB bodies with a 250-byte header, with a
 * fraction hit of each body sent from NIC memory */
static void
shares(const snic_bus_t *b, double hit, snic_bus_acct_t *a, uint64_t *total)
{
    uint64_t body = 1 << 20, nic = (uint64_t) (hit * (double) body);
    int      i;

    memset(a, 0, sizeof(*a));
    for (i = 0; i < 100; i++) {
        snic_bus_send(b, a, 1448, 250, body - nic, nic, 0);
    }
    *total = 0;
    for (i = 0; i < SNIC_BUS_NCAT; i++) {
        *total += a->bytes[i];
    }
}

static void
test_calibration(void)
{
    const snic_bus_t *b = snic_bus_find("pci64-33");
    const snic_bus_t *b66 = snic_bus_find("pci64-66");
    snic_bus_acct_t   a, c, d;
    uint64_t          total, ctotal, dtotal;
    double            over, content, fall;

    /* the paper's Figure 4, without caching: overhead about 30 %,
     * content about 60 % of bus traffic */
    shares(b, 0, &a, &total);
    over = (double) a.bytes[SNIC_BUS_OVERHEAD] / (double) total;
    content = (double) a.bytes[SNIC_BUS_CONTENT] / (double) total;
    fprintf(stderr, "pci64-33: overhead %.3f, content %.3f\n", over, content);
    CHECK(over > 0.27 && over < 0.33);
    CHECK(content > 0.57 && content < 0.66);

    /* Figure 7a: when a cache keeps 89 % of the content off the bus, the
     * overhead falls by about a third (the paper: 35 %), not by 89 % */
    shares(b, 0.89, &c, &ctotal);
    fall = 1.0 - (double) c.bytes[SNIC_BUS_OVERHEAD]
                     / (double) a.bytes[SNIC_BUS_OVERHEAD];
    fprintf(stderr, "pci64-33, 89 %% cached: overhead -%.3f, total -%.3f\n",
            fall, 1.0 - (double) ctotal / (double) total);
    CHECK(fall > 0.25 && fall < 0.45);

    /* section 6.3: nearly four times the per-byte overhead at 66 MHz, so
     * about the same bus time per byte as at 33 MHz */
    shares(b66, 0, &d, &dtotal);
    fall = (double) d.bytes[SNIC_BUS_OVERHEAD]
           / (double) a.bytes[SNIC_BUS_OVERHEAD];
    fprintf(stderr, "pci64-66 / pci64-33: overhead bytes %.2f, time %.2f\n",
            fall, (double) d.busy_ns / (double) a.busy_ns);
    CHECK(fall > 3.5 && fall < 4.0);
    CHECK((double) d.busy_ns / (double) a.busy_ns > 0.8);
    CHECK((double) d.busy_ns / (double) a.busy_ns < 1.05);
    (void) dtotal;

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
