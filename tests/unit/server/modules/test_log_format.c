/* Unit tests of src/server/modules/log_format.c: access_log's settings */

#include "server/modules/log_format.c"
#include "harness.h"
#include "conf_load.h"

static const log_conf_t *
logs_of(const nicd_loc_conf_t *lc)
{
    return NICD_LOC_CONF(lc, nicd_log_format_module);
}

static void
test_access_logs(void)
{
    nicd_conf_t *c = conf_load("");

    CHECK(c != NULL);
    if (c == NULL) {
        return;
    }
    CHECK_INT(logs_of(c->http)->nlogs, 0); /* none unless written */
    nicd_conf_free(c);

    c = conf_load("http {\n"
             "  access_log /tmp/x.log combined buffer=32k flush=2s;\n"
             "  server {\n"
             "    listen 127.0.0.1:0;\n"
             "    location /q/ { access_log off; }\n"
             "    location /i/ { access_log /tmp/y.log if=$arg_log; }\n"
             "  }\n"
             "}\n");
    CHECK(c != NULL);
    if (c == NULL) {
        return;
    }
    CHECK_INT(logs_of(c->http)->nlogs, 1);
    CHECK_INT(logs_of(c->http)->logs[0].file, 0);
    CHECK(logs_of(c->http)->logs[0].cond == NULL);
    /* the server takes http's list; its locations their own */
    CHECK_INT(logs_of(c->servers[0]->loc)->nlogs, 1);
    CHECK_INT(logs_of(c->servers[0]->loc->locs[0])->nlogs, 0);
    CHECK_INT(logs_of(c->servers[0]->loc->locs[1])->nlogs, 1);
    CHECK_INT(logs_of(c->servers[0]->loc->locs[1])->logs[0].file, 1);
    CHECK(logs_of(c->servers[0]->loc->locs[1])->logs[0].cond != NULL);
    nicd_conf_free(c);
}

int
main(void)
{
    RUN(test_access_logs);
    return harness_report("test_log_format");
}
