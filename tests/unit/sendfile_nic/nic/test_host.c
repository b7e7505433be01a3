/*
 * Unit tests of src/sendfile_nic/nic/host.c: the host model's charges for
 * a fixed sequence, computed by hand, and the testbeds.
 */

#include "../../../../src/sendfile_nic/nic/host.c"
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

int
main(void)
{
    RUN(test_charge);
    RUN(test_testbeds);
    return harness_report("test_host");
}
