/* Unit tests of src/sendfile_nic/policy/fifo.c, checked by hand */

#include "sendfile_nic/policy/fifo.c"
#include "harness.h"
#include "sendfile_nic/policy/seq.h"

static void
test_by_hand(void)
{
    char v[32];

    /* cap 3: A B C; A hit changes nothing; D evicts A; B hit; E evicts B;
     * A evicts C */
    CHECK_INT(run_seq(&snic_policy_fifo, 3, "ABCADBEA", v), 2);
    CHECK_STR(v, "ABC");
}

int
main(void)
{
    RUN(test_by_hand);
    return harness_report("test_fifo");
}
