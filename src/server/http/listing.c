/*
 * Directory listings as nginx's ngx_http_autoindex_module writes them
 * (listing.h): the entries' order and the html, json and xml texts.
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "server/http/filter.h"
#include "server/http/handler.h"
#include "server/http/listing.h"
#include "server/http/path.h"

/* nginx's order: directories first, then by name */
static int
entry_cmp(const void *a, const void *b)
{
    const nicd_listing_entry_t *x = a, *y = b;

    if (x->dir != y->dir) {
        return x->dir ? -1 : 1;
    }
    return strcmp(x->name, y->name);
}

/* characters, not bytes, of a UTF-8 name (nginx pads by those) */
static size_t
utf8_len(const char *s, size_t len)
{
    size_t i, n = 0;

    for (i = 0; i < len; i++) {
        n += ((unsigned char) s[i] & 0xC0) != 0x80;
    }
    return n;
}

void
nicd_listing_html(nicd_buf_t *b, const char *path, nicd_listing_entry_t *e,
                  size_t n, int utf8, int localtime_, int exact_size)
{
    static const char *const months[] = {"Jan", "Feb", "Mar", "Apr",
                                         "May", "Jun", "Jul", "Aug",
                                         "Sep", "Oct", "Nov", "Dec"};
    char     *esc = malloc(3 * 256 + 1), *html = malloc(6 * 256 + 1);
    char     *title = malloc(6 * strlen(path) + 1);
    struct tm tm;
    size_t    i, chars;
    long long v;
    char      scale;

    if (esc == NULL || html == NULL || title == NULL) {
        b->len = (size_t) -1;
        goto done;
    }
    nicd_html_escape(path, strlen(path), title);
    nicd_buf_addf(b,
                  "<html>\r\n<head><title>Index of %s</title></head>\r\n"
                  "<body>\r\n<h1>Index of %s</h1><hr><pre><a href=\"../\">"
                  "../</a>\r\n",
                  title, title);
    for (i = 0; i < n; i++) {
        nicd_path_escape(e[i].name, e[i].len, esc);
        nicd_buf_addf(b, "<a href=\"%s%s\">", esc, e[i].dir ? "/" : "");
        /* nginx counts characters only where the charset is UTF-8 */
        chars = (utf8 ? utf8_len(e[i].name, e[i].len) : e[i].len)
                + (size_t) e[i].dir;
        if (chars > 50) {
            /* 47 characters and "..>", as nginx cuts a long name */
            size_t k = 0, c47 = 0;

            while (k < e[i].len && c47 < 47) {
                k++;
                while (k < e[i].len
                       && ((unsigned char) e[i].name[k] & 0xC0) == 0x80) {
                    k++;
                }
                c47++;
            }
            nicd_html_escape(e[i].name, k, html);
            nicd_buf_addf(b, "%s..&gt;</a>", html);
            chars = 50;
        } else {
            nicd_html_escape(e[i].name, e[i].len, html);
            nicd_buf_addf(b, "%s%s</a>", html, e[i].dir ? "/" : "");
        }
        nicd_buf_addf(b, "%*s", (int) (50 - chars + 1), "");
        if (localtime_) {
            localtime_r(&e[i].mtime, &tm);
        } else {
            gmtime_r(&e[i].mtime, &tm);
        }
        nicd_buf_addf(b, "%02d-%s-%d %02d:%02d ", tm.tm_mday, months[tm.tm_mon],
                      tm.tm_year + 1900, tm.tm_hour, tm.tm_min);
        if (exact_size) {
            if (e[i].dir) {
                nicd_buf_addf(b, "%19s", "-");
            } else {
                nicd_buf_addf(b, "%19lld", (long long) e[i].size);
            }
        } else if (e[i].dir) {
            nicd_buf_addf(b, "%7s", "-");
        } else {
            /* nginx's rounding: K above 9999 bytes, then M and G */
            v = (long long) e[i].size;
            scale = '\0';
            if (v > 1024LL * 1024 * 1024 - 1) {
                v = v / (1024LL * 1024 * 1024)
                    + ((v % (1024LL * 1024 * 1024))
                       > (1024LL * 1024 * 512 - 1));
                scale = 'G';
            } else if (v > 1024 * 1024 - 1) {
                v = v / (1024 * 1024)
                    + ((v % (1024 * 1024)) > (1024 * 512 - 1));
                scale = 'M';
            } else if (v > 9999) {
                v = v / 1024 + ((v % 1024) > 511);
                scale = 'K';
            }
            if (scale) {
                nicd_buf_addf(b, "%6lld%c", v, scale);
            } else {
                nicd_buf_addf(b, " %6lld", v);
            }
        }
        NICD_BUF_LIT(b, "\r\n");
    }
    NICD_BUF_LIT(b, "</pre><hr></body>\r\n</html>\r\n");
done:
    free(esc);
    free(html);
    free(title);
}

void
nicd_listing_json(nicd_buf_t *b, nicd_listing_entry_t *e, size_t n)
{
    char   date[NICD_HTTP_DATE_LEN + 1];
    size_t i;

    NICD_BUF_LIT(b, "[\r\n");
    for (i = 0; i < n; i++) {
        nicd_http_date(date, e[i].mtime);
        NICD_BUF_LIT(b, "{ \"name\":\"");
        nicd_buf_add_json(b, e[i].name, e[i].len);
        nicd_buf_addf(b, "\", \"type\":\"%s\", \"mtime\":\"%s\"",
                      e[i].dir ? "directory" : "file", date);
        if (!e[i].dir) {
            nicd_buf_addf(b, ", \"size\":%lld", (long long) e[i].size);
        }
        nicd_buf_addf(b, " }%s\r\n", i + 1 < n ? "," : "");
    }
    NICD_BUF_LIT(b, "]");
}

void
nicd_listing_xml(nicd_buf_t *b, nicd_listing_entry_t *e, size_t n)
{
    char     *html = malloc(6 * 256 + 1);
    struct tm tm;
    size_t    i;

    if (html == NULL) {
        b->len = (size_t) -1;
        return;
    }
    NICD_BUF_LIT(b, "<?xml version=\"1.0\"?>\r\n<list>\r\n");
    for (i = 0; i < n; i++) {
        gmtime_r(&e[i].mtime, &tm);
        nicd_html_escape(e[i].name, e[i].len, html);
        nicd_buf_addf(b, "<%s mtime=\"%04d-%02d-%02dT%02d:%02d:%02dZ\"",
                      e[i].dir ? "directory" : "file", tm.tm_year + 1900,
                      tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min,
                      tm.tm_sec);
        if (!e[i].dir) {
            nicd_buf_addf(b, " size=\"%lld\"", (long long) e[i].size);
        }
        nicd_buf_addf(b, ">%s</%s>\r\n", html, e[i].dir ? "directory" : "file");
    }
    NICD_BUF_LIT(b, "</list>\r\n");
    free(html);
}

void
nicd_listing_sort(nicd_listing_entry_t *e, size_t n)
{
    if (n > 0) {
        qsort(e, n, sizeof(*e), entry_cmp);
    }
}

int
nicd_listing_utf8(nicd_conn_t *c)
{
    const nicd_recode_t *rc; /* asked quietly: the head says it */
    char                 name[64];

    return nicd_resp_charset(c, "text/html", 9, name, sizeof(name), &rc) > 0
           && strcasecmp(name, "utf-8") == 0;
}
