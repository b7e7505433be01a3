/*
 * Unit tests of src/sendfile_nic/backend_uring.c: the send contract (byte-exact, early
 * stops, ranges, max_chunk, a file truncated under it) through the
 * zero-copy path, the copying one, sendfile(2) for loopback peers, and a
 * transport; every zero-copy buffer released.  Skipped (counted) where
 * the build has no liburing or the kernel no io_uring.
 */

#include "sendfile_nic/backend_uring.c"
#include "harness.h"
#include "sendfile_nic/send_helper.h"

#if defined(HAVE_LIBURING)

static const snic_param_t zc[] = {{"uring_zc_local", "on"},
                                  {"uring_zc_min", "4k"}};
static const snic_param_t local[] = {{"uring_zc_local", "off"}};

/* the backend, or NULL (and why on stdout) when it cannot work here */
static const snic_backend_t *
uring(void)
{
    const snic_backend_t *b = snic_backend_find("uring");
    snic_instance_t       in;
    snic_options_t        opt;
    char                  err[128];
    const char           *note;

    memset(&opt, 0, sizeof(opt));
    if (b == NULL || snic_instance_start(&in, b, &opt, err, sizeof(err))) {
        return NULL;
    }
    note = snic_notice(&in);
    if (note != NULL) {
        printf("uring unavailable: %s\n", note);
    }
    snic_instance_stop(&in);
    return note == NULL ? b : NULL;
}

static void
test_zero_copy(void)
{
    const snic_backend_t *b = uring();

    if (b == NULL) {
        SKIP("no io_uring here");
        return;
    }
    contract_params = zc;
    contract_nparams = 2;
    CHECK_INT(backend_contract(b, 0), 0);
    CHECK_INT(backend_contract(b, 65536), 0);
    contract_params = NULL;
    contract_nparams = 0;
}

static void
test_loopback_by_sendfile_and_transport(void)
{
    const snic_backend_t *b = uring();

    if (b == NULL) {
        SKIP("no io_uring here");
        return;
    }
    contract_params = local;
    contract_nparams = 1;
    CHECK_INT(backend_contract(b, 0), 0);
    contract_params = zc;
    contract_nparams = 2;
    via_transport = 1;
    CHECK_INT(backend_contract(b, 0), 0);
    via_transport = 0;
    contract_params = NULL;
    contract_nparams = 0;
}

static void
test_bad_directives(void)
{
    snic_param_t          bad[] = {{"uring_zc_local", "maybe"}};
    snic_options_t        opt;
    snic_instance_t       in;
    char                  err[128];
    const snic_backend_t *b = snic_backend_find("uring");

    CHECK(b != NULL);
    memset(&opt, 0, sizeof(opt));
    opt.params = bad;
    opt.nparams = 1;
    CHECK_INT(snic_instance_start(&in, b, &opt, err, sizeof(err)), -1);
    CHECK(strstr(err, "uring_zc_local") != NULL);
}

int
main(void)
{
    RUN(test_zero_copy);
    RUN(test_loopback_by_sendfile_and_transport);
    RUN(test_bad_directives);
    return harness_report("test_backend_uring");
}

#else

int
main(void)
{
    SKIP("built without liburing");
    return harness_report("test_backend_uring");
}

#endif
