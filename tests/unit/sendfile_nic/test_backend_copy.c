/* Unit tests of src/sendfile_nic/backend_copy.c */

#include "sendfile_nic/backend_copy.c"
#include "harness.h"
#include "sendfile_nic/send_helper.h"

static void
test_contract(void)
{
    CHECK_INT(backend_contract(&snic_backend_copy, 0), 0);
}

static void
test_max_chunk(void)
{
    CHECK_INT(backend_contract(&snic_backend_copy, 100000), 0);
}

/* every byte through a transport of the connection's own (TLS) */
static void
test_through_transport(void)
{
    via_transport = 1;
    CHECK_INT(backend_contract(&snic_backend_copy, 0), 0);
    CHECK_INT(backend_contract(&snic_backend_copy, 65536), 0);
    via_transport = 0;
}

int
main(void)
{
    RUN(test_contract);
    RUN(test_max_chunk);
    RUN(test_through_transport);
    return harness_report("test_backend_copy");
}
