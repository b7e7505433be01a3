/* Unit tests of src/sendfile_nic/backend.c: the table and the instance */

#include "sendfile_nic/backend.c"
#include "harness.h"

static void
test_table(void)
{
    const snic_backend_t *const *b;
    int                          n = 0;

    for (b = snic_backends; *b != NULL; b++) {
        CHECK((*b)->name != NULL && (*b)->send != NULL);
        CHECK(snic_backend_find((*b)->name) == *b);
        n++;
    }
    CHECK(n >= 2);
    CHECK_STR(snic_backend_default()->name, "sendfile");
    CHECK(snic_backend_find("copy") != NULL);
    CHECK(snic_backend_find("nope") == NULL);
    CHECK(snic_backend_find("") == NULL);
    CHECK(!snic_backend_claims("root"));
}

static void
test_instance_refuses_foreign_params(void)
{
    snic_instance_t in;
    snic_options_t  opt;
    snic_param_t    p = {"nic_cache_size", "16m"};
    char            err[256];

    memset(&opt, 0, sizeof(opt));
    opt.params = &p;
    opt.nparams = 1;
    CHECK_INT(snic_instance_start(&in, snic_backend_find("copy"), &opt, err,
                                  sizeof(err)), -1);
    CHECK_STR(err, "\"nic_cache_size\" is not a directive of send backend "
                   "\"copy\"");
    opt.nparams = 0;
    CHECK_INT(snic_instance_start(&in, snic_backend_find("copy"), &opt, err,
                                  sizeof(err)), 0);
    CHECK(in.ops == snic_backend_find("copy"));
    snic_instance_stop(&in);
    CHECK(in.ops == NULL);
}

int
main(void)
{
    RUN(test_table);
    RUN(test_instance_refuses_foreign_params);
    return harness_report("test_backend");
}
