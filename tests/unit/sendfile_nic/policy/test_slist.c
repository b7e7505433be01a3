/* Unit tests of src/sendfile_nic/policy/slist.c: the slot list */

#include "sendfile_nic/policy/slist.c"
#include "harness.h"

static void
test_slist(void)
{
    snic_slist_t l;

    CHECK_INT(snic_slist_init(&l, 4), 0);
    snic_slist_push_head(&l, 2);
    snic_slist_push_head(&l, 0);
    snic_slist_push_head(&l, 3); /* 3 0 2 */
    CHECK(l.head == 3 && l.tail == 2 && l.count == 3);
    snic_slist_unlink(&l, 0); /* 3 2 */
    CHECK(l.next[3] == 2 && l.prev[2] == 3);
    snic_slist_unlink(&l, 2); /* 3 */
    CHECK(l.head == 3 && l.tail == 3 && l.count == 1);
    snic_slist_unlink(&l, 3);
    CHECK(l.head == SNIC_SLOT_NONE && l.tail == SNIC_SLOT_NONE);
    snic_slist_free(&l);
}

int
main(void)
{
    RUN(test_slist);
    return harness_report("test_slist");
}
