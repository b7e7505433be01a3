/* Unit tests of src/server/modules/static.c: the pieces that need no connection */

#include "server/modules/static.c"
#include "harness.h"
#include "server/modules/modules.h"

static void
test_etag_match(void)
{
    const char *e = "\"5f-1a\"";
    size_t      el = strlen(e);

#define M(list, weak) etag_match(list, strlen(list), e, el, weak)
    CHECK(M("\"5f-1a\"", 0));
    CHECK(M("\"x\", \"5f-1a\"", 0));
    CHECK(M("*", 0));
    CHECK(M("W/\"5f-1a\"", 1));  /* weak comparison ignores W/ */
    CHECK(!M("W/\"5f-1a\"", 0)); /* strong comparison does not */
    CHECK(!M("\"5f-1b\"", 1));
    CHECK(!M("5f-1a", 1)); /* unquoted is not the same tag */
    CHECK(!M("", 1));
    CHECK(!M("\"5f-1a", 1)); /* unterminated */
#undef M
}

/* If-Range: an entity tag compared strongly, or the file's date, of any
 * weekday ("Wed, ..." is no weak tag) */
static void
test_if_range(void)
{
    nicd_request_t r;
    nicd_file_t    f;
    nicd_conn_t    c;
    nicd_worker_t  w;
    nicd_req_t     req;
    char           date[NICD_HTTP_DATE_LEN + 1], err[512];
    int            day;
    nicd_conf_t   *cf = nicd_conf_new(nicd_modules);

    /* a request in a location without add_header: the file's own
     * validators (add_header's replace them: test_nginx_diff.py) */
    CHECK(nicd_conf_finish(cf, err, sizeof(err)) == 0);
    memset(&c, 0, sizeof(c));
    memset(&w, 0, sizeof(w));
    memset(&req, 0, sizeof(req));
    c.w = &w;
    c.r = &req;
    req.loc = cf->http;
    memset(&f, 0, sizeof(f));
    strcpy(f.etag, "\"5f-1a\"");
    f.etag_len = strlen(f.etag);
#define IF_RANGE(s)                                                            \
    (r.hdr[NICD_HDR_IF_RANGE].p = (s),                                         \
     r.hdr[NICD_HDR_IF_RANGE].len = strlen(s), if_range_ok(&c, &r, &f))
    memset(&r, 0, sizeof(r));
    CHECK(if_range_ok(&c, &r, &f)); /* none: the range applies */
    CHECK(IF_RANGE("\"5f-1a\""));
    CHECK(!IF_RANGE("\"5f-1b\""));
    CHECK(!IF_RANGE("W/\"5f-1a\"")); /* weak: never, strong comparison */
    /* a date on each day of a week, 2015-10-18 (a Sunday) on */
    for (day = 0; day < 7; day++) {
        f.mtime = 1445126400 + (time_t) day * 86400;
        nicd_http_date(date, f.mtime);
        CHECK(IF_RANGE(date));
        f.mtime += 1; /* changed since */
        CHECK(!IF_RANGE(date));
    }
#undef IF_RANGE
    nicd_conf_free(cf);
}

/* index, autoindex and gzip_static: the module's settings, merged */
static void
test_settings(void)
{
    nicd_conf_t         *c = nicd_conf_new(nicd_modules);
    const static_conf_t *h, *s, *l;
    char                 err[512];

    CHECK(nicd_conf_parse_string(
              c,
              "http { index index.htm 'index.html'; autoindex on;"
              " server { listen 127.0.0.1:0; autoindex_format json;"
              " location /x/ { index a; gzip_static on;"
              " autoindex_exact_size off; } } }",
              "test.conf", err, sizeof(err))
          == 0);
    CHECK(nicd_conf_finish(c, err, sizeof(err)) == 0);
    h = SC(c->http);
    s = SC(c->servers[0]->loc);
    l = SC(c->servers[0]->loc->locs[0]);
    CHECK_INT(h->nindex, 2);
    CHECK_STR(h->index[1], "index.html");
    CHECK(h->autoindex && h->exact_size && h->format == AUTOINDEX_HTML);
    CHECK_INT(s->nindex, 2); /* a list is taken whole */
    CHECK(s->autoindex && s->format == AUTOINDEX_JSON && !s->gzip_static);
    CHECK_INT(l->nindex, 1);
    CHECK_STR(l->index[0], "a");
    CHECK(l->gzip_static && !l->exact_size && l->format == AUTOINDEX_JSON);
    nicd_conf_free(c);
    c = nicd_conf_new(nicd_modules);
    CHECK(nicd_conf_finish(c, err, sizeof(err)) == 0);
    CHECK_INT(SC(c->http)->nindex, 1); /* nginx's default */
    CHECK_STR(SC(c->http)->index[0], "index.html");
    nicd_conf_free(c);
}

int
main(void)
{
    RUN(test_etag_match);
    RUN(test_if_range);
    RUN(test_settings);
    return harness_report("test_static");
}
