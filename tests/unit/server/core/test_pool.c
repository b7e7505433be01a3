/* Unit tests of src/server/core/pool.c */

#include "server/core/pool.c"
#include "harness.h"

static void
test_spares_are_kept_up_to_keep(void)
{
    nicd_pool_t p;
    void       *b[6];
    int         i;

    nicd_pool_init(&p, 1024, 2, 0);
    for (i = 0; i < 6; i++) {
        b[i] = nicd_pool_get(&p);
        CHECK(b[i] != NULL);
        memset(b[i], 0xab, 1024); /* the whole block is usable */
    }
    CHECK_INT(p.lent, 6);
    for (i = 0; i < 6; i++) {
        nicd_pool_put(&p, b[i]);
    }
    CHECK_INT(p.lent, 0);
    CHECK_INT(p.nspare, 2); /* the rest went back to the allocator */
    /* the last given back comes out first */
    CHECK(nicd_pool_get(&p) == b[1]);
    CHECK(nicd_pool_get(&p) == b[0]);
    CHECK_INT(p.nspare, 0);
    nicd_pool_put(&p, NULL); /* nothing */
    CHECK_INT(p.lent, 2);
    nicd_pool_put(&p, b[0]);
    nicd_pool_put(&p, b[1]);
    nicd_pool_drain(&p);
    CHECK_INT(p.nspare, 0);
}

static void
test_mapped_blocks(void)
{
    nicd_pool_t p;
    char       *b;

    nicd_pool_init(&p, 64 * 1024, 1, 1);
    b = nicd_pool_get(&p);
    CHECK(b != NULL);
    b[0] = 1;
    b[64 * 1024 - 1] = 2;
    nicd_pool_put(&p, b);
    CHECK(nicd_pool_get(&p) == b); /* kept, not unmapped */
    nicd_pool_put(&p, b);
    nicd_pool_drain(&p);
    CHECK_INT(p.nspare, 0);
}

int
main(void)
{
    RUN(test_spares_are_kept_up_to_keep);
    RUN(test_mapped_blocks);
    return harness_report("test_pool");
}
